#!/usr/bin/env python3
"""check_layers.py ROOT: fails (exit 1, naming each file and include) when
an arrow of docs/architecture.md points the wrong way:
  - a file under src/ includes a header of service/ or cli/,
  - a file under service/ includes a header of cli/,
  - a file under bench/ includes a header of cli/,
  - a file under python/ (the Python package's binding) includes a header
    of service/ or cli/,
  - a CMakeLists.txt under src/, service/ or bench/ names a source or
    folder of the layers above it,
  - a file includes a private header of a library target under src/ (one
    outside that target's include/ folder) without being part of that
    target's folder: each target exports only its own public folder.
A quoted include is resolved as the compiler would: beside the file, then
under include/, each src/**/include/, src/, the repository root, tests/
and cli/ (the CLI's headers are spelled from cli/, as in
"doctor/doctor.h")."""
import functools
import pathlib
import re
import sys

FORBIDDEN = {"src": ("service", "cli"), "service": ("cli",), "bench": ("cli",),
             "python": ("service", "cli")}
CODE_FOLDERS = ("src", "service", "cli", "bench", "tests", "examples", "python")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CMAKE_REF = re.compile(r"\$\{PROJECT_SOURCE_DIR\}/([A-Za-z_]+)")


def top(root: pathlib.Path, path: pathlib.Path) -> str:
    return path.resolve().relative_to(root).parts[0]


@functools.lru_cache(maxsize=None)
def public_folders(root: pathlib.Path) -> tuple:
    return tuple(sorted((root / "src").rglob("include")))


def resolve(root: pathlib.Path, source: pathlib.Path, name: str):
    public = public_folders(root)
    for base in (source.parent, root / "include", *public, root / "src", root, root / "tests",
                 root / "cli"):
        candidate = base / name
        if candidate.is_file():
            return candidate
    return None


def target_folder(root: pathlib.Path, path: pathlib.Path):
    """The library target under src/ a file belongs to: the nearest folder
    above it with a CMakeLists.txt."""
    src = root / "src"
    for parent in path.resolve().parents:
        if parent == src or src not in parent.parents:
            return None
        if (parent / "CMakeLists.txt").is_file():
            return parent
    return None


def is_foreign_private(root: pathlib.Path, source: pathlib.Path, header: pathlib.Path) -> bool:
    owner = target_folder(root, header)
    if owner is None or (owner / "include") in header.resolve().parents:
        return False
    return target_folder(root, source) != owner


def check(root: pathlib.Path) -> list:
    """One walk over the code: each file read and each include resolved once,
    then both rules applied to it."""
    problems = []
    sources = (p for folder in CODE_FOLDERS for p in (root / folder).rglob("*"))
    for path in sorted(sources):
        above = FORBIDDEN.get(top(root, path), ())
        if path.suffix in (".h", ".cc"):
            for name in INCLUDE.findall(path.read_text(errors="replace")):
                target = resolve(root, path, name)
                if target is None:
                    continue
                if top(root, target) in above:
                    problems.append(f"{path.relative_to(root)}: #include \"{name}\" "
                                    f"is {target.relative_to(root)}")
                if is_foreign_private(root, path, target):
                    problems.append(f"{path.relative_to(root)}: #include \"{name}\" is private "
                                    f"to {target_folder(root, target).relative_to(root)}")
        elif path.name == "CMakeLists.txt":
            for folder in CMAKE_REF.findall(path.read_text()):
                if folder in above:
                    problems.append(f"{path.relative_to(root)}: names "
                                    f"${{PROJECT_SOURCE_DIR}}/{folder}")
    return problems


def self_test() -> bool:
    """The check finds a planted wrong arrow, and passes once it is gone."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d).resolve()
        for folder in ("src/core", "cli/shared", "service/http", "bench"):
            (root / folder).mkdir(parents=True)
        (root / "cli/shared/output.h").write_text("")
        (root / "service/http/server.h").write_text("")
        (root / "src/core/a.cc").write_text('#include "service/http/server.h"\n')
        (root / "bench/a.cc").write_text('#include "shared/output.h"\n')
        (root / "bench/CMakeLists.txt").write_text("${PROJECT_SOURCE_DIR}/cli/x.cc\n")
        for folder in ("src/adapters/x/include/deltacommit/x", "src/adapters/y"):
            (root / folder).mkdir(parents=True)
        for cmake in ("src/core", "src/adapters/x", "src/adapters/y"):
            (root / cmake / "CMakeLists.txt").write_text("")
        (root / "src/adapters/x/private.h").write_text("")
        (root / "src/adapters/x/include/deltacommit/x/public.h").write_text("")
        (root / "src/adapters/x/x.cc").write_text('#include "adapters/x/private.h"\n')
        (root / "cli/a.cc").write_text('#include "adapters/x/private.h"\n')
        (root / "src/adapters/y/y.cc").write_text('#include "adapters/x/private.h"\n')
        found = check(root)
        (root / "src/core/a.cc").write_text('#include "core/b.h"\n')
        (root / "bench/a.cc").write_text('#include "bench/b.h"\n')
        (root / "bench/CMakeLists.txt").write_text("${PROJECT_SOURCE_DIR}/src/x.cc\n")
        for user in ("cli/a.cc", "src/adapters/y/y.cc"):
            (root / user).write_text('#include "deltacommit/x/public.h"\n')
        return len(found) == 5 and not check(root)


def main() -> int:
    if not self_test():
        print("check_layers.py: the self-test failed: the check cannot be trusted")
        return 1
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against docs/architecture.md's arrows")
        return 1
    print("every include points down the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())

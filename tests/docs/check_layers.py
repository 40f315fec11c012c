#!/usr/bin/env python3
"""check_layers.py ROOT: fails (exit 1, naming each file and include) when
an arrow of docs/architecture.md points the wrong way:
  - a file under src/ includes a header of service/ or cli/,
  - a file under service/ includes a header of cli/,
  - a file under bench/ includes a header of cli/,
  - a CMakeLists.txt under src/, service/ or bench/ names a source or
    folder of the layers above it.
A quoted include is resolved as the compiler would: beside the file, then
under include/, src/, the repository root, tests/ and cli/ (the CLI's
headers are spelled from cli/, as in "doctor/doctor.h")."""
import pathlib
import re
import sys

FORBIDDEN = {"src": ("service", "cli"), "service": ("cli",), "bench": ("cli",)}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
CMAKE_REF = re.compile(r"\$\{PROJECT_SOURCE_DIR\}/([A-Za-z_]+)")


def top(root: pathlib.Path, path: pathlib.Path) -> str:
    return path.resolve().relative_to(root).parts[0]


def resolve(root: pathlib.Path, source: pathlib.Path, name: str):
    for base in (source.parent, root / "include", root / "src", root, root / "tests",
                 root / "cli"):
        candidate = base / name
        if candidate.is_file():
            return candidate
    return None


def check(root: pathlib.Path) -> list:
    problems = []
    for layer, above in FORBIDDEN.items():
        for path in sorted((root / layer).rglob("*")):
            if path.suffix in (".h", ".cc"):
                for name in INCLUDE.findall(path.read_text(errors="replace")):
                    target = resolve(root, path, name)
                    if target is not None and top(root, target) in above:
                        problems.append(f"{path.relative_to(root)}: #include \"{name}\" "
                                        f"is {target.relative_to(root)}")
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
        found = check(root)
        (root / "src/core/a.cc").write_text('#include "core/b.h"\n')
        (root / "bench/a.cc").write_text('#include "bench/b.h"\n')
        (root / "bench/CMakeLists.txt").write_text("${PROJECT_SOURCE_DIR}/src/x.cc\n")
        return len(found) == 3 and not check(root)


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

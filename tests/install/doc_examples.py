#!/usr/bin/env python3
"""doc_examples.py DOC OUT_DIR: writes the ```cpp blocks of DOC, in order,
as one program (OUT_DIR/main.cc) and a CMake project that builds it against
the installed deltacommit package (find_package). The blocks must make a
complete program: the last one holds main()."""
import pathlib
import re
import sys


def main() -> int:
    doc, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    blocks = re.findall(r"^```cpp\n(.*?)^```", doc.read_text(), flags=re.S | re.M)
    if not blocks:
        print(f"{doc}: no ```cpp blocks", file=sys.stderr)
        return 1
    if not any("int main(" in b for b in blocks):
        print(f"{doc}: no block defines main()", file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    source = "".join(f"// {doc.name}, example {i + 1}\n{b}\n" for i, b in enumerate(blocks))
    (out / "main.cc").write_text(source)
    (out / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\n"
        "project(deltacommit_doc_examples LANGUAGES CXX)\n"
        "set(CMAKE_CXX_STANDARD 20)\n"
        "set(CMAKE_CXX_STANDARD_REQUIRED ON)\n"
        "find_package(deltacommit 0.1 REQUIRED)\n"
        "add_executable(doc_examples main.cc)\n"
        "target_compile_options(doc_examples PRIVATE -Wall -Wextra -Werror)\n"
        "target_link_libraries(doc_examples PRIVATE deltacommit::deltacommit)\n")
    print(f"{len(blocks)} examples from {doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# python_wheel_test.sh SOURCE_DIR PYTHON [CMAKE_ARGS [WORK_DIR]]: the Python package as
# a user gets it. A clean copy of the sources (what git tracks, and new
# files it does not ignore: no build/, no .deps/) is built into a wheel
# with `PYTHON -m build --wheel`, the wheel is installed into a fresh
# virtual environment that has no other package, and a script there
# imports deltacommit and uses it on a local table. CMAKE_ARGS go to the
# wheel's CMake build (preset ci's flags, so that ccache serves what that
# build compiled). WORK_DIR (emptied first; default: a new temporary
# folder) holds the copy, the wheel and the virtual environment.
set -euo pipefail
source=$1 python=$2 cmake_args=${3:-}
if [ -n "${4:-}" ]; then
  work=$4
  rm -rf "$work" && mkdir -p "$work"
else
  work=$(mktemp -d)
fi
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/src"
if git -C "$source" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$source" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -C "$work/src" -xf -
else
  tar -C "$source" --exclude=./build --exclude=./.deps --exclude=./bin -cf - . | tar -C "$work/src" -xf -
fi
[ ! -e "$work/src/build" ] && [ ! -e "$work/src/.deps" ] ||
  { echo "FAIL: the clean copy holds build output" >&2; exit 1; }

# DuckDB as scripts/fetch-duckdb.sh left it (the copy would fetch it again).
export DUCKDB_ROOT="$source/.deps/duckdb"
export DELTACOMMIT_CMAKE_ARGS="$cmake_args"
# --no-isolation: the build requirements (setuptools, wheel, pybind11) come
# from Debian's packages, since PyPI is not reachable here.
"$python" -m build --wheel --no-isolation --outdir "$work/dist" "$work/src" >"$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log"; exit 1; }
wheel=$(ls "$work"/dist/deltacommit-*.whl)
echo "built $(basename "$wheel")"
"$python" -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist()
missing = [n for n in ("deltacommit/libduckdb.so", "deltacommit/py.typed",
                       "deltacommit/_deltacommit.pyi") if n not in names]
sys.exit("FAIL: the wheel lacks " + ", ".join(missing) if missing else 0)' "$wheel"

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --no-index --quiet "$wheel"
mkdir "$work/elsewhere"
cd "$work/elsewhere"
"$work/venv/bin/python" - "$work/venv" "$work/table" <<'PY'
import os, sys
import deltacommit

venv, uri = sys.argv[1], sys.argv[2]
assert deltacommit.__file__.startswith(venv), deltacommit.__file__
table = deltacommit.create(uri, "id:long,region:string", partition_by=["region"])
with open("rows.csv", "w") as f:
    f.write("id,region\n1,eu\n2,us\n3,eu\n")
assert table.append("rows.csv").version == 1
add = {"add": {"path": "region=eu/extra.parquet", "partitionValues": {"region": "eu"},
               "size": 1, "modificationTime": 1, "dataChange": False}}
result = table.commit([add], app_id="wheel-test", app_version=1)
assert result.version == 2, result
assert deltacommit.Table(uri).snapshot().txn_version("wheel-test") == 1
rows = deltacommit.Table(uri).query("SELECT region, count(*) FROM t GROUP BY 1 ORDER BY 1", version=1)
assert rows.rows == [("eu", 2), ("us", 1)], rows.rows
try:
    deltacommit.Table(uri + "-missing").version()
    raise SystemExit("FAIL: a missing table did not raise")
except deltacommit.NotFoundError as e:
    assert "NotFound" in str(e)
print("wheel installed in a fresh venv: create, append, commit, query and errors work")
PY

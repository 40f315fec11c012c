#!/usr/bin/env bash
# embed_test.sh BUILD_DIR SOURCE_DIR: installs BUILD_DIR into a
# temporary prefix, builds examples/embed against it (find_package), and
# runs it twice on each table: the second run must see the first's commit.
# S3 tables need the test servers (scripts/test-servers); without them the
# test is skipped (77), except under CI=true, where it fails.
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# The installed headers are the public ones only, and each stands alone
# (includes nothing that was not installed).
for internal in ascii percent_encoding checkpoint_parts last_checkpoint retention data_files; do
  if [ -e "$work/prefix/include/deltacommit/$internal.h" ]; then
    echo "FAIL: the internal header deltacommit/$internal.h was installed" >&2
    exit 1
  fi
done
for header in "$work"/prefix/include/deltacommit/*.h; do
  echo "#include \"deltacommit/$(basename "$header")\"" |
    c++ -std=c++20 -fsyntax-only -I "$work/prefix/include" -x c++ - ||
    { echo "FAIL: $(basename "$header") does not compile on its own when installed" >&2; exit 1; }
done
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$source/examples/embed" -B "$work/embed" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >"$work/configure.log" \
  || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/embed" -j 2 >"$work/build.log" || { cat "$work/build.log"; exit 1; }
embed="$work/embed/embed"

# docs/library.md's examples, compiled as one program and run.
python3 "$source/tests/install/doc_examples.py" "$source/docs/library.md" "$work/doc"
cmake -S "$work/doc" -B "$work/doc/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >"$work/doc.log" \
  && cmake --build "$work/doc/build" -j 2 >>"$work/doc.log" || { cat "$work/doc.log"; exit 1; }
out=$("$work/doc/build/doc_examples" "$work/doc-table") || { echo "$out"; exit 1; }
echo "$out"
[[ "$out" == *"already in the table"* && "$out" == *"all examples ran" ]] \
  || { echo "FAIL: docs/library.md's program did not run through" >&2; exit 1; }

# expect TABLE MODE VERSION: one run commits VERSION and reads it back.
expect() {
  local table=$1 mode=$2 version=$3 out
  out=$("$embed" "$table" "$mode")
  echo "$out"
  local want="committed version $version; snapshot version $version, $version file(s), app embed at $version"
  if [[ "$out" != *"($mode): $want" ]]; then
    echo "FAIL: expected \"($mode): $want\"" >&2
    exit 1
  fi
}

expect "$work/local-table" local 1
expect "$work/local-table" local 2

if [ -z "${AWS_ENDPOINT_URL_S3:-}" ] || [ -z "${DELTACOMMIT_TEST_BUCKET:-}" ] ||
   [ -z "${AWS_ENDPOINT_URL_DYNAMODB:-}" ]; then
  echo "the test servers are not running (eval \"\$(scripts/test-servers up)\")" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  exit 77
fi
prefix="s3://$DELTACOMMIT_TEST_BUCKET/tests/embed-$$-$RANDOM"
for mode in s3-conditional s3-dynamodb; do
  expect "$prefix/$mode" "$mode" 1
  expect "$prefix/$mode" "$mode" 2
done

#!/usr/bin/env bash
# Fetches DuckDB 1.4.4 (shared library + C header) into .deps/duckdb/{lib,include}
# for the Parquet checkpoint reader (src/adapters/parquet). Idempotent: does
# nothing when both files are already there.
#
# Source (docs/TESTINFRA "Parquet: DuckDB's C API, from npm"): Debian has no
# Parquet library, but DuckDB's official build is on npm:
#   @duckdb/node-bindings-linux-x64@1.4.4-r.4  -> package/libduckdb.so
#   duckdb@1.4.4                               -> package/src/duckdb/src/include/duckdb.h
# Nothing else is downloaded. To use DuckDB's release archive instead
# (libduckdb-linux-amd64.zip), unpack it anywhere and pass -DDUCKDB_ROOT=<dir>.
set -euo pipefail

readonly LIB_PACKAGE="@duckdb/node-bindings-linux-x64@1.4.4-r.4"
readonly HEADER_PACKAGE="duckdb@1.4.4"
readonly HEADER_IN_PACKAGE="package/src/duckdb/src/include/duckdb.h"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$ROOT/.deps/duckdb"
LIB="$DEST/lib/libduckdb.so"
HEADER="$DEST/include/duckdb.h"

verify() {
  [ -s "$LIB" ] || { echo "fetch-duckdb: $LIB missing or empty" >&2; return 1; }
  [ -s "$HEADER" ] || { echo "fetch-duckdb: $HEADER missing or empty" >&2; return 1; }
  grep -q 'duckdb_open' "$HEADER" ||
    { echo "fetch-duckdb: $HEADER does not declare duckdb_open" >&2; return 1; }
  # An ELF shared object starts with 0x7f 'E' 'L' 'F'.
  [ "$(head -c 4 "$LIB" | od -An -c | tr -d ' ')" = '177ELF' ] ||
    { echo "fetch-duckdb: $LIB is not an ELF file" >&2; return 1; }
}

if [ -f "$LIB" ] && [ -f "$HEADER" ] && verify 2>/dev/null; then
  echo "fetch-duckdb: present in $DEST"
  exit 0
fi

command -v npm >/dev/null || { echo "fetch-duckdb: npm is required (apt-get install npm)" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/fetch-duckdb.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Prints the tarball name npm pack wrote into $WORK.
pack() {
  (cd "$WORK" && npm pack --silent "$1" | tail -n 1)
}

echo "fetch-duckdb: npm pack $LIB_PACKAGE"
lib_tgz="$(pack "$LIB_PACKAGE")"
mkdir -p "$WORK/lib"
tar -xzf "$WORK/$lib_tgz" -C "$WORK/lib"
lib_found="$(find "$WORK/lib" -name libduckdb.so -type f | head -n 1)"
[ -n "$lib_found" ] || { echo "fetch-duckdb: no libduckdb.so in $lib_tgz" >&2; exit 1; }

echo "fetch-duckdb: npm pack $HEADER_PACKAGE"
header_tgz="$(pack "$HEADER_PACKAGE")"
mkdir -p "$WORK/hdr"
tar -xzf "$WORK/$header_tgz" -C "$WORK/hdr" "$HEADER_IN_PACKAGE"

mkdir -p "$DEST/lib" "$DEST/include"
# Copy under temp names, then rename: an interrupted run never leaves a
# half-written file that the "present" check above would accept.
cp "$lib_found" "$LIB.tmp" && mv -f "$LIB.tmp" "$LIB"
cp "$WORK/hdr/$HEADER_IN_PACKAGE" "$HEADER.tmp" && mv -f "$HEADER.tmp" "$HEADER"
verify
echo "fetch-duckdb: installed DuckDB 1.4.4 into $DEST"

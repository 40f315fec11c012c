#!/usr/bin/env bash
# Fetches hyparquet (pinned), a Parquet reader in plain JavaScript with no
# dependencies, into .deps/hyparquet/node_modules/hyparquet: the independent
# reader the tests use to check the checkpoints we write
# (tests/parquet/read_parquet.mjs). Idempotent: does nothing when that
# version is already there. Only `npm pack` of that one package is used.
# DELTACOMMIT_HYPARQUET_DIR overrides the destination (the tests read the
# same variable).
set -euo pipefail

readonly VERSION="1.33.0"
readonly PACKAGE="hyparquet@$VERSION"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${DELTACOMMIT_HYPARQUET_DIR:-$ROOT/.deps/hyparquet/node_modules/hyparquet}"

installed_version() {
  node -e 'console.log(require(process.argv[1]).version)' "$DEST/package.json" 2>/dev/null || true
}

if [ "$(installed_version)" = "$VERSION" ]; then
  echo "fetch-hyparquet: $PACKAGE present in $DEST"
  exit 0
fi

command -v npm >/dev/null || { echo "fetch-hyparquet: npm is required (apt-get install npm)" >&2; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/fetch-hyparquet.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

echo "fetch-hyparquet: npm pack $PACKAGE"
tgz="$(cd "$WORK" && npm pack --silent "$PACKAGE" | tail -n 1)"
mkdir -p "$WORK/x"
tar -xzf "$WORK/$tgz" -C "$WORK/x"
[ -f "$WORK/x/package/package.json" ] || { echo "fetch-hyparquet: no package.json in $tgz" >&2; exit 1; }
# Replace as a whole, by rename: an interrupted run leaves no half copy.
mkdir -p "$(dirname "$DEST")"
rm -rf "$DEST.tmp"
mv "$WORK/x/package" "$DEST.tmp"
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
[ "$(installed_version)" = "$VERSION" ] ||
  { echo "fetch-hyparquet: $DEST does not hold $PACKAGE" >&2; exit 1; }
echo "fetch-hyparquet: installed $PACKAGE into $DEST"

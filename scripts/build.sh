#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) and links
# bin/deltacommit to the CLI it built. TARGET=name builds that target only.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${1:-release}
JOBS=${JOBS:-$(nproc)}
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j "$JOBS" ${TARGET:+--target "$TARGET"}
mkdir -p bin
ln -sfn "../build/$PRESET/cli/deltacommit" bin/deltacommit

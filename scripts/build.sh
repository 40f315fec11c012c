#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) and links
# bin/deltacommit to the CLI it built (when it built one). TARGET=name builds
# that target only.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${1:-release}
JOBS=${JOBS:-$(nproc)}
cmake --preset "$PRESET" >/dev/null
cmake --build --preset "$PRESET" -j "$JOBS" ${TARGET:+--target "$TARGET"}
# Preset fuzz builds no CLI: bin/deltacommit keeps pointing where it did.
if [ -e "build/$PRESET/cli/deltacommit" ]; then
  mkdir -p bin
  ln -sfn "../build/$PRESET/cli/deltacommit" bin/deltacommit
fi

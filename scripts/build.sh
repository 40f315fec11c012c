#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) and links
# bin/deltacommit to the CLI it built (when it built one). TARGET=name builds
# that target only.
#
# When ccache is installed (scripts/setup.sh installs it) every compile goes
# through it, keyed on paths relative to the checkout, so another clone on
# the same machine (CI's) reuses what this one compiled. Set
# CMAKE_CXX_COMPILER_LAUNCHER yourself (empty: none) to choose otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${1:-release}
JOBS=${JOBS:-$(nproc)}
launcher=()
if [ -z "${CMAKE_CXX_COMPILER_LAUNCHER+set}" ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
elif [ -n "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER="$CMAKE_CXX_COMPILER_LAUNCHER")
fi
cmake --preset "$PRESET" "${launcher[@]}" >/dev/null
cmake --build --preset "$PRESET" -j "$JOBS" ${TARGET:+--target "$TARGET"}
# Preset fuzz builds no CLI: bin/deltacommit keeps pointing where it did.
if [ -e "build/$PRESET/cli/deltacommit" ]; then
  mkdir -p bin
  ln -sfn "../build/$PRESET/cli/deltacommit" bin/deltacommit
fi

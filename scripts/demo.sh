#!/usr/bin/env bash
# The main job on embedded defaults: sets up, builds, and runs `deltacommit
# demo` (several writer processes committing concurrently to a local table,
# then the verified result). Extra arguments go to `deltacommit demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The CLI alone (not the test suites): the demo runs nothing else.
TARGET=deltacommit scripts/build.sh release
exec bin/deltacommit demo "$@"

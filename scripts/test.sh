#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (the README's test command;
# .ci/run calls exactly this).
#   scripts/test.sh            # the ci preset (optimised, -Werror)
#   PRESET=asan scripts/test.sh
# It starts the test servers (scripts/test-servers) and stops them at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${PRESET:-ci}
scripts/setup.sh

# The golden tables live in shared/ beside the checkout (CI lays them there).
if [ -z "${DELTACOMMIT_GOLDEN_DIR:-}" ] && [ -d ../shared/delta-golden/tables ]; then
  export DELTACOMMIT_GOLDEN_DIR="$(cd ../shared/delta-golden/tables && pwd)"
fi
if [ -n "${CI:-}" ] && [ -z "${DELTACOMMIT_GOLDEN_DIR:-}" ]; then
  echo "test: CI needs the golden tables at ../shared/delta-golden/tables" >&2
  exit 1
fi
scripts/build.sh "$PRESET"
export DELTACOMMIT_CLI="$PWD/build/$PRESET/cli/deltacommit"

# The real servers the integration and contract suites need (Ceph RGW for
# S3), on 127.0.0.1; stopped again however the tests end.
servers_env=$(scripts/test-servers up)
eval "$servers_env"
trap 'scripts/test-servers down >/dev/null 2>&1 || true' EXIT
ctest --test-dir "build/$PRESET" --output-on-failure -j "$(nproc)" --timeout 600

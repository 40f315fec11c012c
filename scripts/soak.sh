#!/usr/bin/env bash
# The soak: writer processes committing to a table per mode (s3-conditional,
# s3-dynamodb, service, coordinated) on the real test servers, with two
# `deltacommit serve` instances sharing DynamoDB state; random writers and
# serve instance A are killed with SIGKILL at random moments. At the end
# every table is verified (tests/integration/soak_test.cc says what).
#
#   scripts/soak.sh                                  # 32 writers, 10 minutes
#   DELTACOMMIT_SOAK_SECONDS=120 DELTACOMMIT_SOAK_WRITERS=16 scripts/soak.sh
#   DELTACOMMIT_SOAK_SEED=1234 scripts/soak.sh       # an earlier run's chaos again
#
# Loopback only; the servers are started and stopped here. CI runs the
# one-minute version as part of scripts/test.sh (ctest label soak).
set -euo pipefail
cd "$(dirname "$0")/.."
PRESET=${PRESET:-ci}
scripts/setup.sh
TARGET=soak_test scripts/build.sh "$PRESET"

servers_dir=$(mktemp -d /tmp/dc-soak-servers.XXXXXX)
servers_env=$(scripts/test-servers up "$servers_dir")
eval "$servers_env"
trap 'scripts/test-servers down "$servers_dir" >/dev/null 2>&1 || true' EXIT

export DELTACOMMIT_CLI="$PWD/build/$PRESET/cli/deltacommit"
export DELTACOMMIT_SOAK_SECONDS=${DELTACOMMIT_SOAK_SECONDS:-600}
export DELTACOMMIT_SOAK_WRITERS=${DELTACOMMIT_SOAK_WRITERS:-32}
"build/$PRESET/tests/integration/soak_test"

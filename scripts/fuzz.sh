#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (preset fuzz: clang, ASan +
# UBSan; target `fuzzers` only) in build/fuzz and runs each for FUZZ_SECONDS,
# FUZZ_PARALLEL at a time. docs/fuzzing.md explains the targets, longer runs
# and how a crash becomes a regression test.
#
#   scripts/fuzz.sh [TARGET...]      default: every tests/fuzz/*_fuzz.cc
#
# Environment: FUZZ_SECONDS (60 per target), FUZZ_PARALLEL (2), FUZZ_RSS_MB
# (2048), FUZZ_TIMEOUT (10 s for one input), FUZZ_SKIP_BUILD=1, JOBS and the
# CMAKE_*_LAUNCHER/CCACHE_* variables of scripts/build.sh, and
# DELTACOMMIT_GOLDEN_DIR: golden tables whose commits, `_last_checkpoint`
# files and log names join the seeds (default: ../shared/delta-golden/tables
# when it exists).
#
# The working corpus (build/fuzz/corpus/<name>/) is kept between runs and
# grows; the checked-in seeds and regressions are read, never written.
# Exits 1 when any target found a crash, leak, timeout or out-of-memory, and
# prints each reproducer with the command that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_PARALLEL=${FUZZ_PARALLEL:-2}
FUZZ_RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-10}
BUILD=build/fuzz
BIN=$BUILD/tests/fuzz

if [ $# -gt 0 ]; then
  TARGETS=("$@")
else
  TARGETS=()
  for f in tests/fuzz/*_fuzz.cc; do
    n=${f##*/}
    TARGETS+=("${n%_fuzz.cc}")
  done
fi
for t in "${TARGETS[@]}"; do
  if [ ! -f "tests/fuzz/${t}_fuzz.cc" ]; then
    echo "fuzz: no target $t (tests/fuzz/${t}_fuzz.cc does not exist)" >&2
    exit 2
  fi
done

if [ "${FUZZ_SKIP_BUILD:-}" != 1 ]; then
  start=$(date +%s)
  TARGET=fuzzers scripts/build.sh fuzz
  echo "fuzz: built the fuzzers in $(( $(date +%s) - start )) s"
fi

if [ -z "${DELTACOMMIT_GOLDEN_DIR:-}" ] && [ -d ../shared/delta-golden/tables ]; then
  DELTACOMMIT_GOLDEN_DIR="$(cd ../shared/delta-golden/tables && pwd)"
fi

# Seeds from the golden tables, for the targets that read what a table's log
# holds: small commits, `_last_checkpoint` files, and the log's file names.
golden_seeds() {
  local name=$1 out=$BUILD/golden/$1
  [ -n "${DELTACOMMIT_GOLDEN_DIR:-}" ] || return 0
  rm -rf "$out"
  mkdir -p "$out"
  local i=0 f
  case $name in
    action_line)
      find "$DELTACOMMIT_GOLDEN_DIR" -path '*/_delta_log/*' -name '*.json' -size -64k |
        while read -r f; do i=$((i + 1)); cp "$f" "$out/$i.json"; done ;;
    last_checkpoint)
      find "$DELTACOMMIT_GOLDEN_DIR" -path '*/_delta_log/*' -name _last_checkpoint |
        while read -r f; do i=$((i + 1)); cp "$f" "$out/$i"; done ;;
    log_path)
      find "$DELTACOMMIT_GOLDEN_DIR" -path '*/_delta_log/*' -type f |
        sed 's|.*/_delta_log/||' | sort -u |
        while read -r f; do i=$((i + 1)); printf %s "$f" > "$out/$i"; done ;;
  esac
  echo "$out"
}

run_one() {
  local name=$1
  local corpus=$BUILD/corpus/$name artifacts=$BUILD/artifacts/$name/
  mkdir -p "$corpus" "$artifacts"
  local seeds=(tests/fuzz/corpus/"$name" tests/fuzz/regressions/"$name")
  local golden
  golden=$(golden_seeds "$name")
  [ -n "$golden" ] && seeds+=("$golden")
  # The first directory receives what libFuzzer finds; the others are read.
  local rc=0
  UBSAN_OPTIONS=print_stacktrace=1 "$BIN/${name}_fuzz" -max_total_time="$FUZZ_SECONDS" \
    -rss_limit_mb="$FUZZ_RSS_MB" -timeout="$FUZZ_TIMEOUT" -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$corpus" "${seeds[@]}" > "$BUILD/logs/$name.log" 2>&1 || rc=$?
  echo "$rc" > "$BUILD/logs/$name.rc"
}

report_one() {
  local name=$1 log=$BUILD/logs/$1.log
  local rc execs rate cov
  rc=$(cat "$BUILD/logs/$name.rc" 2>/dev/null || echo 1)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1)
  printf 'fuzz: %-16s %10s execs %7s/s  %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-no coverage line}"
  if [ "$rc" != 0 ]; then
    local found=0 artifact
    for artifact in "$BUILD/artifacts/$name"/*; do
      [ -f "$artifact" ] || continue
      found=1
      echo "fuzz: $name FAILED: reproducer $artifact"
      echo "      reproduce: $BIN/${name}_fuzz $artifact"
      echo "      keep it:   cp $artifact tests/fuzz/regressions/$name/<what-it-is> (docs/fuzzing.md)"
    done
    [ $found = 1 ] || echo "fuzz: $name FAILED (exit $rc) without a reproducer"
    echo "      log: $log"
    grep -m1 -A12 -E '^==[0-9]+==ERROR|runtime error|fuzz invariant failed|deadly signal' "$log" |
      sed 's/^/      | /' || true
    return 1
  fi
}

mkdir -p "$BUILD/logs"
rm -rf "$BUILD/artifacts"
for t in "${TARGETS[@]}"; do rm -f "$BUILD/logs/$t.rc"; done
echo "fuzz: ${#TARGETS[@]} targets, ${FUZZ_SECONDS} s each, $FUZZ_PARALLEL at a time"
running=0
for t in "${TARGETS[@]}"; do
  if [ "$running" -ge "$FUZZ_PARALLEL" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait || true

failed=0
for t in "${TARGETS[@]}"; do
  report_one "$t" || failed=1
done
if [ $failed = 1 ]; then
  echo "fuzz: FAILED: see the reproducers above" >&2
  exit 1
fi
echo "fuzz: no crash in ${#TARGETS[@]} targets"

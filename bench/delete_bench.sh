#!/usr/bin/env bash
# `deltacommit delete` side by side in one run (docs/benchmarks.md): the
# same rows deleted from two copies of one table, one with deletion vectors
# (delta.enableDeletionVectors=true) and one without (files rewritten), and
# a delete of a whole partition decided from the log. Prints the time and
# the bytes each delete wrote into the table, and their ratios.
#
#   bench/delete_bench.sh [ROWS] [PARTITIONS]   (1000000 rows in 4 partitions)
#
# Environment: DELTACOMMIT_CLI (default: bin/deltacommit, else
# build/ci/cli/deltacommit), BENCH_DIR (default: a new temporary directory,
# removed afterwards).
set -euo pipefail
rows=${1:-1000000}
partitions=${2:-4}
here=$(cd "$(dirname "$0")/.." && pwd)
cli=${DELTACOMMIT_CLI:-}
if [ -z "$cli" ]; then
  for c in "$here/bin/deltacommit" "$here/build/ci/cli/deltacommit"; do
    if [ -x "$c" ]; then cli=$c; break; fi
  done
fi
[ -x "$cli" ] || { echo "delete_bench: no deltacommit CLI (set DELTACOMMIT_CLI)" >&2; exit 2; }
dir=${BENCH_DIR:-$(mktemp -d /tmp/deltacommit-delete-bench-XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT

# The rows, written once by DuckDB through the CLI's own query command.
seed="$dir/seed"
"$cli" create "$seed" --schema "id:long" >/dev/null
"$cli" query "$seed" "COPY (SELECT range AS id, 'p' || (range % $partitions) AS p, \
md5(range::VARCHAR) AS payload FROM range($rows)) TO '$dir/rows.parquet' (FORMAT parquet)" >/dev/null

bytes() { du -sb --exclude=_delta_log "$1" | cut -f1; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }

declare -A seconds written
for kind in dv rewrite; do
  table="$dir/$kind"
  props=()
  [ "$kind" = dv ] && props=(--property delta.enableDeletionVectors=true)
  "$cli" create "$table" --schema "id:long,p:string,payload:string" --partition-by p \
    "${props[@]}" >/dev/null
  "$cli" append "$table" "$dir/rows.parquet" --quiet >/dev/null
  before=$(bytes "$table")
  start=$(now)
  "$cli" delete "$table" --where "id % 100 = 0" --json > "$dir/$kind.json"
  seconds[$kind]=$(calc "$(now) - $start")
  written[$kind]=$(( $(bytes "$table") - before ))
  left=$("$cli" query "$table" "SELECT count(*) FROM t" --csv | tail -1)
  expected=$(( rows - (rows + 99) / 100 ))
  [ "$left" = "$expected" ] || { echo "delete_bench: $kind left $left rows, not $expected" >&2; exit 1; }
done

# A whole partition, from the log alone (no data file fetched).
start=$(now)
"$cli" delete "$dir/dv" --where "p = 'p0'" --json > "$dir/partition.json"
partition_seconds=$(calc "$(now) - $start")
grep -q '"files_read":0' "$dir/partition.json" || { echo "delete_bench: the partition delete read files" >&2; exit 1; }

printf 'delete of 1%% of %d rows (%d partitions)\n' "$rows" "$partitions"
printf '  %-28s %8.3f s  %12d bytes written\n' "deletion vectors" "${seconds[dv]}" "${written[dv]}"
printf '  %-28s %8.3f s  %12d bytes written\n' "files rewritten" "${seconds[rewrite]}" "${written[rewrite]}"
printf '  %-28s %8.3f s\n' "a whole partition (log only)" "$partition_seconds"
printf 'ratios: rewrite / DV time %.2f, rewrite / DV bytes %.1f, DV / partition time %.2f\n' \
  "$(calc "${seconds[rewrite]} / ${seconds[dv]}")" \
  "$(calc "${written[rewrite]} / (${written[dv]} + 1)")" \
  "$(calc "${seconds[dv]} / $partition_seconds")"

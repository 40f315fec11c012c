# Snapshot load time, with and without a checkpoint, from
# `snapshot_load_bench --scaling --data FILE` (against the log's length) or
# `--files ... --data FILE` (against the active files):
#   gnuplot -e "data='scaling.tsv'; x='commits'; out='docs/bench-load-vs-log.png'" bench/snapshot_load_plot.gp
#   gnuplot -e "data='files.tsv'; x='files'; out='docs/bench-load-vs-files.png'" bench/snapshot_load_plot.gp
# Columns: store, commits, active files, load without a checkpoint (ms),
# load with one (ms), raw simdjson parse of the whole log (ms).
if (!exists("data")) data = 'scaling.tsv'
if (!exists("x")) x = 'commits'
if (!exists("out")) out = 'docs/bench-load-vs-log.png'
set datafile separator "\t"
column_x = x eq 'files' ? 3 : 2
set terminal pngcairo size 900,560 font ",11"
set output out
if (x eq 'files') {
  set title "Snapshot load vs active files (logs of 100 commits), with and without a checkpoint"
  set xlabel "active files"
} else {
  set title "Snapshot load vs log length (2 adds per commit), with and without a checkpoint"
  set xlabel "commits in the log"
}
set ylabel "load time (ms)"
set logscale xy
set key outside right
set grid
rows(s) = sprintf("< awk -F'\t' '$1 == \"%s\"' '%s'", s, data)
plot rows("memory") using column_x:4 with linespoints lw 2 lc rgb "#1f77b4" title "memory, no checkpoint", \
     rows("memory") using column_x:5 with linespoints lw 2 lc rgb "#1f77b4" dt 2 title "memory, checkpoint", \
     rows("posix") using column_x:4 with linespoints lw 2 lc rgb "#d62728" title "local dir, no checkpoint", \
     rows("posix") using column_x:5 with linespoints lw 2 lc rgb "#d62728" dt 2 title "local dir, checkpoint", \
     rows("memory") using column_x:6 with lines lw 1 lc rgb "#7f7f7f" dt 3 title "raw simdjson parse of the log"

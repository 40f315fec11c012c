# Throughput vs writers per commit mode, from `deltacommit bench --data`:
#   gnuplot -e "data='run.tsv'; out='docs/bench-commit-modes.png'" bench/commit_modes_plot.gp
# Columns: writers, mode, commits/s, p50, p95, p99 (ms), tables, retries and
# conflicts per commit. Optional: -e "mix='Appends removing a file'".
if (!exists("data")) data = 'commit-modes.tsv'
if (!exists("out")) out = 'docs/bench-commit-modes.png'
if (!exists("mix")) mix = 'Blind appends'
set datafile separator "\t"
# The most tables a run used (the bench spreads W writers over min(K, W));
# -e "tables=1" for data written before the column existed.
if (!exists("tables")) {
  stats data using 7 nooutput
  tables = int(STATS_max)
}
where = tables == 1 ? "one table" : sprintf("up to %d tables", tables)
set terminal pngcairo size 900,560 font ",11"
set output out
set title sprintf("%s: commits/s vs writer processes, %s per commit mode", mix, where)
set xlabel "writer processes (W)"
set ylabel "commits/s (all writers)"
set logscale x 2
set logscale y
set key outside right
set grid
modes = "local s3-conditional s3-dynamodb service coordinated"
colors = "#7f7f7f #1f77b4 #d62728 #2ca02c #9467bd"
# One mode's rows at a time, so that its points are joined by a line.
rows(m) = sprintf("< awk -F'\t' '$2 == \"%s\"' '%s'", m, data)
# The raw primitives the modes rest on (rows "raw <primitive>"), dashed.
raws = "link s3-put dynamodb-put"
raw_colors = "#7f7f7f #1f77b4 #d62728"
plot for [i = 1:words(modes)] rows(word(modes, i)) using 1:3 \
       with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(modes, i), \
     for [i = 1:words(raws)] rows("raw ".word(raws, i)) using 1:3 \
       with linespoints lw 1 dt 2 pt 6 lc rgb word(raw_colors, i) title "raw ".word(raws, i)

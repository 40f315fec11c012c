# Throughput vs writers per commit mode, from commit_modes_bench --data:
#   gnuplot -e "data='run.tsv'; out='docs/bench-commit-modes.png'" bench/commit_modes_plot.gp
if (!exists("data")) data = 'commit-modes.tsv'
if (!exists("out")) out = 'docs/bench-commit-modes.png'
set terminal pngcairo size 900,560 font ",11"
set output out
set title "Blind appends: commits/s vs writer processes, one table, per commit mode"
set xlabel "writer processes (W)"
set ylabel "commits/s (all writers)"
set logscale x 2
set logscale y
set key outside right
set grid
set datafile separator "\t"
modes = "local s3-conditional s3-dynamodb service coordinated"
colors = "#7f7f7f #1f77b4 #d62728 #2ca02c #9467bd"
# One mode's rows at a time, so that its points are joined by a line.
rows(m) = sprintf("< awk -F'\t' '$2 == \"%s\"' '%s'", m, data)
plot for [i = 1:words(modes)] rows(word(modes, i)) using 1:3 \
     with linespoints lw 2 pt 7 lc rgb word(colors, i) title word(modes, i)

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
modes = "local s3-conditional s3-dynamodb service coordinated"
plot for [m in modes] data using ($2 eq m ? $1 : 1/0):($2 eq m ? $3 : 1/0) \
     with linespoints lw 2 title m

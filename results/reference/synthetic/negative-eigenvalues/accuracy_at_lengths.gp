# accuracy_at_lengths.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot accuracy_at_lengths.gp
# It reads accuracy_at_lengths.dat and writes accuracy_at_lengths.png accuracy_at_lengths.pdf.
data = 'accuracy_at_lengths.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 900,560 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 9.375in,5.833333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'accuracy_at_lengths.'.format
  set multiplot
  # panel 1: cycle, width 64
  reset
  set lmargin at screen 0.08888888889
  set rmargin at screen 0.4777777778
  set bmargin at screen 0.2642857143
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'cycle, width 64' noenhanced font ',12' offset 0,-0.3
  set xlabel 'sequence length' noenhanced
  set ylabel 'accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [17.41101127:1470.333894]
  set logscale x 2
  set xtics ('32' 32, '64' 64, '128' 128, '256' 256, '512' 512, '1k' 1024)
  unset mxtics
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 1 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 2 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 3 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle, \
       data index 4 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 notitle, \
       data index 5 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 notitle, \
       data index 6 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 notitle, \
       data index 7 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 notitle, \
       data index 8 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 notitle, \
       data index 9 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 notitle, \
       data index 10 using 1:2 with lines lw 1.5 dt 2 lc rgb '#444444' notitle
  # panel 2: parity, width 64
  reset
  set lmargin at screen 0.5888888889
  set rmargin at screen 0.9777777778
  set bmargin at screen 0.2642857143
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'parity, width 64' noenhanced font ',12' offset 0,-0.3
  set xlabel 'sequence length' noenhanced
  set ylabel 'accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [17.41101127:1470.333894]
  set logscale x 2
  set xtics ('32' 32, '64' 64, '128' 128, '256' 256, '512' 512, '1k' 1024)
  unset mxtics
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 11 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 12 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 13 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 14 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle, \
       data index 15 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 notitle, \
       data index 16 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 notitle, \
       data index 17 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 notitle, \
       data index 18 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 notitle, \
       data index 19 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 notitle, \
       data index 20 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 notitle, \
       data index 21 using 1:2 with lines lw 1.5 dt 2 lc rgb '#444444' notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.01
  set rmargin at screen 0.99
  set bmargin at screen 0
  set tmargin at screen 0.1535714286
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center horizontal maxrows 4 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'hgrn', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 title 'hgrn_neg', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 title 'min_gru', \
       keyentry with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 title 'min_gru_neg', \
       keyentry with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 title 'min_lstm', \
       keyentry with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 title 'min_lstm_neg', \
       keyentry with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 title 'rg_lru', \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 title 'rg_lru_neg', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 title 'sru_linear', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 title 'sru_linear_neg', \
       keyentry with lines lw 1.5 dt 2 lc rgb '#444444' title 'longest training length'
  unset multiplot
  unset output
}

# learning_curves.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot learning_curves.gp
# It reads learning_curves.dat and writes learning_curves.png learning_curves.pdf.
data = 'learning_curves.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1000,420 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 10.41666667in,4.375in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'learning_curves.'.format
  set multiplot
  # panel 1: train (running mean over the epoch)
  reset
  set lmargin at screen 0.08
  set rmargin at screen 0.48
  set bmargin at screen 0.2238095238
  set tmargin at screen 0.9095238095
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'train (running mean over the epoch)' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'train bits per character' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:10.3]
  set xtics 1, 1
  set format x '%.0f'
  set yrange [1.479584769:2.508262356]
  set format y '% h'
  unset key
  plot data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 1 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 2 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 3 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle
  # panel 2: valid (whole text)
  reset
  set lmargin at screen 0.58
  set rmargin at screen 0.98
  set bmargin at screen 0.2238095238
  set tmargin at screen 0.9095238095
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'valid (whole text)' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'valid bits per character' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:10.3]
  set xtics 1, 1
  set format x '%.0f'
  set yrange [1.495841037:2.055104864]
  set format y '% h'
  unset key
  plot data index 4 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 5 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 6 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 7 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.01
  set rmargin at screen 0.99
  set bmargin at screen 0
  set tmargin at screen 0.07619047619
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center horizontal maxrows 1 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'gla', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 title 'hgrn', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 title 'min_gru', \
       keyentry with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 title 'rg_lru'
  unset multiplot
  unset output
}

# learning_curves.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot learning_curves.gp
# It reads learning_curves.dat and writes learning_curves.png learning_curves.pdf.
data = 'learning_curves.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 600,330 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 6.25in,3.4375in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'learning_curves.'.format
  set multiplot
  # panel 1: MR
  reset
  set lmargin at screen 0.1333333333
  set rmargin at screen 0.4666666667
  set bmargin at screen 0.2848484848
  set tmargin at screen 0.8848484848
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'MR' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.72:15.28]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [65.673403:79.06081252]
  set format y '% h'
  unset key
  plot data index 1 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 0 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 1 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle
  # panel 2: CR
  reset
  set lmargin at screen 0.6333333333
  set rmargin at screen 0.9666666667
  set bmargin at screen 0.2848484848
  set tmargin at screen 0.8848484848
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'CR' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.68:17.32]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [68.50134404:84.40550933]
  set format y '% h'
  unset key
  plot data index 3 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 2 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 2 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 3 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.01
  set rmargin at screen 0.99
  set bmargin at screen 0
  set tmargin at screen 0.09696969697
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center horizontal maxrows 1 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'lstm', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 title 'sru2'
  unset multiplot
  unset output
}

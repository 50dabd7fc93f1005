# accuracy_vs_width.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot accuracy_vs_width.gp
# It reads accuracy_vs_width.dat and writes accuracy_vs_width.png accuracy_vs_width.pdf.
data = 'accuracy_vs_width.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 900,560 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 9.375in,5.833333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'accuracy_vs_width.'.format
  set multiplot
  # panel 1: cycle
  reset
  set lmargin at screen 0.08888888889
  set rmargin at screen 0.3111111111
  set bmargin at screen 0.2642857143
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'cycle' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model width' noenhanced
  set ylabel 'test accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [55.71523605:73.51669472]
  set logscale x 2
  set xtics ('64' 64)
  unset mxtics
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 16 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 15 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 14 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 13 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 12 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 11 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 10 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 9 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 8 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 7 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 6 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 5 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 4 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 3 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 2 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 1 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 0 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 1 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 2 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 3 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle, \
       data index 4 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 notitle, \
       data index 5 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 notitle, \
       data index 6 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 notitle, \
       data index 7 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 notitle, \
       data index 8 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 notitle, \
       data index 9 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 notitle, \
       data index 10 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 3 pt 7 ps 0.8 notitle, \
       data index 11 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 3 pt 5 ps 0.8 notitle, \
       data index 12 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 3 pt 9 ps 0.8 notitle, \
       data index 13 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 3 pt 13 ps 0.8 notitle, \
       data index 14 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 5 pt 11 ps 0.8 notitle, \
       data index 15 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 5 pt 6 ps 0.8 notitle, \
       data index 16 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 5 pt 4 ps 0.8 notitle
  # panel 2: majority
  reset
  set lmargin at screen 0.4222222222
  set rmargin at screen 0.6444444444
  set bmargin at screen 0.2642857143
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'majority' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model width' noenhanced
  set ylabel 'test accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [55.71523605:73.51669472]
  set logscale x 2
  set xtics ('64' 64)
  unset mxtics
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 33 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 32 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 31 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 30 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 29 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 28 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 27 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 26 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 25 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 24 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 23 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 22 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 21 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 20 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 19 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 18 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 17 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 17 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 18 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 19 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 20 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle, \
       data index 21 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 notitle, \
       data index 22 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 notitle, \
       data index 23 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 notitle, \
       data index 24 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 notitle, \
       data index 25 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 notitle, \
       data index 26 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 notitle, \
       data index 27 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 3 pt 7 ps 0.8 notitle, \
       data index 28 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 3 pt 5 ps 0.8 notitle, \
       data index 29 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 3 pt 9 ps 0.8 notitle, \
       data index 30 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 3 pt 13 ps 0.8 notitle, \
       data index 31 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 5 pt 11 ps 0.8 notitle, \
       data index 32 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 5 pt 6 ps 0.8 notitle, \
       data index 33 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 5 pt 4 ps 0.8 notitle
  # panel 3: parity
  reset
  set lmargin at screen 0.7555555556
  set rmargin at screen 0.9777777778
  set bmargin at screen 0.2642857143
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'parity' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model width' noenhanced
  set ylabel 'test accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [55.71523605:73.51669472]
  set logscale x 2
  set xtics ('64' 64)
  unset mxtics
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 50 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 49 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 48 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 47 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 46 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 45 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 44 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 43 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 42 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 41 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 40 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#000000' notitle, \
       data index 39 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#CC79A7' notitle, \
       data index 38 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#56B4E9' notitle, \
       data index 37 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#D55E00' notitle, \
       data index 36 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 35 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 34 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 34 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 35 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 36 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle, \
       data index 37 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 notitle, \
       data index 38 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 notitle, \
       data index 39 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 notitle, \
       data index 40 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 notitle, \
       data index 41 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 notitle, \
       data index 42 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 notitle, \
       data index 43 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 notitle, \
       data index 44 using 1:2 with linespoints lw 2 lc rgb '#D55E00' dt 3 pt 7 ps 0.8 notitle, \
       data index 45 using 1:2 with linespoints lw 2 lc rgb '#56B4E9' dt 3 pt 5 ps 0.8 notitle, \
       data index 46 using 1:2 with linespoints lw 2 lc rgb '#CC79A7' dt 3 pt 9 ps 0.8 notitle, \
       data index 47 using 1:2 with linespoints lw 2 lc rgb '#000000' dt 3 pt 13 ps 0.8 notitle, \
       data index 48 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 5 pt 11 ps 0.8 notitle, \
       data index 49 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 5 pt 6 ps 0.8 notitle, \
       data index 50 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 5 pt 4 ps 0.8 notitle
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
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'gated_conv', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 title 'gla', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 title 'hgrn', \
       keyentry with linespoints lw 2 lc rgb '#D55E00' dt 1 pt 13 ps 0.8 title 'lstm', \
       keyentry with linespoints lw 2 lc rgb '#56B4E9' dt 1 pt 11 ps 0.8 title 'min_gru', \
       keyentry with linespoints lw 2 lc rgb '#CC79A7' dt 1 pt 6 ps 0.8 title 'min_lstm', \
       keyentry with linespoints lw 2 lc rgb '#000000' dt 1 pt 4 ps 0.8 title 'ngram', \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 3 pt 8 ps 0.8 title 'qrnn', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 3 pt 12 ps 0.8 title 'rg_lru', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 3 pt 10 ps 0.8 title 'rrnn_b', \
       keyentry with linespoints lw 2 lc rgb '#D55E00' dt 3 pt 7 ps 0.8 title 'rrnn_bmp', \
       keyentry with linespoints lw 2 lc rgb '#56B4E9' dt 3 pt 5 ps 0.8 title 'rrnn_c', \
       keyentry with linespoints lw 2 lc rgb '#CC79A7' dt 3 pt 9 ps 0.8 title 'rrnn_f', \
       keyentry with linespoints lw 2 lc rgb '#000000' dt 3 pt 13 ps 0.8 title 'self_iru', \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 5 pt 11 ps 0.8 title 'sru', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 5 pt 6 ps 0.8 title 'sru_linear', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 5 pt 4 ps 0.8 title 'transformer'
  unset multiplot
  unset output
}

# learning_curves.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot learning_curves.gp
# It reads learning_curves.dat and writes learning_curves.png learning_curves.pdf.
data = 'learning_curves.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1200,560 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 12.5in,5.833333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'learning_curves.'.format
  set multiplot
  # panel 1: MR
  reset
  set lmargin at screen 0.06666666667
  set rmargin at screen 0.2333333333
  set bmargin at screen 0.6107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'MR' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.62:20.38]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [64.74632029:79.19213436]
  set format y '% h'
  unset key
  plot data index 2 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 1 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 0 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 1 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 2 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 2: CR
  reset
  set lmargin at screen 0.3166666667
  set rmargin at screen 0.4833333333
  set bmargin at screen 0.6107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'CR' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.68:17.32]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [71.16316518:82.82703259]
  set format y '% h'
  unset key
  plot data index 5 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 4 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 3 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 3 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 4 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 5 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 3: SUBJ
  reset
  set lmargin at screen 0.5666666667
  set rmargin at screen 0.7333333333
  set bmargin at screen 0.6107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'SUBJ' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:16.3]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [85.54373591:93.02239873]
  set format y '% h'
  unset key
  plot data index 8 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 7 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 6 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 6 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 7 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 8 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 4: MPQA
  reset
  set lmargin at screen 0.8166666667
  set rmargin at screen 0.9833333333
  set bmargin at screen 0.6107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'MPQA' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.72:15.28]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [73.14286271:87.19817449]
  set format y '% h'
  unset key
  plot data index 11 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 10 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 9 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 9 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 10 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 11 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 5: TREC
  reset
  set lmargin at screen 0.06666666667
  set rmargin at screen 0.2333333333
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.4321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'TREC' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.66:18.34]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [69.496337:87.82967033]
  set format y '% h'
  unset key
  plot data index 14 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 13 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 12 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 12 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 13 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 14 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 6: SST-2
  reset
  set lmargin at screen 0.3166666667
  set rmargin at screen 0.4833333333
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.4321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'SST-2' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.76:13.24]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [65.60206422:80.61353211]
  set format y '% h'
  unset key
  plot data index 17 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 16 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 15 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 15 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 16 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 17 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # panel 7: SST-5
  reset
  set lmargin at screen 0.5666666667
  set rmargin at screen 0.7333333333
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.4321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'SST-5' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'dev accuracy (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:7.3]
  set xtics 1, 1
  set format x '%.0f'
  set yrange [33.19709355:40.19073569]
  set format y '% h'
  unset key
  plot data index 20 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#009E73' notitle, \
       data index 19 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#E69F00' notitle, \
       data index 18 using 1:3:4 with filledcurves fs transparent solid 0.22 noborder lc rgb '#0072B2' notitle, \
       data index 18 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle, \
       data index 19 using 1:2 with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 notitle, \
       data index 20 using 1:2 with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.77
  set rmargin at screen 0.98
  set bmargin at screen 0.02
  set tmargin at screen 0.48
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center vertical maxrows 14 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'cnn', \
       keyentry with linespoints lw 2 lc rgb '#E69F00' dt 1 pt 5 ps 0.8 title 'lstm', \
       keyentry with linespoints lw 2 lc rgb '#009E73' dt 1 pt 9 ps 0.8 title 'sru2'
  unset multiplot
  unset output
}

# qa_curves.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot qa_curves.gp
# It reads qa_curves.dat and writes qa_curves.png qa_curves.pdf.
data = 'qa_curves.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1000,420 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 10.41666667in,4.375in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'qa_curves.'.format
  set multiplot
  # panel 1: Dev exact match
  reset
  set lmargin at screen 0.08
  set rmargin at screen 0.48
  set bmargin at screen 0.2238095238
  set tmargin at screen 0.9095238095
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'Dev exact match' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'exact match (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:16.3]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [10.24239544:31.67775665]
  set format y '% h'
  unset key
  plot data index 0 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle
  # panel 2: Dev F1
  reset
  set lmargin at screen 0.58
  set rmargin at screen 0.98
  set bmargin at screen 0.2238095238
  set tmargin at screen 0.9095238095
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'Dev F1' noenhanced font ',12' offset 0,-0.3
  set xlabel 'epoch' noenhanced
  set ylabel 'F1 (%)' noenhanced
  set grid xtics ytics lc rgb '#d9d9d9' lw 1
  set xrange [0.7:16.3]
  set xtics 2, 2
  set format x '%.0f'
  set yrange [19.44445241:45.22642253]
  set format y '% h'
  unset key
  plot data index 1 using 1:2 with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 notitle
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
       keyentry with linespoints lw 2 lc rgb '#0072B2' dt 1 pt 7 ps 0.8 title 'sru_rescale'
  unset multiplot
  unset output
}

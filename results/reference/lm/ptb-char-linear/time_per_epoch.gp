# time_per_epoch.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot time_per_epoch.gp
# It reads time_per_epoch.dat and writes time_per_epoch.png time_per_epoch.pdf.
data = 'time_per_epoch.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 700,400 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 7.291666667in,4.166666667in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'time_per_epoch.'.format
  set multiplot
  # panel 1
  reset
  set lmargin at screen 0.1142857143
  set rmargin at screen 0.9714285714
  set bmargin at screen 0.155
  set tmargin at screen 0.965
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set xlabel 'model' noenhanced
  set ylabel 'training time per epoch (s)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:3.6]
  set xtics ('gla' 0, 'hgrn' 1, 'min_gru' 2, 'rg_lru' 3) noenhanced scale 0
  set yrange [0:2484.321554]
  set format y '% h'
  unset key
  plot data index 0 using ($1+0):3 with boxes lc rgb '#0072B2' notitle
  unset multiplot
  unset output
}

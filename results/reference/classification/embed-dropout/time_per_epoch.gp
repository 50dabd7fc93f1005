# time_per_epoch.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot time_per_epoch.gp
# It reads time_per_epoch.dat and writes time_per_epoch.png time_per_epoch.pdf.
data = 'time_per_epoch.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 700,420 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 7.291666667in,4.375in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'time_per_epoch.'.format
  set multiplot
  # panel 1
  reset
  set lmargin at screen 0.1142857143
  set rmargin at screen 0.8114285714
  set bmargin at screen 0.1476190476
  set tmargin at screen 0.9666666667
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set xlabel 'dataset' noenhanced
  set ylabel 'training time per epoch (s)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.4 absolute
  set xrange [-0.6:1.6]
  set xtics ('MR' 0, 'CR' 1) noenhanced scale 0
  set yrange [0:90.15634885]
  set format y '% h'
  set key at screen 0.8257142857, screen 0.9666666667 left top vertical Left reverse samplen 4 noenhanced nobox
  plot data index 0 using ($1-0.2):3 with boxes lc rgb '#0072B2' title 'lstm', \
       data index 0 using ($1+0.2):5 with boxes lc rgb '#E69F00' title 'sru2', \
       data index 0 using ($1-0.2):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle, \
       data index 0 using ($1+0.2):($5-$6):(0):(2*$6) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  unset multiplot
  unset output
}

# qa_epoch_time.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot qa_epoch_time.gp
# It reads qa_epoch_time.dat and writes qa_epoch_time.png qa_epoch_time.pdf.
data = 'qa_epoch_time.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 900,560 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 9.375in,5.833333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'qa_epoch_time.'.format
  set multiplot
  # panel 1: Time per training epoch
  reset
  set lmargin at screen 0.08888888889
  set rmargin at screen 0.64
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'Time per training epoch' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model' noenhanced
  set ylabel 'seconds per epoch (s)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.2666666667 absolute
  set xrange [-0.6:0.6]
  set xtics ('sru_rescale' 0) noenhanced scale 0
  set yrange [0:119.0178799]
  set format y '% h'
  set key at screen 0.6511111111, screen 0.9321428571 left top vertical Left reverse samplen 4 noenhanced nobox
  plot data index 0 using ($1-0.2666666667):3 with boxes lc rgb '#0072B2' title 'whole epoch', \
       data index 0 using ($1+0):5 with boxes lc rgb '#E69F00' title 'recurrent encoders', \
       data index 0 using ($1+0.2666666667):7 with boxes lc rgb '#009E73' title 'recurrent encoders, CPU time'
  unset multiplot
  unset output
}

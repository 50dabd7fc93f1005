# compare.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot compare.gp
# It reads compare.dat and writes compare.png compare.pdf.
data = 'compare.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1000,560 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 10.41666667in,5.833333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'compare.'.format
  set multiplot
  # panel 1: dev EM (%)
  reset
  set lmargin at screen 0.08
  set rmargin at screen 0.48
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'dev EM (%)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'dev EM (%)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:3.6]
  set xtics ('lstm' 0, 'sru' 1, 'sru_dropout' 2, 'sru_rescale' 3) noenhanced scale 0
  set yrange [0:43.47326254]
  set format y '% h'
  unset key
  plot data index 0 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 0 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 2: dev F1 (%)
  reset
  set lmargin at screen 0.58
  set rmargin at screen 0.98
  set bmargin at screen 0.1107142857
  set tmargin at screen 0.9321428571
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'dev F1 (%)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'dev F1 (%)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:3.6]
  set xtics ('lstm' 0, 'sru' 1, 'sru_dropout' 2, 'sru_rescale' 3) noenhanced scale 0
  set yrange [0:57.60660371]
  set format y '% h'
  unset key
  plot data index 1 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 1 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  unset multiplot
  unset output
}

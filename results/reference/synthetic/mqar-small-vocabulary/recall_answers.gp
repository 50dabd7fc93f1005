# recall_answers.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot recall_answers.gp
# It reads recall_answers.dat and writes recall_answers.png recall_answers.pdf.
data = 'recall_answers.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1560,980 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 16.25in,10.20833333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'recall_answers.'.format
  set multiplot
  # panel 1: mqar-64-v256, width 64
  reset
  set lmargin at screen 0.05128205128
  set rmargin at screen 0.9871794872
  set bmargin at screen 0.5795918367
  set tmargin at screen 0.9612244898
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'mqar-64-v256, width 64' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model' noenhanced
  set ylabel 'test questions (%)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.2666666667 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) noenhanced scale 0
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 0 using ($1-0.2666666667):3 with boxes lc rgb '#0072B2' notitle, \
       data index 0 using ($1+0):5 with boxes lc rgb '#E69F00' notitle, \
       data index 0 using ($1+0.2666666667):7 with boxes lc rgb '#009E73' notitle
  # panel 2: mqar-64-v256, width 128
  reset
  set lmargin at screen 0.05128205128
  set rmargin at screen 0.9871794872
  set bmargin at screen 0.09591836735
  set tmargin at screen 0.4775510204
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'mqar-64-v256, width 128' noenhanced font ',12' offset 0,-0.3
  set xlabel 'model' noenhanced
  set ylabel 'test questions (%)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.2666666667 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) noenhanced scale 0
  set yrange [0:100]
  set format y '% h'
  unset key
  plot data index 1 using ($1-0.2666666667):3 with boxes lc rgb '#0072B2' notitle, \
       data index 1 using ($1+0):5 with boxes lc rgb '#E69F00' notitle, \
       data index 1 using ($1+0.2666666667):7 with boxes lc rgb '#009E73' notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.01
  set rmargin at screen 0.99
  set bmargin at screen 0
  set tmargin at screen 0.03265306122
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center horizontal maxrows 1 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with boxes lc rgb '#0072B2' title 'right', \
       keyentry with boxes lc rgb '#E69F00' title 'another answer of the sequence', \
       keyentry with boxes lc rgb '#009E73' title 'none of its answers'
  unset multiplot
  unset output
}

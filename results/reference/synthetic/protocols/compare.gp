# compare.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot compare.gp
# It reads compare.dat and writes compare.png compare.pdf.
data = 'compare.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1680,860 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 17.5in,8.958333333in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'compare.'.format
  set multiplot
  # panel 1: test accuracy % (cycle, width 64)
  reset
  set lmargin at screen 0.04761904762
  set rmargin at screen 0.2380952381
  set bmargin at screen 0.6261395349
  set tmargin at screen 0.9558139535
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (cycle, width 64)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (cycle, width 64)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.4 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:105.732]
  set format y '% h'
  unset key
  plot data index 0 using ($1-0.2):3 with boxes lc rgb '#0072B2' notitle, \
       data index 0 using ($1+0.2):5 with boxes lc rgb '#E69F00' notitle, \
       data index 0 using ($1-0.2):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle, \
       data index 0 using ($1+0.2):($5-$6):(0):(2*$6) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 2: test accuracy % (cycle, width 128)
  reset
  set lmargin at screen 0.2976190476
  set rmargin at screen 0.4880952381
  set bmargin at screen 0.6261395349
  set tmargin at screen 0.9558139535
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (cycle, width 128)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (cycle, width 128)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:80.676]
  set format y '% h'
  unset key
  plot data index 1 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 1 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 3: test accuracy % (majority, width 64)
  reset
  set lmargin at screen 0.5476190476
  set rmargin at screen 0.7380952381
  set bmargin at screen 0.6261395349
  set tmargin at screen 0.9558139535
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (majority, width 64)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (majority, width 64)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.4 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:108]
  set format y '% h'
  unset key
  plot data index 2 using ($1-0.2):3 with boxes lc rgb '#0072B2' notitle, \
       data index 2 using ($1+0.2):5 with boxes lc rgb '#E69F00' notitle, \
       data index 2 using ($1-0.2):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle, \
       data index 2 using ($1+0.2):($5-$6):(0):(2*$6) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 4: test accuracy % (majority, width 128)
  reset
  set lmargin at screen 0.7976190476
  set rmargin at screen 0.9880952381
  set bmargin at screen 0.6261395349
  set tmargin at screen 0.9558139535
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (majority, width 128)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (majority, width 128)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:103.68]
  set format y '% h'
  unset key
  plot data index 3 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 3 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 5: test accuracy % (mqar-64, width 64)
  reset
  set lmargin at screen 0.04761904762
  set rmargin at screen 0.2380952381
  set bmargin at screen 0.144744186
  set tmargin at screen 0.4744186047
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (mqar-64, width 64)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (mqar-64, width 64)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:5.319]
  set format y '% h'
  unset key
  plot data index 4 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 4 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 6: test accuracy % (mqar-64, width 128)
  reset
  set lmargin at screen 0.2976190476
  set rmargin at screen 0.4880952381
  set bmargin at screen 0.144744186
  set tmargin at screen 0.4744186047
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (mqar-64, width 128)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (mqar-64, width 128)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:16.308]
  set format y '% h'
  unset key
  plot data index 5 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 5 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 7: test accuracy % (parity, width 64)
  reset
  set lmargin at screen 0.5476190476
  set rmargin at screen 0.7380952381
  set bmargin at screen 0.144744186
  set tmargin at screen 0.4744186047
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (parity, width 64)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (parity, width 64)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.4 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:108]
  set format y '% h'
  unset key
  plot data index 6 using ($1-0.2):3 with boxes lc rgb '#0072B2' notitle, \
       data index 6 using ($1+0.2):5 with boxes lc rgb '#E69F00' notitle, \
       data index 6 using ($1-0.2):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle, \
       data index 6 using ($1+0.2):($5-$6):(0):(2*$6) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # panel 8: test accuracy % (parity, width 128)
  reset
  set lmargin at screen 0.7976190476
  set rmargin at screen 0.9880952381
  set bmargin at screen 0.144744186
  set tmargin at screen 0.4744186047
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'test accuracy % (parity, width 128)' noenhanced font ',12' offset 0,-0.3
  set ylabel 'test accuracy % (parity, width 128)' noenhanced
  set grid ytics lc rgb '#d9d9d9' lw 1
  set style fill solid 0.85 border lc rgb '#000000'
  set boxwidth 0.8 absolute
  set xrange [-0.6:16.6]
  set xtics ('gated_conv' 0, 'gla' 1, 'hgrn' 2, 'lstm' 3, 'min_gru' 4, 'min_lstm' 5, 'ngram' 6, 'qrnn' 7, 'rg_lru' 8, 'rrnn_b' 9, 'rrnn_bmp' 10, 'rrnn_c' 11, 'rrnn_f' 12, 'self_iru' 13, 'sru' 14, 'sru_linear' 15, 'transformer' 16) rotate by 45 right noenhanced scale 0
  set yrange [0:108]
  set format y '% h'
  unset key
  plot data index 7 using ($1+0):3 with boxes lc rgb '#0072B2' notitle, \
       data index 7 using ($1+0):($3-$4):(0):(2*$4) with vectors heads size screen 0.008,90 lc rgb '#000000' lw 1 notitle
  # the key shared by every panel
  reset
  unset border
  unset tics
  unset grid
  set style fill solid 0.85 border lc rgb '#000000'
  set lmargin at screen 0.01
  set rmargin at screen 0.99
  set bmargin at screen 0
  set tmargin at screen 0.03720930233
  set xrange [0:1]
  set yrange [0:1]
  set key inside center center horizontal maxrows 1 Left reverse samplen 4 noenhanced nobox
  plot NaN notitle, \
       keyentry with boxes lc rgb '#0072B2' title 'config 1', \
       keyentry with boxes lc rgb '#E69F00' title 'config 2'
  unset multiplot
  unset output
}

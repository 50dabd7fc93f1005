# attention_transformer_sru.gp: written by recurlab_analyze from the run's log.h5.
# Restyle and rerun in this folder: gnuplot attention_transformer_sru.gp
# It reads attention_transformer_sru.dat and writes attention_transformer_sru.png attention_transformer_sru.pdf.
data = 'attention_transformer_sru.dat'
do for [format in "png pdf"] {
  if (format eq 'png') { set terminal pngcairo size 1064,844 font 'Sans,11' enhanced dashlength 1.5 }
  if (format eq 'pdf') { set terminal pdfcairo size 11.08333333in,8.791666667in font 'Sans,11' enhanced dashlength 1.5 }
  set output 'attention_transformer_sru.'.format
  set multiplot
  # panel 1: decoder layer 1
  reset
  set lmargin at screen 0.1597744361
  set rmargin at screen 0.3872180451
  set bmargin at screen 0.654028436
  set tmargin at screen 0.9549763033
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'decoder layer 1' noenhanced font ',12' offset 0,-0.3
  set xlabel 'source subword' noenhanced
  set ylabel 'generated subword' noenhanced
  set border 15
  set palette defined (0 '#f7fbff', 0.25 '#c6dbef', 0.5 '#6baed6', 0.75 '#2171b5', 1 '#08306b')
  set cbrange [0:1]
  set cblabel 'attention weight' noenhanced
  set xrange [-0.5:11.5]
  set yrange [10.5:-0.5]
  set xtics ('A' 0, 'man' 1, 'in' 2, 'an' 3, 'orange' 4, 'hat' 5, 'star' 6, 'ring' 7, 'at' 8, 'something' 9, '.' 10, '</s>' 11) rotate by 90 right noenhanced scale 0
  set ytics ('Ein' 0, 'Mann' 1, 'mit' 2, 'einem' 3, 'orangefarbenen' 4, 'Hut' 5, 'starrt' 6, 'auf' 7, 'etwas' 8, '.' 9, '</s>' 10) noenhanced scale 0
  unset key
  unset key
  plot data index 0 using 1:2:3 with image notitle
  # panel 2: decoder layer 2
  reset
  set lmargin at screen 0.6597744361
  set rmargin at screen 0.8872180451
  set bmargin at screen 0.654028436
  set tmargin at screen 0.9549763033
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'decoder layer 2' noenhanced font ',12' offset 0,-0.3
  set xlabel 'source subword' noenhanced
  set ylabel 'generated subword' noenhanced
  set border 15
  set palette defined (0 '#f7fbff', 0.25 '#c6dbef', 0.5 '#6baed6', 0.75 '#2171b5', 1 '#08306b')
  set cbrange [0:1]
  set cblabel 'attention weight' noenhanced
  set xrange [-0.5:11.5]
  set yrange [10.5:-0.5]
  set xtics ('A' 0, 'man' 1, 'in' 2, 'an' 3, 'orange' 4, 'hat' 5, 'star' 6, 'ring' 7, 'at' 8, 'something' 9, '.' 10, '</s>' 11) rotate by 90 right noenhanced scale 0
  set ytics ('Ein' 0, 'Mann' 1, 'mit' 2, 'einem' 3, 'orangefarbenen' 4, 'Hut' 5, 'starrt' 6, 'auf' 7, 'etwas' 8, '.' 9, '</s>' 10) noenhanced scale 0
  unset key
  unset key
  plot data index 1 using 1:2:3 with image notitle
  # panel 3: decoder layer 3
  reset
  set lmargin at screen 0.1597744361
  set rmargin at screen 0.3872180451
  set bmargin at screen 0.154028436
  set tmargin at screen 0.4549763033
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'decoder layer 3' noenhanced font ',12' offset 0,-0.3
  set xlabel 'source subword' noenhanced
  set ylabel 'generated subword' noenhanced
  set border 15
  set palette defined (0 '#f7fbff', 0.25 '#c6dbef', 0.5 '#6baed6', 0.75 '#2171b5', 1 '#08306b')
  set cbrange [0:1]
  set cblabel 'attention weight' noenhanced
  set xrange [-0.5:11.5]
  set yrange [10.5:-0.5]
  set xtics ('A' 0, 'man' 1, 'in' 2, 'an' 3, 'orange' 4, 'hat' 5, 'star' 6, 'ring' 7, 'at' 8, 'something' 9, '.' 10, '</s>' 11) rotate by 90 right noenhanced scale 0
  set ytics ('Ein' 0, 'Mann' 1, 'mit' 2, 'einem' 3, 'orangefarbenen' 4, 'Hut' 5, 'starrt' 6, 'auf' 7, 'etwas' 8, '.' 9, '</s>' 10) noenhanced scale 0
  unset key
  unset key
  plot data index 2 using 1:2:3 with image notitle
  # panel 4: decoder layer 4
  reset
  set lmargin at screen 0.6597744361
  set rmargin at screen 0.8872180451
  set bmargin at screen 0.154028436
  set tmargin at screen 0.4549763033
  set border 3 lw 1
  set tics nomirror out scale 0.6
  set title 'decoder layer 4' noenhanced font ',12' offset 0,-0.3
  set xlabel 'source subword' noenhanced
  set ylabel 'generated subword' noenhanced
  set border 15
  set palette defined (0 '#f7fbff', 0.25 '#c6dbef', 0.5 '#6baed6', 0.75 '#2171b5', 1 '#08306b')
  set cbrange [0:1]
  set cblabel 'attention weight' noenhanced
  set xrange [-0.5:11.5]
  set yrange [10.5:-0.5]
  set xtics ('A' 0, 'man' 1, 'in' 2, 'an' 3, 'orange' 4, 'hat' 5, 'star' 6, 'ring' 7, 'at' 8, 'something' 9, '.' 10, '</s>' 11) rotate by 90 right noenhanced scale 0
  set ytics ('Ein' 0, 'Mann' 1, 'mit' 2, 'einem' 3, 'orangefarbenen' 4, 'Hut' 5, 'starrt' 6, 'auf' 7, 'etwas' 8, '.' 9, '</s>' 10) noenhanced scale 0
  unset key
  unset key
  plot data index 3 using 1:2:3 with image notitle
  unset multiplot
  unset output
}

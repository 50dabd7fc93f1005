#!/bin/sh
# Runs one compile command ("$@": ccache, the compiler, its arguments). For the precompiled
# header's own compile (-x c++-header ... -o FILE.gch) it first removes the previous FILE.gch:
# CMake passes `-include FILE` to that compile too, GCC then reads the old FILE.gch beside FILE,
# and ccache hashes it, so each rebuilt .gch was keyed on (and differed from) the last one and
# no object compiled against it was ever reused. Without it the .gch's compile depends on the
# headers and flags alone, its cached bytes come back, and so do the objects'.
header=
out=
prev=
for arg in "$@"; do
  if [ "$prev" = "-x" ] && [ "$arg" = "c++-header" ]; then header=1; fi
  if [ "$prev" = "-o" ]; then out=$arg; fi
  prev=$arg
done
if [ -n "$header" ] && [ -n "$out" ]; then rm -f "$out"; fi
exec "$@"

#!/usr/bin/env bash
set -u
O=${OUT:-/tmp/diagout}; mkdir -p "$O"
mkdir -p /tmp/d && tar xJf gpu-deps/data.tar.xz -C /tmp/d
{
echo "== toolchain"; ls -la /usr/bin/c++ /usr/bin/g++ /usr/bin/gcc /opt/gcc/bin/c++ /opt/gcc/bin/g++ 2>&1
/opt/gcc/bin/g++ -v 2>&1 | tail -3; ls /opt/gcc/lib64 /opt/gcc/lib 2>&1 | grep -i "stdc\|gcc_s"
printf '#include <filesystem>\nint main(){std::filesystem::remove_all("/tmp/x_none");}\n' > /tmp/t.cpp
for cxx in /opt/gcc/bin/g++ /usr/bin/g++; do echo "-- $cxx"; $cxx -std=c++17 /tmp/t.cpp -o /tmp/t.out && readelf -d /tmp/t.out | grep NEEDED; nm /tmp/t.out | grep -c " T .*filesystem"; done
dpkg -l | grep -i "sentencepiece\|libstdc++6 " | cut -c1-100
} > "$O/toolchain.txt" 2>&1
CC=/usr/bin/gcc CXX=/usr/bin/g++ CUDAHOSTCXX=/usr/bin/g++ scripts/gpu-run.sh --deps gpu-deps/gpu-deps.tar.xz --data /tmp/d/data --out "$O" --deadline 320 --stages classification,lm,mt,qa,synthetic

#!/usr/bin/env bash
# The registration archive named twice on one link, as ExecuTorch's CMake
# names it (issue 28): by its absolute path under --whole-archive (a link
# option) and again plainly by a relative path (LINK_LIBRARIES). One file:
# every member is extracted at the first occurrence. consumer_twice is
# linked and kept; consumer_twice_unbuilt is linked the same way and its
# output removed, so its fates are predicted from the line alone.
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
kernels_fixture
for c in consumer_twice consumer_twice_unbuilt; do
  run g++ -o $c main.o -L. -Wl,--whole-archive "$out/libet_kernels.a" -Wl,--no-whole-archive libet_kernels.a -let_runtime -Wl,-rpath,'$ORIGIN'
done
rm "$out/consumer_twice_unbuilt"

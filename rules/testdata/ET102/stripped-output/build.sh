#!/usr/bin/env bash
# A Release link strips its output (-s, ExecuTorch's Release flags): the
# output's initializers are unnamed and no map is written, so which archive
# members were extracted is predicted from the line; etlink says so. nm -D
# and readelf still show DT_NEEDED and the dynamic symbols.
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
kernels_fixture
run g++ -s -o consumer_stripped main.o -L. libet_kernels.a -let_runtime -Wl,-rpath,'$ORIGIN'

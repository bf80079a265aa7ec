#!/usr/bin/env bash
# A kernel archive whose registration member only holds a static
# initializer: not extracted when the archive is linked plainly, extracted
# under --whole-archive (g++, ar, the system linker).
set -euo pipefail
out=$1 src=$(cd ../.. && pwd)
source ../../link.sh
kernels_fixture
run g++ -o consumer_plain main.o -L. libet_kernels.a -let_runtime -Wl,-rpath,'$ORIGIN'
run g++ -o consumer_whole main.o -L. -Wl,--whole-archive libet_kernels.a -Wl,--no-whole-archive -let_runtime -Wl,-rpath,'$ORIGIN'

#!/usr/bin/env bash
# A registration made by a guarded template static (a COMDAT group), at -O2
# and -O0 (GCC sets the guard through a register there): the archive member
# that instantiates it is not extracted in any program; consumer_uses*
# instantiate it themselves, so they register (their runs print "foo");
# consumer_plain* do not (their runs print nothing). g++, ar and the system
# linker.
set -euo pipefail
out=$1 here=$(pwd)
source ../../link.sh
for opt in O2 O0; do
  for f in foo_plugin registry main_uses main_plain; do
    run g++ -$opt -c "$here/$f.cc" -o ${f}_$opt.o
  done
  run ar rcs libplugins_$opt.a foo_plugin_$opt.o
  run g++ -o consumer_uses_$opt main_uses_$opt.o registry_$opt.o libplugins_$opt.a
  run g++ -o consumer_plain_$opt main_plain_$opt.o registry_$opt.o libplugins_$opt.a
done

#!/usr/bin/env bash
# ET104's whole-and-shared build: consumer_carried links the kernel archive
# plainly and loads libet_kernels.so, which carries the same unit.
exec bash ../../ET104/whole-and-shared/build.sh "$@"

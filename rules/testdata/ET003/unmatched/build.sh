#!/usr/bin/env bash
# ET102's archive-member build: a kernel archive whose registration member
# calls executorch::runtime::register_kernels.
exec bash ../../ET102/archive-member/build.sh "$@"

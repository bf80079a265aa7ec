#!/usr/bin/env bash
# The whole test suite: every package's tests under the race detector (in
# CI, CI=true, a test whose toolchain is missing fails instead of skipping),
# the field tests in a process of their own, then every fuzz target for
# FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")"
# The field tests (cmd/etlink TestField*) run etlink in the test process on
# a gigabyte of Debian's packages: under the race detector they would take
# most of the run, and their memory would become the peak RSS every later
# child of the test process reports (Linux carries a parent's RSS into a
# vforked child's high-water mark), which the hostile-input test bounds.
go test -race -count=1 -timeout 60m -skip '^TestField' ./... "$@"
go test -count=1 -timeout 30m -run '^TestField' ./cmd/etlink "$@"
./fuzz.sh

#!/usr/bin/env bash
# The whole test suite: every package's tests under the race detector (in
# CI, CI=true, a test whose toolchain is missing fails instead of skipping),
# then every fuzz target for FUZZTIME (default 10s) each.
set -euo pipefail
cd "$(dirname "$0")"
go test -race -count=1 -timeout 60m ./... "$@"
./fuzz.sh

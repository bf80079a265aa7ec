#!/usr/bin/env bash
# The whole test suite. In CI (CI=true) a test whose toolchain is missing
# fails instead of skipping.
set -euo pipefail
cd "$(dirname "$0")"
go test -count=1 ./... "$@"

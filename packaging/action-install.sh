#!/usr/bin/env bash
# action.yml's install step: puts etlink on the job's PATH ($GITHUB_PATH;
# ETLINK_BIN, default $RUNNER_TEMP/etlink-bin, holds it), from
#   ETLINK_WHEEL_DIR  a directory of etlink's wheels: pip installs the one for
#                     this machine into a venv of its own, no package index;
#   ETLINK_VERSION    a Go module version: go install;
#   neither           the source in ETLINK_SOURCE (the action's checkout).
set -euo pipefail
bin=${ETLINK_BIN:-${RUNNER_TEMP:-/tmp}/etlink-bin}
mkdir -p "$bin"
if [ -n "${ETLINK_WHEEL_DIR:-}" ]; then
  # Only the etlink command goes on PATH, not the venv's python and pip.
  python3 -m venv "$bin/venv"
  "$bin/venv/bin/pip" install --quiet --no-index --find-links "$ETLINK_WHEEL_DIR" etlink
  ln -sf "$bin/venv/bin/etlink" "$bin/etlink"
elif [ -n "${ETLINK_VERSION:-}" ]; then
  CGO_ENABLED=0 GOBIN=$bin go install -trimpath "github.com/etlink/etlink/cmd/etlink@$ETLINK_VERSION"
else
  (cd "${ETLINK_SOURCE:?}" && CGO_ENABLED=0 go build -trimpath -o "$bin/etlink" ./cmd/etlink)
fi
echo "$bin" >>"${GITHUB_PATH:-/dev/null}"
"$bin/etlink" version

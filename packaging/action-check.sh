#!/usr/bin/env bash
# action.yml's check step: etlink check on the wheels ETLINK_WHEELS names
# (shell globs), with ETLINK_WITH as the peer: the SARIF report into
# ETLINK_SARIF (every finding, whatever its severity), then annotations on
# the run (--format github), whose exit status, by ETLINK_FAIL_ON, is the
# step's. An unreadable wheel (exit 2) fails the step either way.
set -euo pipefail
shopt -s nullglob
read -ra patterns <<<"${ETLINK_WHEELS:?}"
wheels=()
for pattern in "${patterns[@]}"; do
  matched=($pattern)
  if [ ${#matched[@]} = 0 ]; then
    echo "::error::etlink: no file matches $pattern"
    exit 2
  fi
  wheels+=("${matched[@]}")
done
args=("${wheels[@]}")
if [ -n "${ETLINK_WITH:-}" ]; then
  args+=(--with "$ETLINK_WITH")
fi

sarif=0
etlink check "${args[@]}" --format sarif --fail-on none -q >"${ETLINK_SARIF:-etlink.sarif}" || sarif=$?
status=0
etlink check "${args[@]}" --format github --fail-on "${ETLINK_FAIL_ON:-warning}" || status=$?
if [ "$sarif" != 0 ]; then
  exit "$sarif"
fi
exit "$status"

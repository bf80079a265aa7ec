#!/usr/bin/env bash
# bench/run.sh: etlink against the binutils pipelines that answer the same
# question, on the same files, in one run. Each command runs once to warm the
# page cache, then 5 times under /usr/bin/time -v; the script prints the
# median wall time, the median peak RSS and the ratios.
#
# Needs: Go, binutils, patchelf, g++, Debian's python3-torch and the
# libraries testdata/e2e/build-wheel.sh grafts (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/etlink" ./cmd/etlink
bash testdata/e2e/build-wheel.sh "$work/wheel" >/dev/null

# median FILE: the middle value of a column of numbers.
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# measure NAME CMD...: warm-up, then $runs timed runs; appends
# "NAME|median wall seconds|median peak RSS KB" to results.
measure() {
	local name=$1
	shift
	"$@" >/dev/null 2>&1 || true
	: >"$work/wall"
	: >"$work/rss"
	local i
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -v -o "$work/time" "$@" >/dev/null 2>&1 || true
		awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (j = 1; j <= n; j++) s = s * 60 + p[j]; print s}' "$work/time" >>"$work/wall"
		awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time" >>"$work/rss"
	done
	echo "$name|$(median "$work/wall")|$(median "$work/rss")" >>"$work/results"
}

measure "etlink conflicts --with torch" "$work/etlink" conflicts "$work/wheel" --with torch --format json -q --fail-on none
measure "nm -D --defined-only + ldd + sort + comm" bash testdata/e2e/oracle.sh "$work/wheel"

closure=$("$work/etlink" conflicts "$work/wheel" --with torch --fail-on none 2>&1 >/dev/null | sed -n 's/.*, \([0-9]*\) in its load closure.*/\1/p')
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -m),$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
echo "files: the wheel tree of testdata/e2e/build-wheel.sh and Debian's torch with its load closure ($closure objects)"
echo "median of $runs runs after a warm-up"
awk -F'|' '{printf "%-45s %8.3f s %8.1f MB\n", $1, $2, $3 / 1024; w[NR] = $2}
	END {if (w[1] > 0) printf "ratio nm pipeline / etlink: %.1fx\n", w[2] / w[1]}' "$work/results"

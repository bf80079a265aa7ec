#!/usr/bin/env bash
# testdata/executorch/table.sh ROOT ETLINK...: etlink's verdicts on a real
# ExecuTorch build against what the built programs do, as the markdown table
# of docs/executorch.md. Runs outside CI (the build takes a working session
# and its sources come from mirrors; see docs/executorch.md for what was
# built). ROOT holds, as built there:
#   build-pr-shared, build-pr-static      ExecuTorch at #21610, EXECUTORCH_BUILD_SHARED ON/OFF
#   stage-pr-shared                       cmake --install of build-pr-shared
#   src-pr/executorch, src-parent/executorch   the sources at #21610 and its parent
#   consumers/build-VARIANT-pr-*          small consumers (plain, retained, target,
#                                         config, kernels_shared, static_core, static_whole)
# Each ETLINK is a binary (the current one and earlier ones, for before and
# after); the truth is each program's own run: its exit status, where it
# aborts (LD_DEBUG=bindings shows both prim-ops registrations binding to one
# register_kernels), and the backends and kernels a consumer lists.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: table.sh ROOT ETLINK..." >&2; exit 2; }
root=$(cd "$1" && pwd); shift
count() { # count ETLINK ARGS...: "E errors, W warnings" (rules at warning or above, by rule)
	local bin=$1; shift
	"$bin" "$@" --format json --fail-on none 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
c = {}
for f in r["findings"]:
    if f["severity"] in ("error", "warning"):
        k = f["rule"] + " " + f["severity"]
        c[k] = c.get(k, 0) + 1
print(", ".join("%d %s" % (v, k) for k, v in sorted(c.items())) or "none")'
}
runner() { # the truth of an executor_runner: exit status, and whether register_kernels aborts before main
	local b=$1 st n
	st=$(cd "$b" && { ./executor_runner >/dev/null 2>&1; echo $?; } 2>/dev/null)
	n=$(cd "$b" && { LD_DEBUG=bindings ./executor_runner 2>&1 || true; } 2>/dev/null | grep -c "to .*libexecutorch.so.1 \[0\]: normal symbol .*register_kernels" || true)
	if [ "$st" = 134 ] && [ "$n" -ge 2 ]; then
		echo "aborts before main: prim ops registered twice into libexecutorch.so.1's register_kernels"
	elif [ "$st" = 134 ]; then
		echo "aborts in main (no model given), registrations once"
	else
		echo "exit $st"
	fi
}
consumer() { # what a consumer program lists
	local b=$1 p
	p=$(ls "$b" | grep -v -E '\.|CMakeFiles|build|rules' | head -1)
	"$b/$p" 2>&1 | awk '/registered backends/ {b=$3} /registered kernels/ {k=$3} END {printf "backends %s, kernels %s", b, k}'
}
printf '| input | command | truth |'
for bin in "$@"; do printf ' %s |' "$(basename "$bin")"; done
printf '\n|---|---|---|'
for _ in "$@"; do printf -- '---|'; done
printf '\n'
row() { # row INPUT COMMAND TRUTH ETLINK-ARGS...
	local input=$1 cmd=$2 truth=$3; shift 3
	printf '| %s | `%s` | %s |' "$input" "$cmd" "$truth"
	for bin in "${bins[@]}"; do printf ' %s |' "$(cd "$root" && count "$bin" "$@")"; done
	printf '\n'
}
bins=("$@")
t=$(runner "$root/build-pr-shared")
row "build-pr-shared (File API)" "retention build-pr-shared" "$t" retention build-pr-shared
row "build-pr-shared" "retention build-pr-shared/build.ninja" "$t" retention build-pr-shared/build.ninja
row "build-pr-shared" "lint build-pr-shared" "$t" lint build-pr-shared
t=$(runner "$root/build-pr-static")
row "build-pr-static (File API)" "retention build-pr-static" "$t" retention build-pr-static
row "stage-pr-shared (cmake --install)" "check stage-pr-shared" "every library found (ldd)" check stage-pr-shared
row "stage-pr-shared" "check \$PWD/stage-pr-shared" "every library found (ldd)" check "$root/stage-pr-shared"
row "stage-pr-shared" "conflicts stage-pr-shared --with torch" "cpuinfo bundled in libexecutorch_threadpool.so" conflicts stage-pr-shared --with torch
row "src-pr/executorch" "lint src-pr/executorch" "extensions strip libpython (strip_python_lib)" lint src-pr/executorch
row "src-parent/executorch" "lint src-parent/executorch" "6 pybind11_add_module(SHARED) link libpython" lint src-parent/executorch
for b in "$root"/consumers/build-*; do
	[ -d "$b" ] || continue
	v=$(basename "$b")
	row "consumers/$v" "retention consumers/$v" "$(consumer "$b")" retention "consumers/$v"
done

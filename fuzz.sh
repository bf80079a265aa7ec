#!/usr/bin/env bash
# Runs every go test -fuzz target of the module for a bounded time each
# (FUZZTIME, default 10s). Minimizing (of a crasher, and of every input that
# finds new coverage) is bounded by count, not time: a minimization still
# running when the fuzzing time ends makes the engine fail with "context
# deadline exceeded" and no input, which on a loaded 2-core machine a 5 s
# bound made common. A crasher go test finds is written under the
# package's testdata/fuzz/FuzzName/ and fails the run: commit it, and it stays
# a regression test that plain `go test` replays.
set -euo pipefail
cd "$(dirname "$0")"
fuzztime=${FUZZTIME:-10s}
status=0
while IFS= read -r line; do
	file=${line%%:*}
	name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"${line#*:}")
	pkg=./$(dirname "$file")
	echo "fuzz: $pkg $name ($fuzztime)"
	for try in 1 2 3; do
		if go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime 100x >/tmp/fuzz.$$.log 2>&1; then
			break
		fi
		# A crasher is always a failure. The engine's own "context deadline
		# exceeded" with no input written (a worker slow to answer at the
		# end, on a loaded machine) is retried, twice.
		if grep -q "Failing input written" /tmp/fuzz.$$.log || [ "$try" = 3 ] || ! grep -q "context deadline exceeded" /tmp/fuzz.$$.log; then
			cat /tmp/fuzz.$$.log
			status=1
			break
		fi
		echo "fuzz: $name: the fuzzing engine timed out without a failing input; retrying"
	done
done < <(grep -rh --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' --with-filename . | sed 's|^\./||' | sort)
rm -f /tmp/fuzz.$$.log
exit $status

#!/usr/bin/env bash
# bench/run.sh: etlink against the binutils pipelines that answer the same
# question, and against the floor (bench/floor: only reading the symbol
# sections), on the same files, in one run. Each command runs once to warm the
# page cache, then $RUNS times (default 7) under bench/runstat; the script
# prints the median wall time, CPU time (user + system) and peak RSS of each,
# and the ratios. Then conflicts with its cache cold, warm, full and off;
# etlink scan and retention on generated links of growing size; and LLVM's
# links (PART=conflicts, cache, scaling or llvm runs one part). See
# bench/README.md for what each line measures.
#
# Needs: Go, binutils, patchelf, g++, Debian's python3-torch and the
# libraries testdata/e2e/build-wheel.sh grafts (see .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
export LC_ALL=C
runs=${RUNS:-7}
torch=${TORCH_DIR:-/usr/lib/python3/dist-packages/torch}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# etlink built as README.md installs it (static, CGO_ENABLED=0).
CGO_ENABLED=0 go build -o "$work/etlink" ./cmd/etlink
go build -o "$work/floor" ./bench/floor
go build -o "$work/runstat" ./bench/runstat
# median FILE: the middle value of a column of numbers.
median() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# spread FILE: the lowest and highest value of the column, "lo-hi".
spread() { sort -n "$1" | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.3f-%.3f", lo, hi}'; }

# closure_files DIR OUT: the files every tool reads, as oracle.sh finds them:
# DIR's ELF files, torch's lib/*.so* (dangling links skipped) and extension
# modules, and what ldd resolves for all of them, each real file once.
closure_files() {
	local dir=$1 out=$2 f
	{
		find "$dir" -type f -print0 | while IFS= read -r -d '' f; do
			if head -c 4 "$f" | cmp -s - <(printf '\177ELF'); then echo "$f"; fi
		done
		find "$torch" \( -path "$torch/lib/*.so*" -o -name '*.cpython-*.so' -o -name '*.abi3.so' \) -print |
			while IFS= read -r f; do [[ -e $f ]] && echo "$f"; done
	} >"$out.roots"
	{
		cat "$out.roots"
		while IFS= read -r f; do
			{ ldd "$f" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// {print $3; next} $1 ~ /^\// {print $1}'
		done <"$out.roots"
	} | xargs -r readlink -f | sort -u >"$out"
}

# conflicts_bench: etlink conflicts against binutils and the floor.
conflicts_bench() {
	bash testdata/e2e/build-wheel.sh "$work/wheel" >/dev/null 2>&1

	# The interpreter etlink's --with torch settles on (python3 on PATH, then
	# /usr/bin/python3), named with --python in the second etlink line so that
	# line does not pay for the ones that cannot import torch.
	python=
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null && "$py" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' 2>/dev/null; then
			python=$(command -v "$py")
			break
		fi
	done
	[[ -n $python ]] || {
		echo "run.sh: no python3 finds torch" >&2
		exit 1
	}

	closure_files "$work/wheel" "$work/files"
	mapfile -t files <"$work/files"


	# The commands, each an array cmdK with its label in labels[K]. They run
	# interleaved (one run of each, $runs times) so that a change in the
	# machine's load shifts all of them alike, not one more than another.
	labels=()
	add() {
		local k=${#labels[@]}
		labels+=("$1")
		shift
		declare -g -a "cmd$k"
		local -n c="cmd$k"
		c=("$@")
	}

	add "etlink conflicts --with torch" "$work/etlink" conflicts "$work/wheel" --with torch --format json -q --fail-on none
	add "etlink conflicts --with torch --python PY" "$work/etlink" conflicts "$work/wheel" --with torch --python "$python" --format json -q --fail-on none
	# The script etlink runs, taken from pylocate's source so the two cannot drift.
	locate=$(sed -n '/^const script = `/,/`$/p' pylocate/pylocate.go | sed '1s/^const script = `//; $s/`$//')
	[[ $locate == *find_spec* ]] || {
		echo "run.sh: pylocate's script not found in pylocate/pylocate.go" >&2
		exit 1
	}
	add "  of which: PY locating torch" "$python" -c "$locate" torch
	add "etlink check --with torch --python PY" "$work/etlink" check "$work/wheel" --with torch --python "$python" --format json -q --fail-on none
	add "nm -D --defined-only + ldd + sort + comm" bash testdata/e2e/oracle.sh "$work/wheel"
	add "nm -D --defined-only, one nm over the files" nm -D --defined-only "${files[@]}"
	add "readelf --dyn-syms -W (same files)" readelf --dyn-syms -W "${files[@]}"
	add "floor: read the symbol sections" "$work/floor" -list "$work/files"
	# What starting a process costs by itself: subtracted from every wall
	# time above, so that ratios compare the commands' own time.
	add "timer: runstat true" true

	# Wall time, CPU time (user + system) and peak RSS from bench/runstat
	# (the child's rusage, in microseconds: /usr/bin/time prints CPU time in
	# centiseconds, a fifth of a conflicts run), wall less the timer line's
	# median.
	for k in "${!labels[@]}"; do
		declare -n c="cmd$k"
		"${c[@]}" >/dev/null 2>&1 || true # warm-up
		: >"$work/wall$k"
		: >"$work/cpu$k"
		: >"$work/rss$k"
	done
	for ((i = 0; i < runs; i++)); do
		for k in "${!labels[@]}"; do
			declare -n c="cmd$k"
			"$work/runstat" -o "$work/time" "${c[@]}" >/dev/null 2>&1 || true
			read -r wall cpu rss <"$work/time"
			echo "$wall" >>"$work/wall$k"
			echo "$cpu" >>"$work/cpu$k"
			echo "$rss" >>"$work/rss$k"
		done
	done
	for k in "${!labels[@]}"; do
		echo "${labels[$k]}|$(median "$work/wall$k")|$(median "$work/cpu$k")|$(median "$work/rss$k")|$(spread "$work/wall$k")|$(spread "$work/cpu$k")" >>"$work/results"
	done

	closure=$("$work/etlink" conflicts "$work/wheel" --with torch --python "$python" --fail-on none 2>&1 >/dev/null | sed -n 's/.*, \([0-9]*\) in its load closure; wheel: \([0-9]*\) objects.*/\1 + \2/p')
	symbytes=$("$work/floor" -list "$work/files" | sed -n 's/.* bytes \([0-9]*\)$/\1/p')
	echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(uname -m),$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), load average$(cut -d' ' -f1-3 /proc/loadavg | sed 's/^/ /')"
	echo "files: the wheel tree of testdata/e2e/build-wheel.sh and Debian's torch with its load closure:"
	echo "       ${#files[@]} files by ldd (etlink: torch closure + wheel = $closure objects), $(awk -v b="$symbytes" 'BEGIN {printf "%.1f", b / 1048576}') MB of .dynsym/.dynstr/.gnu.version*"
	echo "PY: $python"
	echo "median of $runs runs, interleaved, after a warm-up"
	printf '%-45s %8s %8s %9s  %-13s %s\n' "" wall cpu "peak RSS" "wall spread" "cpu spread"
	awk -F'|' -v symbytes="$symbytes" '
		{label[NR] = $1; raw[NR] = $2; cpu[NR] = $3; rss[NR] = $4; ws[NR] = $5; cs[NR] = $6}
		END {
			t = raw[NR] # the timer line, last
			for (i = 1; i <= NR; i++) {
				wall[i] = i < NR ? raw[i] - t : raw[i]
				printf "%-45s %7.3fs %7.3fs %7.1f MB  %-13s %s\n", label[i], wall[i], cpu[i], rss[i] / 1024, ws[i], cs[i]
			}
			printf "(wall times are net of the timer line; it is shown as measured)\n"
			# lines: 1 conflicts, 2 conflicts --python, 3 locating, 4 check,
			# 5 nm pipeline, 6 one nm, 7 readelf, 8 floor, 9 timer
			et = wall[2]; nm = wall[5]; one = wall[6]; fl = wall[8]
			printf "%-42s %10s %10s %10s\n", "ratio", "wall", "cpu", "peak RSS"
			if (et > 0) printf "%-42s %10.3f %10.3f %10.2f   (nm takes %.1fx / %.1fx)\n", "conflicts (--python) / one nm -D", et / one, cpu[2] / cpu[6], rss[2] / rss[6], one / et, cpu[6] / cpu[2]
			if (et > 0) printf "%-42s %10.3f %10.3f %10.2f   (%.1fx / %.1fx)\n", "conflicts (--python) / nm+ldd pipeline", et / nm, cpu[2] / cpu[5], rss[2] / rss[5], nm / et, cpu[5] / cpu[2]
			if (et > 0) printf "%-42s %10.3f %10.3f %10.2f\n", "check / conflicts (both --python)", wall[4] / et, cpu[4] / cpu[2], rss[4] / rss[2]
			if (wall[1] > 0) printf "%-42s %10.3f %10.3f\n", "conflicts (PATH python3) / one nm -D", wall[1] / one, cpu[1] / cpu[6]
			if (fl > 0) printf "%-42s %10.1f %10.1f\n", "conflicts (--python) / floor", et / fl, cpu[2] / cpu[8]
			if (fl > 0) printf "%-42s %10.1f\n", "(conflicts - PY locating torch) / floor", (et - wall[3]) / fl
			if (symbytes > 0) printf "etlink peak RSS / symbol sections: %.2f (%.1f MB / %.1f MB)\n", rss[2] * 1024 / symbytes, rss[2] / 1024, symbytes / 1048576
		}' "$work/results"
}

# scaling_bench: etlink scan and etlink retention on a generated large link
# (bench/genbuild: objects of FUNCS functions, each in its own section, every
# 50th object a registering one, put in an archive the link never extracts
# from), at each of SCALE_SIZES objects; the largest has a ~100 MB bfd map.
# Cost per object and per MB of map should stay flat as the build grows.
scaling_bench() {
	sizes=(${SCALE_SIZES:-500 1000 2000})
	funcs=${FUNCS:-330}
	max=${sizes[${#sizes[@]} - 1]}
	big=$work/big
	go run ./bench/genbuild -n "$max" -f "$funcs" -o "$big/src"
	find "$big/src" -name '*.s' -print0 | xargs -0 -P "$(nproc)" -n 50 sh -c 'for f; do as -o "${f%.s}.o" "$f" || exit 1; done' sh
	echo
	echo "scaling: $funcs functions an object, every 50th object registering (in an archive), median of ${SCALE_RUNS:-3} runs"
	printf '%8s %9s %10s %10s %12s %10s %14s %14s\n' objects "map MB" "scan" "retention" "ret. RSS" "RSS/map" "scan/object" "retention/MB"
	for n in "${sizes[@]}"; do
		d=$big/n$n
		mkdir -p "$d"
		objs=() regs=()
		for ((k = 0; k < n; k++)); do
			if ((k % 50 == 0)); then regs+=("$big/src/o$k.o"); else objs+=("$big/src/o$k.o"); fi
		done
		ar rcs "$d/libregs.a" "${regs[@]}"
		link=(g++ -shared -o "$d/libbig.so" "${objs[@]}" "$big/src/reg.o" -L"$d" -lregs -Wl,-Map,"$d/big.map")
		"${link[@]}"
		echo "${link[*]}" >"$d/link.log"
		mapmb=$(awk -v b="$(stat -c %s "$d/big.map")" 'BEGIN {printf "%.1f", b / 1048576}')
		for what in scan retention; do
			: >"$work/s_wall"
			: >"$work/s_rss"
			for ((i = 0; i < ${SCALE_RUNS:-3}; i++)); do
				if [[ $what == scan ]]; then
					"$work/runstat" -o "$work/time" "$work/etlink" scan "${objs[@]}" "$d/libregs.a" --format json >/dev/null 2>&1 || true
				else
					"$work/runstat" -o "$work/time" "$work/etlink" retention "$d/link.log" "$d/big.map" --format json --fail-on none >/dev/null 2>&1 || true
				fi
				read -r wall cpu rss <"$work/time"
				echo "$wall" >>"$work/s_wall"
				echo "$rss" >>"$work/s_rss"
			done
			declare "${what}_wall=$(median "$work/s_wall")" "${what}_rss=$(median "$work/s_rss")"
		done
		awk -v n="$n" -v mb="$mapmb" -v s="$scan_wall" -v r="$retention_wall" -v rss="$retention_rss" 'BEGIN {
			printf "%8d %9s %9.3fs %9.3fs %9.1f MB %10.2f %11.1f us %11.1f ms\n", n, mb, s, r, rss / 1024, rss / 1024 / mb, s / n * 1e6, r / mb * 1e3 }'
		rm -f "$d/libbig.so"
	done
}

# llvm_bench: retention and why on consumers of Debian 12's LLVM 14 (the
# registration matrix's cl::opt unit): libLLVM-14.so (tens of MB of code,
# ~600 static initializers) kept and dropped, the unit's archive lost and
# kept, and a program linking libLLVMCore.a and libLLVMSupport.a. Cold:
# every run with an empty etlink cache. Medians of $runs, interleaved.
llvm_bench() {
	local d=$work/llvm src=testdata/registration/project
	mkdir -p "$d"
	local inc=(-isystem /usr/lib/llvm-14/include)
	g++ -O2 -fPIC "${inc[@]}" -c "$src/units/llvm_opts.cc" -o "$d/llvm_opts.o"
	g++ -O2 "${inc[@]}" -c "$src/listers/llvm_list.cc" -o "$d/llvm_list.o"
	g++ -O2 "${inc[@]}" -c "$src/field/llvm_static.cc" -o "$d/llvm_static.o"
	ar rcs "$d/libopts.a" "$d/llvm_opts.o"
	g++ -shared -o "$d/libopts.so" "$d/llvm_opts.o" -L/usr/lib/llvm-14/lib -lLLVM-14
	local static
	read -ra static <<<"$(llvm-config-14 --link-static --libs core support) $(llvm-config-14 --link-static --system-libs)"
	{
		echo "g++ -o $d/lost-shared $d/llvm_list.o -L$d -lopts -L/usr/lib/llvm-14/lib -lLLVM-14 -Wl,-rpath,$d:/usr/lib/llvm-14/lib -Wl,-Map,$d/lost-shared.map"
		echo "g++ -o $d/kept-shared $d/llvm_list.o -L$d -Wl,--no-as-needed -lopts -Wl,--as-needed -L/usr/lib/llvm-14/lib -lLLVM-14 -Wl,-rpath,$d:/usr/lib/llvm-14/lib -Wl,-Map,$d/kept-shared.map"
		echo "g++ -o $d/lost-archive $d/llvm_list.o $d/libopts.a -L/usr/lib/llvm-14/lib -lLLVM-14 -Wl,-rpath,/usr/lib/llvm-14/lib -Wl,-Map,$d/lost-archive.map"
		echo "g++ -o $d/kept-archive $d/llvm_list.o -Wl,--whole-archive $d/libopts.a -Wl,--no-whole-archive -L/usr/lib/llvm-14/lib -lLLVM-14 -Wl,-rpath,/usr/lib/llvm-14/lib -Wl,-Map,$d/kept-archive.map"
		echo "g++ -o $d/static $d/llvm_static.o -L/usr/lib/llvm-14/lib ${static[*]} -Wl,-Map,$d/static.map"
	} >"$d/build.log"
	while read -r -a cmd; do "${cmd[@]}"; done <"$d/build.log"
	local cache=$work/llvm-cache
	echo
	echo "llvm: retention and why on consumers of libLLVM-14.so and libLLVM*.a, cold (empty cache each run), median of $runs"
	printf '%-22s %9s %9s %10s\n' command wall cpu "peak RSS"
	local labels=(retention why) k i
	for k in 0 1; do : >"$work/l${k}_wall" && : >"$work/l${k}_cpu" && : >"$work/l${k}_rss"; done
	for ((i = 0; i < runs; i++)); do
		for k in 0 1; do
			rm -rf "$cache"
			if ((k == 0)); then
				ETLINK_CACHE_DIR=$cache "$work/runstat" -o "$work/time" "$work/etlink" retention "$d/build.log" --format json --fail-on none >/dev/null 2>&1 || true
			else
				ETLINK_CACHE_DIR=$cache "$work/runstat" -o "$work/time" "$work/etlink" why llvm_opts "$d/build.log" >/dev/null 2>&1 || true
			fi
			read -r wall cpu rss <"$work/time"
			echo "$wall" >>"$work/l${k}_wall"
			echo "$cpu" >>"$work/l${k}_cpu"
			echo "$rss" >>"$work/l${k}_rss"
		done
	done
	for k in 0 1; do
		awk -v l="${labels[k]}" -v w="$(median "$work/l${k}_wall")" -v c="$(median "$work/l${k}_cpu")" -v r="$(median "$work/l${k}_rss")" \
			'BEGIN {printf "%-22s %8.3fs %8.3fs %7.1f MB\n", l, w, c, r / 1024}'
	done
}

# cache_bench: `etlink conflicts` and `etlink check` (WHEEL --with torch,
# text, as a user runs them) on two wheel shapes, grafted (testdata/e2e:
# XNNPACK, pthreadpool and cpuinfo grafted in) and bundled (an extension
# linked -static-libstdc++: thousands of conflicts with torch), with etlink's
# cache in four states, against one `nm -D --defined-only` over the same
# closure; $runs rounds, every command once a round (interleaved): cold (an
# empty cache every run: the library index and the interpreter's answer
# learnt anew), warm (a private cache this input filled), full (a cache
# first filled to its cap by other inputs, then this input once) and off
# (ETLINK_CACHE_DIR=off). CACHE_BINS names the etlink binaries to compare
# (default: the one built), each with caches of its own. A command's output
# must be the same in every state, byte for byte, and the runs that wrote
# the index are counted.
cache_bench() {
	local d=$work/cache D=/usr/lib/python3/dist-packages
	local bins=(${CACHE_BINS:-$work/etlink}) modes=(off cold warm full) shapes=(grafted bundled) b m p j i k s c
	mkdir -p "$d/fill" "$d/bundled/slibpkg"
	bash testdata/e2e/build-wheel.sh "$d/grafted" >/dev/null 2>&1
	g++ $(python3-config --includes) -O2 -fPIC -shared testdata/field/mustflag/src/slib.cc \
		-o "$d/bundled/slibpkg/_slib$(python3-config --extension-suffix)" -static-libstdc++ -static-libgcc
	for s in "${shapes[@]}"; do closure_files "$d/$s" "$d/$s.files"; done
	# The other inputs: twelve peers, each needing 25 libraries of 4,000
	# symbols (16 KB of index a library, 4.8 MB together: past the cap,
	# elfobj.indexMax), and what some of dist-packages needs. Small
	# entries, as a cache shared by many projects holds: the file fills the
	# cap to within a few KB.
	awk 'BEGIN {for (i = 0; i < 4000; i++) printf "int fill_v%d = %d;\n", i, i}' >"$d/fill.c"
	gcc -shared -fPIC -o "$d/libfill.so" "$d/fill.c"
	for ((p = 0; p < 12; p++)); do
		local libs=()
		for ((j = 0; j < 25; j++)); do
			cp "$d/libfill.so" "$d/fill/libfill$p-$j.so"
			patchelf --set-soname "libfill$p-$j.so" "$d/fill/libfill$p-$j.so"
			libs+=("-l:libfill$p-$j.so")
		done
		echo "int fill_peer$p;" >"$d/peer$p.c"
		gcc -shared -fPIC -o "$d/fill/peer$p.so" "$d/peer$p.c" -L"$d/fill" -Wl,--no-as-needed "${libs[@]}" -Wl,-rpath,'$ORIGIN'
	done
	sleep 2 # older than cachedir.Racy: the index learns them
	run() { # run BIN CMD MODE SHAPE OUT [runstat args]: one etlink run, its output to OUT
		local bin=$1 cmd=$2 mode=$3 shape=$4 out=$5 dir
		shift 5
		case $mode in
		off) dir=off ;;
		*) dir=$d/$(basename "$bin")-$mode ;;
		esac
		[[ $mode == cold ]] && rm -rf "$dir"
		ETLINK_CACHE_DIR=$dir "$@" "$bin" "$cmd" "$d/$shape" --with torch --fail-on none >"$out" 2>/dev/null || true
	}
	for b in "${bins[@]}"; do
		local full=$d/$(basename "$b")-full
		for p in vtkmodules rdkit PyQt5 scipy; do
			[[ -d $D/$p ]] && { ETLINK_CACHE_DIR=$full "$b" conflicts "$D/$p" -q --fail-on none >/dev/null 2>&1 || true; }
		done
		for ((p = 0; p < 12; p++)); do
			ETLINK_CACHE_DIR=$full "$b" conflicts "$d/fill/peer$p.so" -q --fail-on none >/dev/null 2>&1 || true
		done
		echo "$(basename "$b"): full cache filled to $(stat -c %s "$full/symindex") bytes by other inputs"
		for s in "${shapes[@]}"; do
			for m in "${modes[@]}"; do
				for c in conflicts check; do
					run "$b" "$c" "$m" "$s" /dev/null # warm-up; warm and full learn this input
				done
			done
		done
	done
	# Every timed line is a key: nm-SHAPE, or BIN-CMD-MODE-SHAPE.
	local keys=()
	for s in "${shapes[@]}"; do
		keys+=("nm-$s")
		for b in "${bins[@]}"; do
			for c in conflicts check; do
				for m in "${modes[@]}"; do keys+=("$(basename "$b")-$c-$m-$s"); done
			done
		done
	done
	for k in "${keys[@]}"; do : >"$d/$k.wall" && : >"$d/$k.cpu" && : >"$d/$k.rss" && echo 0 >"$d/$k.writes"; done
	local differ=0
	for ((i = 0; i < runs; i++)); do
		for s in "${shapes[@]}"; do
			mapfile -t files <"$d/$s.files"
			"$work/runstat" -o "$work/time" nm -D --defined-only "${files[@]}" >/dev/null 2>&1 || true
			read -r wall cpu rss <"$work/time"
			echo "$wall" >>"$d/nm-$s.wall" && echo "$cpu" >>"$d/nm-$s.cpu" && echo "$rss" >>"$d/nm-$s.rss"
			for b in "${bins[@]}"; do
				for c in conflicts check; do
					for m in "${modes[@]}"; do
						k=$d/$(basename "$b")-$c-$m-$s
						local index=$d/$(basename "$b")-$m/symindex before=
						[[ -f $index ]] && before=$(stat -c %i.%Y.%y "$index")
						run "$b" "$c" "$m" "$s" "$k.out" "$work/runstat" -o "$work/time"
						read -r wall cpu rss <"$work/time"
						echo "$wall" >>"$k.wall" && echo "$cpu" >>"$k.cpu" && echo "$rss" >>"$k.rss"
						if [[ $m != off && $m != cold && $(stat -c %i.%Y.%y "$index" 2>/dev/null) != "$before" ]]; then
							echo $(($(cat "$k.writes") + 1)) >"$k.writes"
						fi
						if ! cmp -s "$k.out" "$d/$(basename "$b")-$c-off-$s.out" && [[ -s $d/$(basename "$b")-$c-off-$s.out ]]; then
							echo "run.sh: $(basename "$b") $c $m $s: the output differs from the off run's" >&2
							differ=1
						fi
					done
				done
			done
		done
	done
	echo
	echo "cache: etlink conflicts and check DIR --with torch (text), median of $runs interleaved rounds; ratios: one nm over the closure / etlink"
	for s in "${shapes[@]}"; do
		local nw=$(median "$d/nm-$s.wall") nc=$(median "$d/nm-$s.cpu")
		printf '%s: %s files; one nm -D --defined-only %.3fs wall, %.3fs cpu; %s conflicts\n' "$s" "$(wc -l <"$d/$s.files")" "$nw" "$nc" \
			"$(ETLINK_CACHE_DIR=off "${bins[0]}" conflicts "$d/$s" --with torch --format json --fail-on none 2>/dev/null | grep -c '"rule": *"ET30')"
		printf '  %-12s %-5s %9s %9s %9s %9s %8s %8s  %-13s %s\n' binary cache wall cpu "nm/wall" "nm/cpu" check/w check/rss "index writes" ""
		for b in "${bins[@]}"; do
			for m in "${modes[@]}"; do
				k=$d/$(basename "$b")-conflicts-$m-$s
				local q=$d/$(basename "$b")-check-$m-$s writes
				writes=$(cat "$k.writes")/$(cat "$q.writes")
				[[ $m == cold ]] && writes="(every run)"
				[[ $m == off ]] && writes=-
				awk -v b="$(basename "$b")" -v m="$m" -v w="$(median "$k.wall")" -v c="$(median "$k.cpu")" -v nw="$nw" -v nc="$nc" \
					-v qw="$(median "$q.wall")" -v kr="$(median "$k.rss")" -v qr="$(median "$q.rss")" -v wr="$writes" 'BEGIN {
					printf "  %-12s %-5s %8.3fs %8.3fs %8.1fx %8.1fx %8.2f %8.2f  %s\n", b, m, w, c, nw / w, nc / c, qw / w, qr / kr, wr }'
			done
		done
	done
	((differ == 0)) && echo "output: the same in every cache state, for every command, shape and binary"
	return $differ
}

# PART=conflicts, cache, scaling or llvm runs one part; all by default.
case ${PART:-all} in
conflicts) conflicts_bench ;;
cache) cache_bench ;;
scaling) scaling_bench ;;
llvm) llvm_bench ;;
all)
	conflicts_bench
	cache_bench
	echo
	scaling_bench
	llvm_bench
	;;
*)
	echo "run.sh: PART=$PART: want conflicts, cache, scaling, llvm or all" >&2
	exit 2
	;;
esac

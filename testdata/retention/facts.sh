#!/usr/bin/env bash
# testdata/retention/facts.sh: the ground truth of a fixture build, read from
# the produced binaries (and their link maps) only, never from the link lines.
#
#   facts.sh BUILDDIR
#
# BUILDDIR is a directory build.sh built. For every consumer (bin/consumer_*
# executables, lib/_portable_lib*.so and lib/ext_*.so modules, sorted by
# name) it prints one
# fact per line, "CONSUMER FACT VALUE...":
#
#   C KIND exe|module
#   C LINKER bfd|gold|lld|mold       from .note.gnu.gold-version / .comment
#   C NEEDED libX.so                  each DT_NEEDED, in order (readelf -dW)
#   C RUNPATH p | C RPATH p           DT_RUNPATH / DT_RPATH, if any
#   C LOADS libX.so                   each project library in the DT_NEEDED
#                                     closure (resolved in BUILDDIR/lib),
#                                     breadth-first: the load set
#   C BACKEND libet_backend_N.so loaded|absent
#                                     for every backend library in BUILDDIR/lib:
#                                     is it in the load set (its static
#                                     initializer runs) or not
#   C EXTENSION PyInit_X              the output exports a PyInit_ function
#   C MEMBER register_kernels.o present|absent
#                                     its static initializer
#                                     (_GLOBAL__sub_I_register_kernels*) is in
#                                     the output's .symtab (readelf -sW; what
#                                     nm shows)
#   C MEMBER op_add.o present|absent  et_op_add is defined in the output's
#                                     .symtab (mold 1.10 makes it LOCAL there)
#   C MAP_MEMBER register_kernels.o present|absent
#                                     the link map names
#                                     libet_kernels.a(register_kernels.o)
#   C DEFINES register_backend OBJ    each object of the load set whose dynamic
#                                     symbol table defines
#                                     executorch::runtime::register_backend
#                                     (.dynsym entries not UND: what
#                                     nm -D --defined-only lists)
#   C DEFINES registered_backends OBJ the same for the registry state
#   C REGISTRY_DEFINERS N             how many objects of the load set define
#                                     register_backend
#   C REGISTRY_CALL_BOUND LIB         LIB, a definer, calls its own copy directly
#                                     (objdump): its registrations land there
#   C RUN backends=N kernels=M        what the consumer prints when run
#                                     (LD_LIBRARY_PATH=BUILDDIR/lib; a module is
#                                     dlopened RTLD_LOCAL by bin/module_loader)
#   C RUN_BACKEND NAME                each backend name it prints
#   C RUN failed rc=N: MESSAGE        it did not run to completion
#   C RUN skipped: REASON             not runnable here (an aarch64 build with
#                                     no qemu-aarch64)
#
# A first line "# build linker=... arch=... generator=..." comes from
# BUILDDIR/.et-build. Exit status: 0, or 2 for a bad BUILDDIR.
set -euo pipefail
export LC_ALL=C

[ $# -eq 1 ] || { echo "usage: facts.sh BUILDDIR" >&2; exit 2; }
b=$(cd "$1" 2>/dev/null && pwd) || { echo "facts.sh: error: no directory $1" >&2; exit 2; }
[ -d "$b/bin" ] && [ -d "$b/lib" ] || { echo "facts.sh: error: $b has no bin/ and lib/; build it with build.sh first" >&2; exit 2; }

machine=$(readelf -hW "$b/lib/libet_runtime.so" | sed -n 's/^ *Machine: *//p')
case "$machine" in
  AArch64) arch=aarch64 ;;
  "Advanced Micro Devices X86-64") arch=x86_64 ;;
  *) echo "facts.sh: error: unexpected machine '$machine'" >&2; exit 2 ;;
esac

[ -f "$b/.et-build" ] && echo "# build $(cat "$b/.et-build")"

# How to run a binary of this build, or why not.
runner=() run_skip=""
host=$(uname -m)
if [ "$arch" != "$host" ]; then
  if [ "$arch" = aarch64 ] && command -v qemu-aarch64 >/dev/null; then
    runner=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
  else
    run_skip="$arch binary on $host, no qemu-$arch"
  fi
fi

# calls_own LIB: LIB's code calls its own register_backend directly (the
# static linker bound the call: -Bsymbolic, hidden), not through its PLT;
# objdump's disassembly is the oracle.
calls_own() {
  local od=objdump
  [ "$arch" = aarch64 ] && od=aarch64-linux-gnu-objdump
  # grep -c reads to the end: -q would quit early and, under pipefail,
  # objdump's SIGPIPE would read as "no call".
  [ "$("$od" -d --no-show-raw-insn "$1" | grep -Ec "(call|bl)[[:space:]]+[0-9a-f]+ <${REG_FN}>\$")" -gt 0 ]
}

# One readelf per file, cached: its output reduced by awk to tagged lines
#   L linker | N needed | RUNPATH path | RPATH path | D dynsym-defined name
#   S symtab-defined name
# (readelf, not nm: nm loads the LTO plugin on every call and is ~30x slower
# here; the symbols are the same.)
declare -A SCAN
scan() {
  [ -n "${SCAN[$1]+x}" ] && return
  SCAN[$1]=$(readelf -W -d -s -S -p .comment "$1" 2>/dev/null | awk '
    /^Symbol table .\.dynsym./ { tab = "D"; next }
    /^Symbol table .\.symtab./ { tab = "S"; next }
    /^Symbol table/ || /^Section Headers/ || /^String dump/ || /^Dynamic section/ { tab = "" }
    /\.note\.gnu\.gold-version/ { gold = 1 }
    /Linker: .*LLD/ { lld = 1 }
    /^  \[ *[0-9a-f]+\]  mold / { mold = 1 }
    /\(NEEDED\)/  { s = $0; sub(/.*\[/, "", s); sub(/\]$/, "", s); print "N " s }
    /\(RUNPATH\)/ { s = $0; sub(/.*\[/, "", s); sub(/\]$/, "", s); print "RUNPATH " s }
    /\(RPATH\)/   { s = $0; sub(/.*\[/, "", s); sub(/\]$/, "", s); print "RPATH " s }
    tab != "" && NF >= 8 && $1 ~ /^[0-9]+:$/ && $7 != "UND" { n = $8; sub(/@.*/, "", n); print tab " " n }
    END { print "L " (gold ? "gold" : lld ? "lld" : mold ? "mold" : "bfd") }')
}
TAGGED=()
tagged() {  # tagged FILE TAG: sets TAGGED to the values of TAG (no subshell)
  local line
  TAGGED=()
  while IFS= read -r line; do [[ $line == "$2 "* ]] && TAGGED+=("${line#"$2 "}"); done <<<"${SCAN[$1]}"
  return 0
}
has() {  # has FILE TAG VALUE
  [[ $'\n'${SCAN[$1]}$'\n' == *$'\n'"$2 $3"$'\n'* ]]
}

REG_FN='_ZN10executorch7runtime16register_backendERKNS0_7BackendE'
REG_STATE='_ZN10executorch7runtime8internal19registered_backendsE'

facts_for() {
  local f=$1 c kind
  c=${f##*/}; c=${c%.so}
  case "$f" in *.so) kind=module ;; *) kind=exe ;; esac
  echo "$c KIND $kind"
  scan "$f"
  local n t
  tagged "$f" L; echo "$c LINKER ${TAGGED[0]}"
  for t in NEEDED RUNPATH RPATH; do
    tagged "$f" "${t/NEEDED/N}"
    for n in "${TAGGED[@]+"${TAGGED[@]}"}"; do echo "$c $t $n"; done
  done

  # The load set: breadth-first DT_NEEDED closure over the project's libraries.
  local -a queue=("$f") loadset=()
  local cur seen=" "
  while [ ${#queue[@]} -gt 0 ]; do
    cur=${queue[0]}; queue=("${queue[@]:1}")
    scan "$cur"; tagged "$cur" N
    for n in "${TAGGED[@]+"${TAGGED[@]}"}"; do
      [ -f "$b/lib/$n" ] || continue
      [[ $seen == *" $n "* ]] && continue
      seen+="$n "; loadset+=("$n"); queue+=("$b/lib/$n")
    done
  done
  for n in "${loadset[@]+"${loadset[@]}"}"; do echo "$c LOADS $n"; done

  local lib bn
  for lib in "$b"/lib/libet_backend_*.so; do
    bn=${lib##*/}
    if [[ $seen == *" $bn "* ]]; then echo "$c BACKEND $bn loaded"; else echo "$c BACKEND $bn absent"; fi
  done

  tagged "$f" D
  for n in "${TAGGED[@]+"${TAGGED[@]}"}"; do [[ $n == PyInit_* ]] && echo "$c EXTENSION $n"; done
  if [[ $'\n'${SCAN[$f]} == *$'\n'"S _GLOBAL__sub_I_register_kernels"* ]]; then echo "$c MEMBER register_kernels.o present"; else echo "$c MEMBER register_kernels.o absent"; fi
  if has "$f" S et_op_add; then echo "$c MEMBER op_add.o present"; else echo "$c MEMBER op_add.o absent"; fi
  if [ -f "$f.map" ] && grep -q 'libet_kernels\.a(register_kernels\.o)' "$f.map"; then
    echo "$c MAP_MEMBER register_kernels.o present"
  else
    echo "$c MAP_MEMBER register_kernels.o absent"
  fi

  local obj definers=0
  for obj in "$f" "${loadset[@]/#/$b/lib/}"; do
    [ -f "$obj" ] || continue
    scan "$obj"
    if has "$obj" D "$REG_FN"; then
      echo "$c DEFINES register_backend ${obj##*/}"; definers=$((definers + 1))
    fi
    if has "$obj" D "$REG_STATE"; then echo "$c DEFINES registered_backends ${obj##*/}"; fi
    if [ "$obj" != "$f" ] && has "$obj" D "$REG_FN" && calls_own "$obj"; then echo "$c REGISTRY_CALL_BOUND ${obj##*/}"; fi
  done
  echo "$c REGISTRY_DEFINERS $definers"

  if [ -n "$run_skip" ]; then echo "$c RUN skipped: $run_skip"; return; fi
  if [[ $c == ext_* ]]; then echo "$c RUN skipped: a Python module, no registry consumer"; return; fi
  local out rc=0 cmd line
  if [ "$kind" = module ]; then cmd=("${runner[@]}" "$b/bin/module_loader" "$f"); else cmd=("${runner[@]}" "$f"); fi
  out=$(cd "$b" && LD_LIBRARY_PATH="$b/lib" timeout 20 "${cmd[@]}" 2>&1) || rc=$?
  line=${out%%$'\n'*}
  if [ "$rc" -ne 0 ] || ! [[ $line =~ ^backends=[0-9]+\ kernels=[0-9]+$ ]]; then
    echo "$c RUN failed rc=$rc: ${line//$b\//}"
    return
  fi
  echo "$c RUN $line"
  while read -r line; do [[ $line == backend=* ]] && echo "$c RUN_BACKEND ${line#backend=}"; done <<<"$out"
  return 0
}

shopt -s nullglob
consumers=()
for f in "$b"/bin/consumer_* "$b"/lib/_portable_lib*.so "$b"/lib/ext_*.so; do
  case "$f" in *.map) continue ;; esac
  consumers+=("$f")
done
[ ${#consumers[@]} -gt 0 ] || { echo "facts.sh: error: no consumers in $b/bin or $b/lib" >&2; exit 2; }
while IFS= read -r f; do facts_for "$f"; done < <(printf '%s\n' "${consumers[@]}" | awk -F/ '{print $NF "\t" $0}' | sort | cut -f2-)

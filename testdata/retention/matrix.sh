#!/usr/bin/env bash
# testdata/retention/matrix.sh: build the fixture with every linker, both
# architectures and four generators (Ninja, Ninja with kept response files,
# Ninja Multi-Config, Makefiles: 4 x 2 x 4 = 32 builds, one after the
# other), run facts.sh on
# each, and print a Markdown summary: per scenario and per linker/arch, what
# really happened; the time of each build; and whether the generators' builds
# gave the same facts.
#
#   matrix.sh OUTDIR [--linkers "bfd gold lld mold"] [--archs "x86_64 aarch64"]
#                    [--generators "ninja ninja-rsp ninja-multi make"]
#
# Leaves OUTDIR/<arch>-<linker>-<generator>/ (a build.sh build directory) and
# OUTDIR/<arch>-<linker>-<generator>.facts. MATRIX.md's tables come from this.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

[ $# -ge 1 ] || { sed -n '8,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
out=$1; shift
linkers="bfd gold lld mold" archs="x86_64 aarch64" gens="ninja ninja-rsp ninja-multi make"
while [ $# -gt 0 ]; do
  case "$1" in
    --linkers) linkers=$2; shift 2 ;;
    --archs) archs=$2; shift 2 ;;
    --generators) gens=$2; shift 2 ;;
    *) echo "matrix.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"; out=$(cd "$out" && pwd)

declare -A ms
fail=0
TIMEFORMAT='%R %U %S'
export LC_NUMERIC=C
for a in $archs; do for g in $gens; do for l in $linkers; do
  d="$out/$a-$l-$g"
  ok=1
  { time "$here/build.sh" "$d" --linker "$l" --arch "$a" --generator "$g" >/dev/null 2>"$d.stderr" || ok=0; } 2>"$d.time"
  if [ "$ok" = 1 ]; then
    read -r real user sys <"$d.time"
    ms[$a-$l-$g]="$real s ($(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }') s CPU)"
    "$here/facts.sh" "$d" >"$d.facts"
  else
    ms[$a-$l-$g]=FAILED; fail=1
    echo "matrix.sh: build $a $l $g failed:" >&2; tail -5 "$d.stderr" >&2
  fi
done; done; done

norm() { grep -v '^#' "$1" | sed -E "s#$out/[^/ ]*/#BUILDDIR/#g"; }
fact() { awk -v c="$2" -v k="$3" '$1 == c && $2 == k { $1 = ""; $2 = ""; sub(/^  /, ""); print }' "$1"; }

cell() {  # cell FACTS CONSUMER SCENARIO-KIND
  local f=$1 c=$2 kind=$3 v="" run
  case "$kind" in
    backend)
      if fact "$f" "$c" BACKEND | grep -q '^libet_backend_xnn.so loaded'; then v=kept; else v=DROPPED; fi ;;
    archive)
      if fact "$f" "$c" MEMBER | grep -q '^register_kernels.o present'; then v=extracted; else v="NOT extracted"; fi
      if ! fact "$f" "$c" MAP_MEMBER | grep -q "^register_kernels.o $( [ "$v" = extracted ] && echo present || echo absent)"; then v="$v (map disagrees!)"; fi ;;
    split)
      v="$(fact "$f" "$c" REGISTRY_DEFINERS) definers" ;;
    extension)
      if [ -z "$(fact "$f" "$c" KIND)" ]; then printf '(not built: no libpython)'; return; fi
      v="exports $(fact "$f" "$c" EXTENSION); NEEDED $(fact "$f" "$c" NEEDED | grep '^libpython' || echo 'no libpython')" ;;
  esac
  run=$(fact "$f" "$c" RUN)
  case "$run" in
    skipped*) ;;
    failed*) v="$v; run FAILED (${run#*: })" ;;
    *) v="$v; run ${run//backends=/b=}"; v=${v//kernels=/k=} ;;
  esac
  printf '%s' "$v"
}

g0=${gens%% *}
echo "### What happened (facts.sh, $g0 builds)"
echo
printf '| scenario |'; for a in $archs; do for l in $linkers; do printf ' %s %s |' "$l" "$a"; done; done; echo
printf '|---|'; for a in $archs; do for l in $linkers; do printf -- '---|'; done; done; echo
rows="consumer_dropped:backend consumer_kept_noasneeded:backend consumer_kept_anchor:backend consumer_anchor_undefined:backend consumer_shlib_ref:backend consumer_transitive:backend _portable_lib:backend _portable_lib_fixed:backend consumer_archive_dropped:archive consumer_archive_undefined:archive consumer_archive_whole:archive consumer_split_registry:split consumer_split_registry_symbolic:split ext_renamed:extension"
for r in $rows; do
  c=${r%%:*} k=${r##*:}
  printf '| `%s` |' "$c"
  for a in $archs; do for l in $linkers; do
    f="$out/$a-$l-$g0.facts"
    if [ -f "$f" ]; then printf ' %s |' "$(cell "$f" "$c" "$k")"; else printf ' (no build) |'; fi
  done; done; echo
done
echo
echo "### Build times (build.sh: configure + clean build + checks; wall clock, and user+sys CPU of all its processes)"
echo
printf '| arch / generator |'; for l in $linkers; do printf ' %s |' "$l"; done; echo
printf '|---|'; for l in $linkers; do printf -- '---|'; done; echo
for a in $archs; do for g in $gens; do
  printf '| %s %s |' "$a" "$g"; for l in $linkers; do printf ' %s |' "${ms[$a-$l-$g]}"; done; echo
done; done
echo
echo "### Generators compared"
echo
for a in $archs; do for l in $linkers; do
  set -- $gens
  fa="$out/$a-$l-$1.facts"
  [ -f "$fa" ] || continue
  first=$1; shift
  for g in "$@"; do
    fb="$out/$a-$l-$g.facts"
    [ -f "$fb" ] || continue
    if diff <(norm "$fa") <(norm "$fb") >/dev/null; then echo "- $l $a: $first and $g facts identical"
    else echo "- $l $a: $first and $g facts DIFFER:"; diff <(norm "$fa") <(norm "$fb") | sed 's/^/    /'; fi
  done
done; done
exit $fail

#!/usr/bin/env bash
# Builds the registration matrix at -O0 and -O2, runs every program, runs
# `etlink retention` with no configuration on each build, and writes the
# table of etlink's verdicts against the runs to docs/registration.md.
# Outside CI (CI runs the same builds in TestRegistrationMatrix).
# usage: table.sh WORKDIR [ETLINK]   (ETLINK: a built etlink; default: go run)
# Needs what build.sh needs, and jq.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 WORKDIR [ETLINK]" >&2; exit 2; }
work=$1
etlink=${2:-}
if [ -z "$etlink" ]; then
  etlink="$work/etlink"
  (cd "$top" && CGO_ENABLED=0 go build -o "$etlink" ./cmd/etlink)
fi
out="$top/docs/registration.md"
forms="lost-archive lost-shared kept-link-library kept-whole-archive kept-object-library kept-anchor-archive kept-no-as-needed kept-anchor-shared double"
frameworks="gtest benchmark protobuf embedded capi gflags absl llvm nothing"
{
  echo "# Registration matrix: etlink's verdicts against the programs' runs"
  echo
  echo "Written by \`testdata/registration/table.sh\` on $(date -u +%Y-%m-%d) ($(cd "$top" && git describe --always --dirty))."
  echo "Each cell: what the program's run showed (\`ok\` registered once, \`lost\` registered"
  echo "nothing, \`twice\` failed or listed a registration twice, \`-\` registers nothing)"
  echo "and etlink's finding on that program with no configuration (\`·\` none, else rule"
  echo "and severity). A cell is right when a lost unit has ET101/ET102 at error, a"
  echo "double ET104, and nothing else has an error or a warning. In the split-registry"
  echo "rows, \`split\` is a run that lists none of the library's tests (they went into its own"
  echo "registry copy): right when ET103 is an error there, and at most a note where \`ok\`."
  echo
} >"$out"
for opt in -O0 -O2; do
  dir="$work/build$opt"
  "$here/build.sh" "$dir" "$opt"
  "$etlink" retention "$dir" --format json -q >"$dir/findings.json" || true
  {
    echo "## $opt"
    echo
    echo "| framework | form | bfd | gold | lld | mold |"
    echo "|---|---|---|---|---|---|"
  } >>"$out"
  for fw in $frameworks; do
    for form in $forms; do
      row="| $fw | $form |"
      for linker in bfd gold lld mold; do
        prog="$fw-$form-$linker"
        listed=$( (timeout 30 "$dir/bin/$prog" 2>/dev/null || echo "<failed>") | sort)
        run=ok
        if [ "$fw" = nothing ]; then run=-
        elif [ -z "$listed" ]; then run=lost
        elif grep -q "<failed>" <<<"$listed" || [ -n "$(uniq -d <<<"$listed")" ]; then run=twice
        fi
        verdict=$(jq -r --arg p "$prog" '[.findings[] | select(.subject.target == $p) | "\(.rule) \(.severity)"] | unique | join(", ")' "$dir/findings.json")
        row="$row $run: ${verdict:-·} |"
      done
      echo "$row" >>"$out"
    done
  done
  # The split registries: a library with its own copy of GoogleTest; the
  # run lists its tests (one registry) or not (a second one).
  for vis in interposed hidden; do
    row="| gtest | split-$vis |"
    for linker in bfd gold lld mold; do
      prog="gtest-split-$vis-$linker"
      listed=$(timeout 30 "$dir/bin/$prog" 2>/dev/null || true)
      run=ok
      [ -z "$listed" ] && run=split
      verdict=$(jq -r --arg p "$prog" '[.findings[] | select(.subject.target == $p) | "\(.rule) \(.severity)"] | unique | join(", ")' "$dir/findings.json")
      row="$row $run: ${verdict:-·} |"
    done
    echo "$row" >>"$out"
  done
  echo >>"$out"
done
echo "wrote $out"

#!/usr/bin/env bash
# Lint corpus runner (issue 27 acceptance test). Runs OUTSIDE CI.
#
#   testdata/lintcorpus/run.sh ETLINK_BINARY [OUT.md]
#
# For every project in corpus.tsv: extract the pinned tree from its mirror
# (git archive COMMIT | tar -x; submodules are absent), run
#   ETLINK lint TREE/SUBDIR --format json --fail-on none
# and match ET202/ET201 findings (error or warning) against expect.tsv by
# file and line. Prints per project: true positives, false positives (a finding
# not expected, or at a MUST-NOT-FLAG location), false negatives (a MUST-FLAG
# location not reported), duplicates (a second finding at one location) and the
# notes etlink emitted; then totals (precision, recall). Writes a markdown
# table to OUT.md (default docs/lint-corpus.md, relative to the repo root).
#
# Mirrors: $ETLINK_CORPUS_MIRRORS (default /work/.mirror), one bare git dir per
# repository at MIRRORS/<owner>+<name>/repo. Exits 2 when one is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 ETLINK_BINARY [OUT.md]" >&2
	exit 2
fi
etlink=$1
out=${2:-$root/docs/lint-corpus.md}
case "$etlink" in /*) ;; *) etlink="$PWD/$etlink" ;; esac
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
if [ ! -x "$etlink" ]; then
	echo "run.sh: $etlink is not an executable etlink binary" >&2
	exit 2
fi
mirrors=${ETLINK_CORPUS_MIRRORS:-/work/.mirror}
corpus=$here/corpus.tsv
expect=$here/expect.tsv

# Every mirror and commit must be present before anything runs.
missing=0
while IFS=$'\t' read -r repo commit subdir tags note; do
	case "$repo" in ''|'#'*) continue ;; esac
	gd="$mirrors/${repo/\//+}/repo"
	if [ ! -d "$gd" ]; then
		echo "run.sh: mirror missing for $repo: $gd (fetch github:$repo first)" >&2
		missing=1
	elif ! git --git-dir="$gd" cat-file -e "$commit^{commit}" 2>/dev/null; then
		echo "run.sh: mirror $gd lacks commit $commit of $repo (fetch github:$repo again)" >&2
		missing=1
	fi
done <"$corpus"
if [ "$missing" = 1 ]; then
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/lintcorpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

n=0
while IFS=$'\t' read -r repo commit subdir tags note; do
	case "$repo" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	gd="$mirrors/${repo/\//+}/repo"
	tree="$work/t$n"
	mkdir -p "$tree"
	# A mirror lacks files of 4 MiB and more (and LFS content): git archive
	# stops at the first absent blob, so leave those paths out.
	excludes=()
	while IFS= read -r path; do
		excludes+=(":(exclude,literal)$path")
	done < <(git --git-dir="$gd" ls-tree -r --format='%(objectname) %(path)' "$commit" 2>/dev/null |
		awk '{ print $1 }' |
		git --git-dir="$gd" cat-file --batch-check='%(objectname) %(objecttype)' 2>/dev/null |
		paste -d' ' - <(git --git-dir="$gd" ls-tree -r --format='%(path)' "$commit" 2>/dev/null) |
		awk '$2 == "missing" { sub(/^[^ ]+ [^ ]+ /, ""); print }')
	if [ ${#excludes[@]} -gt 0 ]; then
		git --git-dir="$gd" archive "$commit" -- . "${excludes[@]}" 2>>"$work/archive.log" | tar -x -C "$tree"
	else
		git --git-dir="$gd" archive "$commit" | tar -x -C "$tree"
	fi
	target="$tree"
	if [ "$subdir" != "." ] && [ -n "$subdir" ]; then
		target="$tree/$subdir"
	fi
	set +e
	"$etlink" lint "$target" --format json --fail-on none >"$work/r$n.json" 2>"$work/r$n.err"
	rc=$?
	set -e
	printf '%s\t%s\t%s\t%s\t%s\n' "$repo" "$commit" "$subdir" "$tree" "$rc" >>"$work/runs.tsv"
	# the tree is no longer needed once linted
	rm -rf "$tree"
done <"$corpus"

python3 - "$work" "$expect" "$out" "$etlink" <<'PY'
import json, os, re, sys, collections

work, expect_path, out_path, etlink = sys.argv[1:5]

def parse_loc(s):
    # file:N, file:N-M; alternatives separated by ","
    locs = []
    for part in s.split(","):
        part = part.strip()
        f, _, ln = part.rpartition(":")
        if "-" in ln:
            a, b = ln.split("-", 1)
            locs.append((f, int(a), int(b)))
        else:
            locs.append((f, int(ln), int(ln)))
    return locs

expected = collections.defaultdict(list)
for line in open(expect_path):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    cols = line.split("\t")
    repo, commit, loc, verdict, reason = cols[0], cols[1], cols[2], cols[3], cols[4] if len(cols) > 4 else ""
    if verdict not in ("MUST-FLAG", "MUST-NOT-FLAG"):
        sys.exit("expect.tsv: bad verdict %r in %r" % (verdict, line))
    expected[(repo, commit)].append({"locs": parse_loc(loc), "loc": loc, "verdict": verdict, "reason": reason, "hit": 0})

def matches(e, f, ln):
    return any(f == ef and a <= ln <= b for ef, a, b in e["locs"])

rows = []
tot = collections.Counter()
for i, line in enumerate(open(os.path.join(work, "runs.tsv")), 1):
    repo, commit, subdir, tree, rc = line.rstrip("\n").split("\t")
    exp = expected.get((repo, commit), [])
    err = open(os.path.join(work, "r%d.err" % i), errors="replace").read()
    try:
        doc = json.load(open(os.path.join(work, "r%d.json" % i)))
        crashed = ""
    except Exception as ex:
        doc = {"findings": [], "summary": {}}
        crashed = "no JSON (exit %s): %s" % (rc, err.strip().splitlines()[-1] if err.strip() else ex)
    notes = sum(1 for f in doc.get("findings") or [] if f.get("severity") == "note")
    m = re.search(r"(\d+) notes?", err)
    evalnotes = int(m.group(1)) if m else 0
    tp, fp, dup = [], [], []
    seen = collections.Counter()
    for f in doc.get("findings") or []:
        if f.get("rule") not in ("ET202", "ET201") or f.get("severity") not in ("error", "warning"):
            continue
        loc = f.get("location") or {}
        path = loc.get("file") or (f.get("subject") or {}).get("file") or ""
        rel = os.path.relpath(path, tree) if path.startswith(tree) else path
        ln = int(loc.get("line") or 0)
        tgt = (f.get("subject") or {}).get("target", "")
        where = "%s:%d" % (rel, ln)
        desc = "%s %s (%s)" % (f["rule"], where, tgt)
        seen[where] += 1
        cand = [e for e in exp if e["verdict"] == "MUST-FLAG" and e["hit"] == 0 and matches(e, rel, ln)]
        if cand:
            # A finding with no target is one line's cause in several
            # extensions (etlink names them in its message): it answers
            # every expectation at that line.
            for e in (cand if not tgt else cand[:1]):
                e["hit"] += 1
            tp.append(desc)
            continue
        if seen[where] > 1 or any(e["verdict"] == "MUST-FLAG" and matches(e, rel, ln) for e in exp):
            dup.append(desc)
            continue
        bad = [e for e in exp if e["verdict"] == "MUST-NOT-FLAG" and matches(e, rel, ln)]
        if bad:
            fp.append(desc + " at MUST-NOT-FLAG: " + bad[0]["reason"])
        else:
            fp.append(desc + " not expected")
    fn = ["%s (%s)" % (e["loc"].split(",")[0], e["reason"]) for e in exp if e["verdict"] == "MUST-FLAG" and e["hit"] == 0]
    nmust = sum(1 for e in exp if e["verdict"] == "MUST-FLAG")
    nnot = sum(1 for e in exp if e["verdict"] == "MUST-NOT-FLAG")
    name = "%s@%s%s" % (repo, commit[:10], "" if subdir in (".", "") else " " + subdir)
    rows.append((name, nmust, nnot, tp, fp, fn, dup, notes, evalnotes, crashed))
    tot.update(tp=len(tp), fp=len(fp), fn=len(fn), dup=len(dup), notes=notes, evalnotes=evalnotes, must=nmust, mustnot=nnot)
    print("%s: expected %d flag / %d no-flag; TP %d FP %d FN %d dup %d; notes %d, evaluation notes %d%s"
          % (name, nmust, nnot, len(tp), len(fp), len(fn), len(dup), notes, evalnotes, ("; " + crashed) if crashed else ""))
    for x in fp:
        print("  FP  " + x)
    for x in fn:
        print("  FN  " + x)
    for x in dup:
        print("  DUP " + x)

p = tot["tp"] / (tot["tp"] + tot["fp"]) if tot["tp"] + tot["fp"] else 1.0
r = tot["tp"] / (tot["tp"] + tot["fn"]) if tot["tp"] + tot["fn"] else 1.0
print("TOTAL: %d projects; MUST-FLAG %d, MUST-NOT-FLAG %d; TP %d FP %d FN %d dup %d; precision %.3f recall %.3f; notes %d, evaluation notes %d"
      % (len(rows), tot["must"], tot["mustnot"], tot["tp"], tot["fp"], tot["fn"], tot["dup"], p, r, tot["notes"], tot["evalnotes"]))

def cell(xs):
    return "<br>".join(x.replace("|", "\\|") for x in xs) if xs else ""

os.makedirs(os.path.dirname(out_path) or ".", exist_ok=True)
with open(out_path, "w") as o:
    o.write("# Lint corpus results\n\n")
    o.write("Generated by `testdata/lintcorpus/run.sh` (corpus and verdicts: `testdata/lintcorpus/`). "
            "ET202/ET201 findings of severity error or warning are matched to `expect.tsv` by file and line.\n\n")
    o.write("**Totals:** %d projects, %d MUST-FLAG and %d MUST-NOT-FLAG locations; "
            "true positives %d, false positives %d, false negatives %d, duplicates %d; "
            "precision %.3f, recall %.3f; notes %d, CMake evaluation notes %d.\n\n"
            % (len(rows), tot["must"], tot["mustnot"], tot["tp"], tot["fp"], tot["fn"], tot["dup"], p, r, tot["notes"], tot["evalnotes"]))
    o.write("| project | flag / no-flag | TP | FP | FN | dup | notes | eval notes | false positives | false negatives | duplicates |\n")
    o.write("|---|---|---|---|---|---|---|---|---|---|---|\n")
    for name, nmust, nnot, tp, fp, fn, dup, notes, evalnotes, crashed in rows:
        o.write("| %s%s | %d / %d | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n"
                % (name, (" (" + crashed.replace("|", "\\|") + ")") if crashed else "", nmust, nnot,
                   len(tp), len(fp), len(fn), len(dup), notes, evalnotes, cell(fp), cell(fn), cell(dup)))
print("wrote " + out_path)
PY

"""compare.py [--library-path DIR] WHEEL...: etlink check beside auditwheel show
on each wheel, as a Markdown table on stdout (docs/auditwheel.md).

AUDITWHEEL is the command that runs auditwheel (required; it is not vendored:
run it from a checkout of github.com/pypa/auditwheel, docs/auditwheel.md says
how); ETLINK the etlink binary (default: etlink on PATH). --library-path DIR
is given to etlink check and, as LD_LIBRARY_PATH, to auditwheel.

Per wheel: the tag each says the wheel is consistent with (and, in brackets,
the symbol tag: auditwheel's sym_tag, etlink's symbol_tag), the external
libraries each lists, the symbol versions auditwheel lists that etlink does
not (its versioned_symbols and each external library's), and each one's
wall time."""
import json, os, shlex, subprocess, sys, time

args = sys.argv[1:]
libpath = None
if args[:1] == ["--library-path"]:
    libpath, args = args[1], args[2:]
auditwheel = shlex.split(os.environ["AUDITWHEEL"])
etlink = shlex.split(os.environ.get("ETLINK", "etlink"))


def run(cmd, env=None):
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return p, time.monotonic() - start


def show(wheel):
    env = dict(os.environ)
    if libpath:
        env["LD_LIBRARY_PATH"] = libpath
    p, took = run(auditwheel + ["show", "--json", wheel], env)
    try:
        return json.loads(p.stdout), took
    except ValueError:
        return {"error": (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]}, took


def check(wheel):
    cmd = etlink + ["check", wheel, "--format", "json", "-q", "--fail-on", "none"]
    if libpath:
        cmd += ["--library-path", libpath]
    p, took = run(cmd)
    try:
        return json.loads(p.stdout), took
    except ValueError:
        return {"error": p.stderr.strip()}, took


def pairs(versioned):
    return {f"{lib}:{v}" for lib, vs in (versioned or {}).items() for v in vs}


def cell(items):
    return ", ".join(sorted(items)) or "-"


print("| wheel | auditwheel show | etlink check | external: auditwheel | external: etlink | versions auditwheel lists, etlink not | time auditwheel / etlink | agree |")
print("|---|---|---|---|---|---|---|---|")
for wheel in args:
    aw, aw_s = show(wheel)
    et, et_s = check(wheel)
    name = wheel
    times = f"{aw_s:.2f} s / {et_s:.2f} s"
    plats = et.get("platforms") or []
    if "overall_tag" not in aw:
        et_says = cell(p["consistent_with"] for p in plats) if plats else "no verdict: " + cell(
            i["error"] for i in et.get("inputs", []) if i.get("error"))
        print(f"| {name} | no verdict: {aw.get('error', '?')} | {et_says} | - | - | - | {times} | n/a |")
        continue
    aw_tag = f"{aw['overall_tag']} [{aw['sym_tag']}]"
    aw_ext = set(aw["external_libs"])
    if len(plats) != 1:
        print(f"| {name} | {aw_tag} | {len(plats)} platforms | {cell(aw_ext)} | - | - | {times} | no |")
        continue
    p = plats[0]
    et_tag = f"{p['consistent_with']} [{p.get('symbol_tag', '')}]"
    et_ext = {e["soname"] for e in p.get("external_libraries", [])}
    et_vers = pairs(p.get("versioned_symbols"))
    for e in p.get("external_libraries", []):
        et_vers |= pairs(e.get("versioned_symbols"))
    missing = pairs(aw["versioned_symbols"]) - et_vers
    agree = aw["overall_tag"] == p["consistent_with"] and aw["sym_tag"] == p.get("symbol_tag") and aw_ext == et_ext and not missing
    print(f"| {name} | {aw_tag} | {et_tag} | {cell(aw_ext)} | {cell(et_ext)} | {cell(missing)} | {times} | {'yes' if agree else 'no'} |")

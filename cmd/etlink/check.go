package main

import (
	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/rules"
)

var checkCmd = &command{
	name:    "check",
	args:    "[flags] WHEEL|DIR [--with torch|PATH]",
	summary: "the release gate: every rule that applies to shipped files",
	help: `Runs every check on what a wheel (read in memory) or an install directory ships:
extensions that need libpython (ET201), absolute or build-tree RPATH/RUNPATH (ET203),
symbols torch also defines (ET301, with --with), symbols two shipped objects define
(ET302), undefined symbols nothing loads (ET401), DT_NEEDED entries the installed tree
would not find (ET402), SONAMEs no shipped file carries (ET403), a platform tag that
does not match the machine code (ET404), group- or world-writable entries (ET405), a
manylinux/musllinux tag that claims older systems than the libraries run on (ET406) and
an entry name the wheel holds twice (ET407).

The report says, per architecture, which platform tag the objects are consistent
with (as auditwheel show does: the oldest manylinux policy whose symbol versions and
system libraries they keep to), the newest symbol versions they need, and the
libraries they need from the system.

Each wheel is checked as a package of its own (dist/*.whl holds one per Python
version and platform, which no process loads together); directories and other
files given together are one package.

The modules are checked as the interpreter imports them (--python, else the first
python3 program on PATH or /usr/bin/python3): its libraries are the global scope,
so a module that takes libm from python3 is a note, not an error. The package's
programs are checked each in a process of its own.

Examples:
  etlink check dist/executorch-1.0-cp311-cp311-manylinux_2_28_x86_64.whl --with torch
  etlink check build/wheel-root --format sarif > etlink.sarif
  etlink check dist/*.whl --fail-on error`,
	run: runCheck,
}

func runCheck(c *command, a *app, args []string) int {
	out := findingOutput()
	var pf peerFlags
	fs, failOn, code, ok := c.parseReporting(a, args, out, &pf)
	if !ok {
		return code
	}
	a.lookup = analyze.StartLookup()
	defer a.lookup.End()
	several := len(packages(fs.Args())) > 1
	r, ok := a.report("check", fs.Args(), &pf, out, analyze.Options{Package: true}, func(s *analyze.Session, ctx *rules.Context, r *finding.Report) {
		r.Findings = append(r.Findings, rules.Run(ctx, rules.CheckRules(len(pf.with) > 0))...)
		for _, p := range ctx.Platforms {
			v := rules.PlatformReport(p, s.Package.Platforms)
			if several {
				v.Package = s.Package.Path
			}
			r.Platforms = append(r.Platforms, v)
		}
	})
	if !ok {
		return exitError
	}
	return a.emit(out, failOn, r)
}

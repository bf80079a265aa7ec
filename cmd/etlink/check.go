package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

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
system libraries they keep to), what keeps them from a more compatible one, the newest
symbol versions they need, and the external libraries: those of the system a policy
does not allow, needed directly or through one another, as auditwheel show lists them
and auditwheel repair grafts them. -v lists each with the file found, what needs it,
the symbol versions it needs and the policies it breaks; JSON has them in
"external_libraries" (docs/auditwheel.md). --library-path plays LD_LIBRARY_PATH, as
auditwheel reads it from the environment (etlink does not, so that the answer does
not depend on the shell).

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
  etlink check dist/*.whl --fail-on error
  etlink check dist/*.whl -v --library-path build/lib   # as LD_LIBRARY_PATH=build/lib auditwheel show`,
	run: runCheck,
}

func runCheck(c *command, a *app, args []string) int {
	out := findingOutput()
	var pf peerFlags
	var libPath string
	a.lookup = analyze.StartLookup() // before the flags: see StartLookup
	defer a.lookup.End()
	fs, failOn, code, ok := c.parseReporting(a, args, out, &pf, flagFunc(func(fs *pflag.FlagSet) {
		fs.StringVar(&libPath, "library-path", "", "directories searched as LD_LIBRARY_PATH would be (colon-separated)")
	}))
	if !ok {
		return code
	}
	several := len(packages(fs.Args())) > 1
	opt := analyze.Options{Package: true}
	if libPath != "" {
		opt.LibraryPath = absDirs(strings.Split(libPath, ":"))
	}
	r, ok := a.report("check", fs.Args(), &pf, out, opt, func(s *analyze.Session, ctx *rules.Context, r *finding.Report) {
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

// absDirs makes LD_LIBRARY_PATH's directories absolute, as the loader reads
// a relative one: from the current directory ("" is the current directory
// itself). $ORIGIN of a library found there is then absolute too.
func absDirs(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		out[i] = abs
	}
	return out
}

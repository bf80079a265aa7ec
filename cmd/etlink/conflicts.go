package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/rules"
)

var conflictsCmd = &command{
	name:    "conflicts",
	args:    "[flags] PATH... [--with torch|PATH...]",
	summary: "symbols the wheel exports that torch (or another peer) exports too (ET301, ET302)",
	help: `Compares the dynamic symbols that the wheel's shared libraries export with
those of a peer and of every library the peer loads (its DT_NEEDED closure,
resolved as ld.so would: RPATH, RUNPATH, $ORIGIN, /etc/ld.so.cache, default
directories). A system library both sides load (libstdc++.so.6) is mapped
once, but a wheel object exporting its symbols too (a statically linked
copy) is a second definition; a wheel object sharing many symbols with one
library is reported as one finding for the bundle. Names are compared
without their symbol version.

Each conflict says where references bind in a Python process modelled as
glibc's loader runs it: the interpreter (python3 and its libraries are the
global scope), then the sides imported in --load-order, modules RTLD_LOCAL.
PATH is a wheel (.whl, read in memory), a directory (walked) or files.
--with torch finds torch by asking Python to import it (python3 on PATH, then
/usr/bin/python3, or --python); --with PATH takes a wheel, directory or files.
Without --with only ET302 (duplicates inside the wheel) runs.

Severities: a reference bound to the other side's copy instead of its own
(interposed) is an error for state (data, TLS) and a warning for code; two
copies each used by its own side (separate) are a warning for state meant to
be one per process (cpuinfo, XNNPACK, registries, the C++ and OpenMP
runtimes, an [[owner]] group) and a note otherwise; vague linkage (templates,
inline functions, typeinfo) is a note.

Examples:
  etlink conflicts dist/executorch-1.0-cp311-cp311-linux_x86_64.whl --with torch
  etlink conflicts build/wheel --with torch --python .venv/bin/python
  etlink conflicts build/wheel --with /opt/other/lib --format json
  etlink conflicts testdata/demo/wheel --with testdata/demo/torch
  etlink conflicts build/wheel --with torch --load-order torch:global,wheel`,
	run: runConflicts,
}

// peerFlags are the flags that name the peer and the import order.
type peerFlags struct {
	with      []string
	python    string
	loadOrder string
}

func (p *peerFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&p.with, "with", nil, "the peer: torch, or a wheel, directory or files (repeatable)")
	fs.StringVar(&p.python, "python", "", "the Python interpreter: locates torch for --with torch, and its libraries are the process's global scope")
	fs.StringVar(&p.loadOrder, "load-order", "torch,wheel", "import order and mode: comma-separated torch|wheel, each optionally :global")
}

// pythons are the interpreters to ask where torch is: --python, or none
// (pylocate's defaults).
func (p *peerFlags) pythons() []string {
	if p.python == "" {
		return nil
	}
	return []string{p.python}
}

// open reads the wheel side and the peer and builds the process (an
// analyze session): ok is false after a usage or configuration error has
// been printed.
func (a *app) open(cmd string, paths []string, pf *peerFlags, out *outputFlags, opt analyze.Options) (*analyze.Session, *rules.Context, bool) {
	order, err := analyze.ParseLoadOrder(pf.loadOrder)
	if err != nil {
		a.errorf("%s: %v", cmd, err)
		return nil, nil, false
	}
	if len(paths) == 0 {
		a.errorf("%s: no PATH given\nRun 'etlink %s --help' for usage.", cmd, cmd)
		return nil, nil, false
	}
	cfg, ok := a.config(out, paths)
	if !ok {
		return nil, nil, false
	}
	opt.Paths, opt.With, opt.Pythons, opt.Order, opt.Log, opt.Budget, opt.Index = paths, pf.with, pf.pythons(), order, a, a.budget, a.lookup.Index()
	s, err := analyze.Open(opt)
	if err != nil {
		a.errorf("%v", err)
		return nil, nil, false
	}
	ctx, err := rules.NewContext(s, cfg, paths)
	if err != nil {
		a.errorf("%s: %v", cmd, err)
		return nil, nil, false
	}
	return s, ctx, true
}

// packages splits the inputs into what is checked as one package each:
// every wheel on its own (dist/*.whl holds one per Python version and
// platform, which no process loads together and no installer unpacks
// into one tree), and the other paths (an install tree's directories and
// files) together.
func packages(paths []string) [][]string {
	var out [][]string
	var rest []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".whl") {
			out = append(out, []string{p})
		} else {
			rest = append(rest, p)
		}
	}
	if len(rest) > 0 || len(out) == 0 {
		out = append([][]string{rest}, out...)
	}
	return out
}

// report opens each package of paths in a session of its own and runs
// check on it, the findings and inputs of all in one report.
func (a *app) report(cmd string, paths []string, pf *peerFlags, out *outputFlags, opt analyze.Options,
	check func(*analyze.Session, *rules.Context, *finding.Report)) (*finding.Report, bool) {
	r := &finding.Report{Command: cmd}
	for _, pkg := range packages(paths) {
		s, ctx, ok := a.open(cmd, pkg, pf, out, opt)
		if !ok {
			return nil, false
		}
		r.Inputs = append(r.Inputs, s.Inputs...)
		check(s, ctx, r)
	}
	return r, true
}

func runConflicts(c *command, a *app, args []string) int {
	out := findingOutput()
	var pf peerFlags
	a.lookup = analyze.StartLookup() // before the flags: see StartLookup
	defer a.lookup.End()
	fs, failOn, code, ok := c.parseReporting(a, args, out, &pf)
	if !ok {
		return code
	}
	if fs.NArg() > 0 && len(pf.with) == 0 {
		a.Notef("no --with: checking duplicates inside the wheel only (ET302)")
	}
	r, ok := a.report("conflicts", fs.Args(), &pf, out, analyze.Options{Narrow: true}, func(_ *analyze.Session, ctx *rules.Context, r *finding.Report) {
		r.Findings = append(r.Findings, rules.Run(ctx, rules.ConflictsRules)...)
	})
	if !ok {
		return exitError
	}
	return a.emit(out, failOn, r)
}

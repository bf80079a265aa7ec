package main

import (
	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/ldcache"
	"github.com/etlink/etlink/pylocate"
	"github.com/etlink/etlink/rules"
)

var conflictsCmd = &command{
	name:    "conflicts",
	args:    "[flags] PATH... [--with torch|PATH...]",
	summary: "symbols the wheel exports that torch (or another peer) exports too (ET301, ET302)",
	help: `Compares the dynamic symbols that the wheel's shared libraries export with
those of a peer and of every library the peer loads (its DT_NEEDED closure,
resolved as ld.so would: RPATH, RUNPATH, $ORIGIN, /etc/ld.so.cache, default
directories). Libraries both sides load from the same file are not a conflict.
Names are compared without their symbol version. Each conflict says which
definition references from each side bind to under --load-order.

PATH is a wheel (.whl, read in memory), a directory (walked) or files.
--with torch finds torch by asking Python to import it (python3 on PATH, then
/usr/bin/python3, or --python); --with PATH takes a wheel, directory or files.
Without --with only ET302 (duplicates inside the wheel) runs.

Severities: a duplicated OBJECT or TLS symbol (state) is an error, a function a
warning, weak vague-linkage definitions on every side (templates, inline
functions, typeinfo) a note.

Examples:
  etlink conflicts dist/executorch-1.0-cp311-cp311-linux_x86_64.whl --with torch
  etlink conflicts build/wheel --with torch --python .venv/bin/python
  etlink conflicts build/wheel --with /opt/other/lib --format json
  etlink conflicts testdata/demo/wheel --with testdata/demo/torch
  etlink conflicts build/wheel --with torch --load-order torch:global,wheel`,
	run: runConflicts,
}

func runConflicts(c *command, a *app, args []string) int {
	var out outputFlags
	var with []string
	var python, loadOrder string
	fs := c.flags(a)
	fs.StringSliceVar(&with, "with", nil, "the peer: torch, or a wheel, directory or files (repeatable)")
	fs.StringVar(&python, "python", "", "interpreter that imports torch for --with torch")
	fs.StringVar(&loadOrder, "load-order", "torch,wheel", "import order and mode: comma-separated torch|wheel, each optionally :global")
	out.register(fs)
	if code, ok := c.parse(a, fs, args); !ok {
		return code
	}
	a.quiet = out.quiet
	failOn, err := out.check()
	if err != nil {
		a.errorf("conflicts: %v", err)
		return exitError
	}
	order, err := analyze.ParseLoadOrder(loadOrder)
	if err != nil {
		a.errorf("conflicts: %v", err)
		return exitError
	}
	if fs.NArg() == 0 {
		a.errorf("conflicts: no PATH given\nRun 'etlink conflicts --help' for usage.")
		return exitError
	}
	cfg, err := out.loadConfig()
	if err != nil {
		a.errorf("%v", err)
		return exitError
	}
	comps, err := cfg.ComponentTable()
	if err != nil {
		a.errorf("%v", err)
		return exitError
	}

	objs, inputs := a.readInputs(fs.Args())
	wheel := analyze.NewSide("wheel", objs)
	var peer *analyze.Side
	var peerObjs []*elfobj.Object
	if len(with) > 0 {
		var peerInputs []finding.Input
		var ok bool
		peer, peerObjs, peerInputs, ok = a.peerSide(with, python)
		if !ok {
			return exitError
		}
		inputs = append(inputs, peerInputs...)
	} else {
		a.notef("no --with: checking duplicates inside the wheel only (ET302)")
	}

	cache, err := ldcache.Load("/etc/ld.so.cache")
	if err != nil {
		a.notef("no ld.so.cache (%v): searching default directories only", err)
	}
	loader := analyze.NewLoader(cache, append(append([]*elfobj.Object(nil), objs...), peerObjs...))
	build := analyze.NewBuild(loader, wheel, peer, order)
	for _, err := range loader.Failures() {
		a.notef("warning: %v", err)
	}
	if peer != nil {
		a.notef("%s: %d objects shipped, %d in its load closure; wheel: %d objects", peer.Name,
			len(peer.Inputs), len(peer.Closure), len(wheel.Inputs))
	}
	ctx := &rules.Context{Build: build, Config: cfg, Components: comps}
	r := &finding.Report{Command: "conflicts", Inputs: inputs,
		Findings: rules.Run(ctx, []*rules.Rule{rules.ET301, rules.ET302})}
	return a.emit(&out, failOn, r)
}

// peerSide reads the --with side: torch located through Python, or paths.
func (a *app) peerSide(with []string, python string) (*analyze.Side, []*elfobj.Object, []finding.Input, bool) {
	if len(with) == 1 && with[0] == "torch" {
		var pythons []string
		if python != "" {
			pythons = []string{python}
		}
		res, err := pylocate.Find("torch", pythons...)
		if err != nil {
			a.errorf("--with torch: %v", err)
			return nil, nil, nil, false
		}
		for _, s := range res.Skipped {
			a.notef("%s cannot import torch (%s)", s.Python, s.Err)
		}
		a.notef("torch %s at %s (via %s)", res.Version, res.Dir, res.Python)
		files, err := pylocate.PackageFiles(res.Dir)
		if err != nil {
			a.errorf("--with torch: %v", err)
			return nil, nil, nil, false
		}
		objs, inputs := a.readInputs(files)
		return analyze.NewSide("torch", objs, analyze.TorchGlobalDeps), objs, inputs, true
	}
	objs, inputs := a.readInputs(with)
	return analyze.NewSide("peer", objs, analyze.TorchGlobalDeps), objs, inputs, true
}

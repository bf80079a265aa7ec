package main

import (
	"debug/elf"

	"github.com/spf13/pflag"

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

// session is what conflicts and check read: the shipped objects, the peer,
// and the simulated process that imports both.
type session struct {
	objs   []*elfobj.Object
	inputs []finding.Input
	// dangling are the symbolic links among the inputs that lead nowhere.
	dangling []*elfobj.Error
	build    *analyze.Build
	cache    *ldcache.Cache
	ctx      *rules.Context
}

// open reads the wheel side and the peer and builds the process. ok is
// false after a usage or configuration error has been printed. narrow reads
// the peer keeping only the symbols the conflict rules look at
// (analyze.ConflictNames): conflicts asks nothing else of it, check does.
func (a *app) open(cmd string, paths []string, pf *peerFlags, out *outputFlags, narrow bool) (*session, bool) {
	order, err := analyze.ParseLoadOrder(pf.loadOrder)
	if err != nil {
		a.errorf("%s: %v", cmd, err)
		return nil, false
	}
	if len(paths) == 0 {
		a.errorf("%s: no PATH given\nRun 'etlink %s --help' for usage.", cmd, cmd)
		return nil, false
	}
	cfg, ok := a.config(out)
	if !ok {
		return nil, false
	}
	comps, err := cfg.ComponentTable()
	if err != nil {
		a.errorf("%v", err)
		return nil, false
	}
	// Python and ld.so.cache answer while the wheel is read, and torch's
	// files are listed where Python is likely to say it is.
	torch := locateTorch(pf)
	aheadIn, ahead := readAhead(pf, torch)
	defer func() {
		if aheadIn != nil {
			close(aheadIn) // after its arguments, or to stop it
		}
	}()
	type loaded struct {
		cache *ldcache.Cache
		err   error
	}
	cacheCh := make(chan loaded, 1)
	go func() {
		c, err := ldcache.Load("/etc/ld.so.cache")
		cacheCh <- loaded{c, err}
	}()
	// Without torch to locate, the interpreter is found while the wheel is
	// read (with it, the interpreter that finds torch is the one).
	var interpCh chan interpreter
	if torch == nil {
		interpCh = make(chan interpreter, 1)
		go func() {
			p, err := pylocate.Interpreter(pf.pythons()...)
			interpCh <- interpreter{p, err}
		}()
	}
	s := &session{}
	// The wheel's own relocations say which of its definitions it uses
	// through the loader (and which are an executable's copies).
	s.objs, s.inputs, s.dangling = a.readInputs(paths, elfobj.Options{References: true})
	var read elfobj.Options
	if narrow {
		read.Only = analyze.ConflictNames(s.objs)
	}
	wheel := analyze.NewSide("wheel", s.objs)
	c := <-cacheCh
	if s.cache = c.cache; c.err != nil {
		a.notef("no ld.so.cache (%v): searching default directories only", c.err)
	}
	args := peerArgs{read, wheel, s.cache}
	if aheadIn != nil {
		aheadIn <- args
	}
	var peer *analyze.Side
	var loader *analyze.Loader
	var interp interpreter
	if len(pf.with) > 0 {
		r, peerInputs, ok := a.peerSide(pf.with, torch, ahead, args)
		if !ok {
			return nil, false
		}
		peer, loader, interp = r.side, r.loader, r.interp
		s.inputs = append(s.inputs, peerInputs...)
	}
	if interpCh != nil {
		interp = <-interpCh
	}
	if loader == nil {
		loader = newLoader(s.cache, wheel, read)
	}
	s.build = analyze.NewBuild(loader, a.readInterpreter(interp, loader, s.objs), wheel, peer, order)
	if n := len(wheel.OtherPython); n > 0 {
		a.notef("%d extension modules are tagged for another Python than %s (%s, ...): it never imports them",
			n, s.build.Process.Exe.Path, wheel.OtherPython[0].Path)
	}
	for _, err := range loader.Failures() {
		a.notef("warning: %v", err)
	}
	if peer != nil {
		a.notef("%s: %d objects shipped, %d in its load closure; wheel: %d objects", peer.Name,
			len(peer.Inputs), len(peer.Closure), len(wheel.Inputs))
	}
	s.ctx = &rules.Context{Build: s.build, Config: cfg, Components: comps, Roots: paths}
	return s, true
}

// interpreter is the Python program whose process the wheel is imported
// into, or why none was found.
type interpreter struct {
	path string
	err  error
}

// readInterpreter reads the interpreter through the loader's search, so
// that its closure is the process's global scope. It returns nil, with a
// note saying why, when there is none to read or it runs another machine's
// code than the wheel's (a cross-built wheel): the rules then say what
// they cannot decide.
func (a *app) readInterpreter(in interpreter, l *analyze.Loader, wheel []*elfobj.Object) *elfobj.Object {
	if in.err != nil {
		a.notef("%v: the Python process is modelled without its interpreter", in.err)
		return nil
	}
	if in.path == "" {
		return nil
	}
	o, err := elfobj.OpenFile(in.path, "", l.Read)
	if err != nil {
		a.notef("interpreter: %v: the Python process is modelled without it", err)
		return nil
	}
	for _, w := range wheel {
		if w.Type == elf.ET_DYN && (w.Machine != o.Machine || w.Class != o.Class) {
			a.notef("interpreter %s runs %s code, the wheel %s: the Python process is modelled without it", in.path, o.MachineName(), w.MachineName())
			return nil
		}
	}
	l.Add(o)
	a.notef("interpreter %s: its libraries are the process's global scope", in.path)
	return o
}

// located is Python's answer to where torch is, awaited by peerSide.
type located struct {
	res *pylocate.Result
	err error
}

// locateTorch starts asking Python where torch is when --with torch asks
// for it; nil otherwise.
func locateTorch(pf *peerFlags) <-chan located {
	if len(pf.with) != 1 || pf.with[0] != "torch" {
		return nil
	}
	ch := make(chan located, 1)
	go func() {
		res, err := pylocate.Find("torch", pf.pythons()...)
		ch <- located{res, err}
	}()
	return ch
}

func runConflicts(c *command, a *app, args []string) int {
	out := findingOutput()
	var pf peerFlags
	fs, failOn, code, ok := c.parseReporting(a, args, out, &pf)
	if !ok {
		return code
	}
	if fs.NArg() > 0 && len(pf.with) == 0 {
		a.notef("no --with: checking duplicates inside the wheel only (ET302)")
	}
	s, ok := a.open("conflicts", fs.Args(), &pf, out, true)
	if !ok {
		return exitError
	}
	r := &finding.Report{Command: "conflicts", Inputs: s.inputs,
		Findings: rules.Run(s.ctx, []*rules.Rule{rules.ET301, rules.ET302})}
	return a.emit(out, failOn, r)
}

// newLoader is the loader search of a process holding wheel: it knows the
// wheel's objects, and reads others (the peer's among them) with read.
func newLoader(cache *ldcache.Cache, wheel *analyze.Side, read elfobj.Options) *analyze.Loader {
	l := analyze.NewLoader(cache, wheel.Inputs)
	l.Read = read
	return l
}

// peerRead is the peer read from files: its side, and a loader that has
// already read both sides' load closures.
type peerRead struct {
	dir    string
	files  []string
	objs   []*elfobj.Object
	errs   []error
	err    error // from PackageFiles
	side   *analyze.Side
	loader *analyze.Loader
	// interp is the interpreter that located torch.
	interp interpreter
}

// listTorch lists torch's files in dir.
func listTorch(dir string) peerRead {
	r := peerRead{dir: dir}
	r.files, r.err = pylocate.PackageFiles(dir)
	return r
}

// open reads the files listed as the side called name and, while it does,
// both sides' load closures.
func (r *peerRead) open(name string, args peerArgs) {
	if r.err == nil {
		r.loader = newLoader(args.cache, args.wheel, args.read)
		r.objs, r.errs = r.loader.OpenInputs(r.files, analyze.Roots(args.wheel))
		r.side = analyze.NewSide(name, r.objs, analyze.TorchGlobalDeps)
	}
}

// peerArgs is what reading the peer needs from the wheel's side.
type peerArgs struct {
	read  elfobj.Options
	wheel *analyze.Side
	cache *ldcache.Cache
}

// readAhead starts reading torch from where pylocate.Guess expects it
// while Python answers (an interpreter's start is a third of the whole
// check): it lists torch's files at once, then, given the arguments on in
// (the wheel read), reads them and both sides' load closures. What it read
// is used only if Python names the same directory. Both channels are nil
// when there is no guess; closing in without a send stops it.
func readAhead(pf *peerFlags, torch <-chan located) (chan<- peerArgs, <-chan peerRead) {
	if torch == nil {
		return nil, nil
	}
	dir := pylocate.Guess("torch", pf.pythons()...)
	if dir == "" {
		return nil, nil
	}
	in, out := make(chan peerArgs, 1), make(chan peerRead, 1)
	go func() {
		r := listTorch(dir)
		args, ok := <-in
		if !ok {
			return
		}
		r.open("torch", args)
		out <- r
	}()
	return in, out
}

// peerSide reads the --with side: torch located through Python (torch
// from locateTorch; ahead, when not nil, what readAhead read), or paths.
func (a *app) peerSide(with []string, torch <-chan located, ahead <-chan peerRead, args peerArgs) (peerRead, []finding.Input, bool) {
	if torch == nil {
		r := peerRead{files: with}
		r.open("peer", args)
		inputs, _ := a.inputList(with, r.objs, r.errs)
		return r, inputs, true
	}
	l := <-torch
	if l.err != nil {
		a.errorf("--with torch: %v", l.err)
		return peerRead{}, nil, false
	}
	for _, s := range l.res.Skipped {
		a.notef("%s does not find torch (%s)", s.Python, s.Err)
	}
	a.notef("torch %s at %s (via %s)", l.res.Version, l.res.Dir, l.res.Python)
	var r peerRead
	if ahead != nil {
		r = <-ahead // a wrong guess is read again below
	}
	if r.dir != l.res.Dir {
		r = listTorch(l.res.Dir)
		r.open("torch", args)
	}
	if r.err != nil {
		a.errorf("--with torch: %v", r.err)
		return peerRead{}, nil, false
	}
	r.interp = interpreter{path: l.res.Executable}
	inputs, _ := a.inputList(r.files, r.objs, r.errs)
	return r, inputs, true
}

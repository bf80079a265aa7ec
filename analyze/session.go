package analyze

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/ldcache"
	"github.com/etlink/etlink/linkline"
	"github.com/etlink/etlink/pylocate"
)

// Log receives what a session says while it reads: notes (progress, what
// could not be decided and why) and the inputs it could not read (the run
// goes on without them). Messages come in the order the reading produced
// them; the caller prints and escapes them.
type Log interface {
	Notef(format string, args ...any)
	InputError(err error)
}

// Options say what a session reads.
type Options struct {
	// Paths are the wheel side: a .whl (read in memory), directories
	// (walked) or files.
	Paths []string
	// With is the peer: ["torch"] to locate torch through Python, else
	// paths as for Paths; empty for none.
	With []string
	// Pythons are the interpreters to ask (--python); none: pylocate's
	// defaults.
	Pythons []string
	// Order is the import order and mode (ParseLoadOrder).
	Order []LoadStep
	// Narrow reads the peer keeping only the symbols the conflict rules
	// look at (ConflictNames): conflicts asks nothing else of it.
	Narrow bool
	// Package also reads what the inputs ship as a package (the release
	// checks): Session.Package and Session.Relocated; the peer is read
	// keeping the names those checks ask about (PackageNames).
	Package bool
	// Cache is the ld.so.cache file (default /etc/ld.so.cache).
	Cache string
	// LibraryPath plays LD_LIBRARY_PATH in every search (Loader.LibraryPath).
	LibraryPath []string
	// Index, when set, answers for the closure's libraries that hold none
	// of the names read for (elfobj.Index): a Lookup's.
	Index *elfobj.Index
	// Budget is the run's (nil: no limits).
	Budget *budget.Budget
	Log    Log
}

// Session is what conflicts and check read: the shipped objects, the peer,
// and the simulated Python process that imports both.
type Session struct {
	Objects []*elfobj.Object
	// Inputs are the inputs as the report lists them, failed ones with
	// their error.
	Inputs []finding.Input
	// Dangling are the symbolic links among the inputs that lead nowhere.
	Dangling []*elfobj.Error
	Cache    *ldcache.Cache
	Build    *Build
	// Package and Relocated are set with Options.Package: what the inputs
	// ship, and a loader that finds libraries as the installed tree would.
	Package   *Package
	Relocated *Loader
}

// Open reads the wheel side and the peer and builds the process. Python
// and ld.so.cache answer while the wheel is read, and torch's files are
// read from where Python is likely to say it is. An error is one the
// session cannot go on from (torch not found); unreadable inputs are only
// logged.
func Open(opt Options) (*Session, error) {
	if opt.Cache == "" {
		opt.Cache = "/etc/ld.so.cache"
	}
	log := opt.Log
	torch := locateTorch(opt)
	aheadIn, ahead := readAhead(torch)
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
		c, err := ldcache.Load(opt.Cache)
		cacheCh <- loaded{c, err}
	}()
	// Without torch to locate, the interpreter is found while the wheel is
	// read (with it, the interpreter that finds torch is the one).
	var interpCh chan interpreter
	if torch == nil {
		interpCh = make(chan interpreter, 1)
		go func() {
			p, err := pylocate.Interpreter(opt.Pythons...)
			interpCh <- interpreter{p, err}
		}()
	}
	s := &Session{}
	// The wheel's own relocations say which of its definitions it uses
	// through the loader (and which are an executable's copies).
	s.Objects, s.Inputs, s.Dangling = ReadInputs(opt.Paths, elfobj.Options{References: true, Budget: opt.Budget}, log)
	// The peer and the libraries the search finds are read keeping only
	// the names the rules ask about.
	var read elfobj.Options
	switch {
	case opt.Package:
		read.Only, read.OnlyDefs = PackageNames(s.Objects)
	case opt.Narrow:
		read.Only = ConflictNames(s.Objects)
	}
	read.ModuleInit = true // what IsExtension asks of a partial read
	read.Budget, read.Procs = opt.Budget, runProcs
	read.Index = opt.Index
	wheel := NewSide("wheel", s.Objects, ReadPythonPlan(opt.Paths, s.Objects))
	c := <-cacheCh
	if s.Cache = c.cache; c.err != nil {
		noCache(c.err, log)
	}
	args := peerArgs{read, wheel, s.Cache, opt.LibraryPath}
	if aheadIn != nil {
		aheadIn <- args
	}
	var peer *Side
	var loader *Loader
	var interp interpreter
	if len(opt.With) > 0 {
		r, peerInputs, err := peerSide(opt, ahead, args)
		if err != nil {
			return nil, err
		}
		peer, loader, interp = r.side, r.loader, r.interp
		s.Inputs = append(s.Inputs, peerInputs...)
	}
	if interpCh != nil {
		interp = <-interpCh
	}
	if loader == nil {
		loader = newLoader(args)
	}
	s.Build = NewBuild(loader, readInterpreter(interp, loader, s.Objects, log), wheel, peer, opt.Order)
	if n := len(wheel.OtherPython); n > 0 {
		log.Notef("%d extension modules are tagged for another Python than %s (%s, ...): it never imports them",
			n, s.Build.Process.Exe.Path, wheel.OtherPython[0].Path)
	}
	for _, err := range loader.Failures() {
		log.Notef("warning: %v", err)
	}
	if peer != nil {
		log.Notef("%s: %d objects shipped, %d in its load closure; wheel: %d objects", peer.Name,
			len(peer.Inputs), len(peer.Closure), len(wheel.Inputs))
	}
	for _, side := range []*Side{wheel, peer} {
		if side != nil {
			side.notePlan(log)
		}
	}
	if opt.Package {
		s.openPackage(opt.Paths, log)
	}
	return s, nil
}

// LoadCache reads the loader's cache (path; "" for /etc/ld.so.cache). When
// there is none it says so: the search then uses the default directories
// only.
func LoadCache(path string, log Log) *ldcache.Cache {
	if path == "" {
		path = "/etc/ld.so.cache"
	}
	c, err := ldcache.Load(path)
	if err != nil {
		noCache(err, log)
	}
	return c
}

func noCache(err error, log Log) {
	log.Notef("no ld.so.cache (%v): searching default directories only", err)
}

// openPackage reads what the inputs ship: the wheels' entries and platform
// tags, beside the objects already read.
func (s *Session) openPackage(paths []string, log Log) {
	pkg := &Package{Path: strings.Join(paths, " "), Objects: s.Objects, Dangling: s.Dangling}
	for _, p := range paths {
		if !strings.HasSuffix(p, ".whl") {
			continue
		}
		pkg.Wheel, pkg.Path = true, p
		if tags, ok := WheelPlatforms(p); ok {
			pkg.Platforms = append(pkg.Platforms, tags...)
		} else {
			log.Notef("%s: not a wheel file name (name-version-python-abi-platform.whl): platform tag not checked", p)
		}
		entries, err := elfobj.ListWheel(p)
		if err != nil {
			log.InputError(err)
			continue
		}
		pkg.Entries = append(pkg.Entries, entries...)
	}
	s.Package = pkg
	s.Relocated = s.Build.Loader.InstalledTree()
}

// ReadInputs opens paths as elfobj.Open does and logs what reading them
// gave: each unreadable input, each path that held no ELF object, each
// symbolic link that leads nowhere. It returns the objects, the inputs as
// the report lists them, and the dangling links.
func ReadInputs(paths []string, opt elfobj.Options, log Log) ([]*elfobj.Object, []finding.Input, []*elfobj.Error) {
	return ReadEach(paths, opt, log, func(o *elfobj.Object) *elfobj.Object { return o })
}

// ReadEach is ReadInputs for a caller that does not hold the objects (scan
// writes each as it is read): keep receives each object as soon as its
// file has been read, from the reading goroutines (concurrently), and what
// it returns is given back in the order ReadInputs returns the objects.
// Memory holds the files being read, not every file read.
func ReadEach[T any](paths []string, opt elfobj.Options, log Log, keep func(*elfobj.Object) T) ([]T, []finding.Input, []*elfobj.Error) {
	// An empty argument is a mistake (an unset shell variable), not "the
	// current directory" as path cleaning would make it.
	var named []string
	var empty []error
	for _, p := range paths {
		if p == "" {
			empty = append(empty, &elfobj.Error{Path: `""`, Err: errors.New("empty path")})
			continue
		}
		named = append(named, p)
	}
	type item struct {
		file, pos int // reading order: the file's place in the listing, the object's in the file
		key, real string
		from      [3]string // Path, Archive, Wheel: which input yielded it
		kept      T
	}
	var mu sync.Mutex
	var items []item
	rank := map[string]int{}
	opt.Procs = runProcs
	_, errs := elfobj.OpenStream(named, opt, elfobj.Stream{
		Listed: func(reals, _ []string) {
			for i, r := range reals {
				rank[r] = i
			}
		},
		Read: func(real string, objs []*elfobj.Object) {
			for pos, o := range objs {
				it := item{file: rank[real], pos: pos, key: elfobj.SortKey(o), real: o.Real, from: [3]string{o.Path, o.Archive, o.Wheel}, kept: keep(o)}
				mu.Lock()
				items = append(items, it)
				mu.Unlock()
			}
		},
		Drop: true,
	})
	slices.SortFunc(items, func(a, b item) int { return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.pos, b.pos)) })
	items = elfobj.Order(items, func(it item) string { return it.key }, func(it item) string { return it.real })
	out := make([]T, len(items))
	var from []string
	for i, it := range items {
		out[i] = it.kept
		from = append(from, it.from[:]...)
	}
	errs = append(empty, errs...)
	inputs, dangling := inputList(named, from, errs, log)
	return out, inputs, dangling
}

// inputList reports what reading paths gave (objs, errs): each error, each
// path that held no ELF object, and the inputs for the report. Symbolic
// links that lead nowhere are not unreadable inputs (Debian's torch/lib
// holds three, to libraries of another package): each is said in a note
// and returned for the rules that judge them.
func inputList(paths []string, from []string, errs []error, log Log) ([]finding.Input, []*elfobj.Error) {
	failed := map[string]string{}
	var dangling []*elfobj.Error
	for _, err := range errs {
		var ee *elfobj.Error
		if errors.Is(err, elfobj.ErrDanglingLink) && errors.As(err, &ee) {
			dangling = append(dangling, ee)
			continue
		}
		log.InputError(err)
		in := InputFailed(err)
		failed[in.Path] = in.Error
	}
	switch n := len(dangling); {
	case n == 1:
		log.Notef("%v (skipped)", dangling[0])
	case n > 1:
		// One line for all: Debian's torch/lib holds three, said on every run.
		names := make([]string, 0, n)
		for _, d := range dangling {
			names = append(names, d.Path)
		}
		log.Notef("%d symbolic links lead to no file (skipped): %s", n, sample(names))
	}
	inputs := make([]finding.Input, 0, len(paths)+len(failed))
	for _, p := range paths {
		in := finding.Input{Path: p}
		if msg, ok := failed[p]; ok {
			in.Error = msg
			delete(failed, p)
		} else if !yielded(from, p) {
			log.Notef("%s: no ELF objects found", p)
		}
		inputs = append(inputs, in)
	}
	// Failures inside an input (a wheel entry, a file in a directory).
	for _, p := range slices.Sorted(maps.Keys(failed)) {
		inputs = append(inputs, finding.Input{Path: p, Error: failed[p]})
	}
	return inputs, dangling
}

// InputFailed is the report's line for an input that could not be read:
// the file the error names (a datafile.Error, else the operating system's
// fs.PathError) and why.
func InputFailed(err error) finding.Input {
	var de *datafile.Error
	if errors.As(err, &de) {
		return finding.Input{Path: de.Path, Error: de.Err.Error()}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return finding.Input{Path: pe.Path, Error: pe.Err.Error()}
	}
	return finding.Input{Path: err.Error(), Error: err.Error()}
}

// yielded reports whether any object was read from input path p, given
// the paths, archives and wheels of the objects read.
func yielded(from []string, p string) bool {
	p = filepath.Clean(p)
	for _, name := range from {
		if name != "" && (name == p || strings.HasPrefix(name, p+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

// objectNames lists the paths, archives and wheels of objs, for yielded.
func objectNames(objs []*elfobj.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Path, o.Archive, o.Wheel)
	}
	return out
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
func readInterpreter(in interpreter, l *Loader, wheel []*elfobj.Object, log Log) *elfobj.Object {
	if in.err != nil {
		log.Notef("%v: the Python process is modelled without its interpreter", in.err)
		return nil
	}
	if in.path == "" {
		return nil
	}
	o, err := elfobj.OpenFile(in.path, "", l.Read)
	if err != nil {
		log.Notef("interpreter: %v: the Python process is modelled without it", err)
		return nil
	}
	for _, w := range wheel {
		if w.Type == elf.ET_DYN && (w.Machine != o.Machine || w.Class != o.Class) {
			log.Notef("interpreter %s runs %s code, the wheel %s: the Python process is modelled without it", in.path, o.MachineName(), w.MachineName())
			return nil
		}
	}
	l.Add(o)
	log.Notef("interpreter %s: its libraries are the process's global scope", in.path)
	return o
}

// located is Python's answer to where torch is, awaited by peerSide.
type located struct {
	res *pylocate.Result
	err error
}

// locateTorch starts asking Python where torch is when the peer is torch;
// nil otherwise.
func locateTorch(opt Options) <-chan located {
	if len(opt.With) != 1 || opt.With[0] != "torch" {
		return nil
	}
	ch := make(chan located, 1)
	go func() {
		res, err := pylocate.Find("torch", opt.Pythons...)
		ch <- located{res, err}
	}()
	return ch
}

// newLoader is the loader search of a process holding args.wheel: it
// knows the wheel's objects, and reads others (the peer's among them) with
// args.read.
func newLoader(args peerArgs) *Loader {
	l := NewLoader(args.cache, args.wheel.Inputs)
	l.Read, l.LibraryPath = args.read, args.libraryPath
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
	side   *Side
	loader *Loader
	// interp is the interpreter that located torch.
	interp interpreter
	// located is where Python finds torch (readAhead).
	located located
}

// listTorch lists torch's files in dir.
func listTorch(dir string) peerRead {
	r := peerRead{dir: dir}
	r.files, r.err = pylocate.PackageFiles(dir)
	return r
}

// open reads the files listed as the side called name and, while it does,
// both sides' load closures and the side's Python plan.
func (r *peerRead) open(name string, args peerArgs) {
	if r.err == nil {
		r.loader = newLoader(args)
		var plan *planAhead
		r.objs, r.errs = r.loader.OpenInputs(r.files, Roots(args.wheel), func(paths []string) { plan = readPlanAhead(r.dir, paths) })
		r.side = NewSide(name, r.objs, plan.plan(r.objs))
	}
}

// peerArgs is what reading the peer needs from the wheel's side.
type peerArgs struct {
	read        elfobj.Options
	wheel       *Side
	cache       *ldcache.Cache
	libraryPath []string
}

// readAhead reads torch as soon as locateTorch's answer comes (read from
// the interpreter's files, a few milliseconds; remembered, or an
// interpreter started, else) while the wheel is read: it lists torch's
// files, then, given the arguments on in (the wheel read), reads them and
// both sides' load closures. Both channels are nil when the peer is not
// torch; closing in without a send stops it.
func readAhead(torch <-chan located) (chan<- peerArgs, <-chan peerRead) {
	if torch == nil {
		return nil, nil
	}
	in, out := make(chan peerArgs, 1), make(chan peerRead, 1)
	go func() {
		l := <-torch
		r := peerRead{located: l}
		if l.err == nil {
			r = listTorch(l.res.Dir)
			r.located = l
		}
		args, ok := <-in
		if !ok {
			return
		}
		if l.err == nil && r.err == nil {
			r.open("torch", args)
		}
		out <- r
	}()
	return in, out
}

// peerSide reads the peer: torch as readAhead located and read it (ahead),
// or paths.
func peerSide(opt Options, ahead <-chan peerRead, args peerArgs) (peerRead, []finding.Input, error) {
	log := opt.Log
	if ahead == nil {
		r := peerRead{files: opt.With}
		r.open("peer", args)
		inputs, _ := inputList(opt.With, objectNames(r.objs), r.errs, log)
		return r, inputs, nil
	}
	r := <-ahead
	l := r.located
	if l.err != nil {
		return peerRead{}, nil, errors.New("--with torch: " + l.err.Error())
	}
	for _, s := range l.res.Skipped {
		log.Notef("%s does not find torch (%s)", s.Python, s.Err)
	}
	how := fmt.Sprintf("in %d ms, started because %s", l.res.Took.Milliseconds(), l.res.Started)
	switch {
	case l.res.Read && l.res.Remembered:
		how = "read from its files by an earlier run, none of which has changed since"
	case l.res.Read:
		how = "read from its files"
	case l.res.Remembered:
		how = "its answer of an earlier run, which nothing it depends on has changed since; started then because " + l.res.Started
	}
	log.Notef("torch %s at %s (via %s, %s)", l.res.Version, l.res.Dir, l.res.Python, how)
	if r.err != nil {
		return peerRead{}, nil, errors.New("--with torch: " + r.err.Error())
	}
	r.interp = interpreter{path: l.res.Executable}
	inputs, _ := inputList(r.files, objectNames(r.objs), r.errs, log)
	return r, inputs, nil
}

// LinkOptions are the options OpenLinks reads links with, charged to b,
// for a --default-as-needed value: on, off, or auto or "" (the driver's
// default, read from the compiler a line names).
func LinkOptions(defaultAsNeeded string, b *budget.Budget) (linkline.Options, error) {
	opt := linkline.Options{Budget: b}
	switch defaultAsNeeded {
	case "auto", "":
	case "on", "off":
		v := defaultAsNeeded == "on"
		opt.DefaultAsNeeded = &v
	default:
		return opt, fmt.Errorf("%q: want on, off or auto", defaultAsNeeded)
	}
	return opt, nil
}

// OpenLinks is retention's and why's session: it collects the links among
// paths (CollectLinks) and decides each one's fate, logging what was read
// from each input, every input that could not be, and what cannot be
// decided for want of outputs, inputs or link lines. It returns one
// LinkFacts per link and the inputs as the report lists them.
func OpenLinks(paths []string, opt linkline.Options, patterns *Patterns, log Log) ([]*LinkFacts, []finding.Input) {
	in, errs := CollectLinks(paths, opt)
	inputs := make([]finding.Input, 0, len(paths))
	for _, p := range paths {
		inputs = append(inputs, finding.Input{Path: p})
	}
	failed := func(err error) {
		log.InputError(err)
		inputs = append(inputs, InputFailed(err))
	}
	for _, err := range errs {
		failed(err)
	}
	for p, what := range in.Sources {
		log.Notef("%s: read %s", p, what)
	}
	loader := NewLoader(LoadCache("", log), nil)
	loader.Read.Budget = opt.Budget
	engine := NewRetention(patterns, loader)
	defer engine.Close()
	engine.Produces(in.Links)
	var facts []*LinkFacts
	var notBuilt []string
	unbuilt, unread := 0, 0
	for _, l := range in.Links {
		m, err := in.MapFor(l)
		if err != nil {
			failed(err)
		}
		f := engine.Analyze(l, m)
		f.Stale = in.staleOf[l]
		if f.Output == nil {
			unbuilt++
		}
		for _, err := range f.Unread {
			if errors.Is(err, fs.ErrNotExist) {
				unread++
				continue
			}
			failed(err)
		}
		for _, x := range l.Inputs {
			if name := filepath.Base(x.Arg); f.NotBuilt(x) && !slices.Contains(notBuilt, name) {
				notBuilt = append(notBuilt, name)
			}
		}
		facts = append(facts, f)
	}
	log.Notef("%d links, %d maps", len(in.Links), len(in.Maps))
	for _, st := range in.Stale {
		log.Notef("%s: the CMake File API reply is older than the sources it came from (%s); the CMakeLists.txt lines taken from it are unverified: re-run cmake", st.BuildDir, st.Summary())
	}
	if unbuilt > 0 {
		log.Notef("%d of the %d links have no output yet: nothing was observed for them; their fates are predicted from the inputs and the linkers' rules", unbuilt, len(in.Links))
	}
	if len(notBuilt) > 0 {
		log.Notef("%d inputs the project builds are not built yet (%s): what they register cannot be read, so nothing is decided for them; build the tree, then run etlink again", len(notBuilt), sample(notBuilt))
	} else if unread > 0 {
		log.Notef("%d inputs of those links do not exist (not built?): nothing is predicted from them either; build the tree for a full answer", unread)
	}
	if len(in.Links) == 0 && len(in.Maps) > 0 {
		log.Notef("maps but no link line: a map does not say which libraries were under --as-needed (gold, lld and mold do not even name those they dropped), so ET101 cannot be decided from maps alone; give the build directory, build.ninja or link.txt too")
	}
	return facts, inputs
}

// sample names the first three of names, and how many more there are.
func sample(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

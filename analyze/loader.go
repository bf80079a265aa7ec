package analyze

import (
	"debug/elf"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/procs"
	"github.com/etlink/etlink/ldcache"
)

// Loader finds the file ld.so would map for a DT_NEEDED entry. It models
// glibc's search (elf/dl-load.c _dl_map_object): a name with a slash is used
// as is; otherwise DT_RPATH of the needing object and of the objects that
// loaded it (only while none has DT_RUNPATH), LD_LIBRARY_PATH, the needing
// object's DT_RUNPATH, /etc/ld.so.cache, then the default directories.
// Candidates of another ELF class or machine are skipped, as ld.so skips them.
//
// Objects inside a wheel are found by their virtual path (wheel.whl!dir/name),
// so $ORIGIN-relative paths resolve inside the wheel without unpacking it.
// Not modelled: glibc-hwcaps subdirectories, $PLATFORM other than the machine
// name, DF_1_NODEFLIB, and LD_PRELOAD.
type Loader struct {
	// LibraryPath plays LD_LIBRARY_PATH; empty by default so that results do
	// not depend on the caller's environment. Relocated keeps it: it names
	// the directories of the machine the package runs on.
	LibraryPath []string
	// Cache is the parsed ld.so.cache, nil when none could be read.
	Cache *ldcache.Cache
	// Read says what to read of the files the search opens.
	Read elfobj.Options
	// Relocated simulates the tree installed elsewhere (ET402): only
	// $ORIGIN-relative and system search directories still lead anywhere;
	// other absolute RPATH/RUNPATH entries point into the build machine.
	Relocated bool

	mu      sync.Mutex
	known   map[string]*elfobj.Object // by Path and by Real
	failed  map[string]error          // real paths that could not be read
	opening map[string]chan struct{}  // real paths being read, closed when done
	reals   map[string]string         // realFile's answers ("": no regular file)
	stats   map[string]fs.FileInfo    // the Lstat of each regular file realFile found
	// prefetched holds the objects whose DT_NEEDED entries Prefetch has
	// resolved: every dlopen of a process prefetches its closure, and the
	// closures overlap.
	prefetched map[*elfobj.Object]bool
	// trees caches ownTree's search lists.
	trees map[*elfobj.Object][]*elfobj.Object
	// resolved caches Resolve's answers that do not depend on the chain of
	// loaders (no DT_RPATH along it): every process and every own tree
	// resolves the same DT_NEEDED entries again.
	resolved map[resolveKey]Resolution
}

type resolveKey struct {
	needer *elfobj.Object
	name   string
}

// closure is what the maps of a loader are sized for: a closure of a few
// hundred libraries (torch's: 290, each known under two or three names,
// found after a few misses). Grown a doubling at a time, their growth was
// a few percent of reading it.
const closure = 512

// closureObjects is what the maps of a process that maps a side's closure
// are sized for, each object once (torch's 290): grown a doubling at a
// time, their growth was a quarter of its dlopens. A map sized for more
// than 448 holds 1024 slots, not 512.
const closureObjects = 448

// NewLoader returns a loader that knows objs (the inputs, wheel entries
// included) and reads other files from disk on demand.
func NewLoader(cache *ldcache.Cache, objs []*elfobj.Object) *Loader {
	l := &Loader{Cache: cache, Read: elfobj.Options{Procs: runProcs}, known: make(map[string]*elfobj.Object, closure), failed: map[string]error{},
		opening: map[string]chan struct{}{}, reals: make(map[string]string, 2*closure), stats: make(map[string]fs.FileInfo, closure),
		prefetched: make(map[*elfobj.Object]bool, closure), resolved: make(map[resolveKey]Resolution, 2*closure)}
	for _, o := range objs {
		l.remember(o)
	}
	return l
}

// InstalledTree is a loader for the package installed elsewhere (its
// Relocated search) that knows every file l has read, so that the libraries
// both searches reach are read once.
func (l *Loader) InstalledTree() *Loader {
	l.mu.Lock()
	objs := make([]*elfobj.Object, 0, len(l.known))
	seen := map[*elfobj.Object]bool{}
	for _, o := range l.known {
		if !seen[o] {
			seen[o] = true
			objs = append(objs, o)
		}
	}
	l.mu.Unlock()
	r := NewLoader(l.Cache, objs)
	r.Read, r.LibraryPath, r.Relocated = l.Read, l.LibraryPath, true
	return r
}

// Add makes o known to the search under its path, as an input is.
func (l *Loader) Add(o *elfobj.Object) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.remember(o)
}

func (l *Loader) remember(o *elfobj.Object) {
	if _, ok := l.known[o.Path]; !ok {
		l.known[o.Path] = o
	}
	if o.Real != "" {
		if _, ok := l.known[o.Real]; !ok {
			l.known[o.Real] = o
		}
	}
}

// Tree is o's own search list: o and its DT_NEEDED closure, breadth first,
// as dlopen(o) maps it in a process where nothing else is loaded. It is
// what o was linked against, in the order o's own lookups would search it.
func (l *Loader) Tree(o *elfobj.Object) []*elfobj.Object {
	m := treePool.Get().(*treeMaps)
	defer func() {
		clear(m.byName)
		treePool.Put(m)
	}()
	// A process nobody asks about: its search, without the bookkeeping.
	p := &Process{loader: l, byName: m.byName, parent: m.parent, noDeps: true}
	list := p.searchList(o)
	m.parent = p.parent
	return list
}

// treeMaps are the maps Tree's search fills, kept for the next one: own
// asks for the tree of every object that refers to a conflicting name.
type treeMaps struct {
	byName map[string]*elfobj.Object
	parent map[*elfobj.Object]*elfobj.Object
}

// treePool's maps are sized for one of torch's trees (a hundred and more
// libraries, each under its DT_NEEDED name and soname): a pool emptied by
// a collection would otherwise grow fresh ones a doubling at a time.
var treePool = sync.Pool{New: func() any {
	return &treeMaps{byName: make(map[string]*elfobj.Object, 512), parent: make(map[*elfobj.Object]*elfobj.Object, 256)}
}}

// own returns the object whose definition r (a reference to the name id)
// would bind to if r's object were loaded alone: the copy its own link
// resolved it to, or the object itself for its own definitions. nil when
// its tree defines none, as when the interpreter is to provide it. defs
// must index the object's tree.
func (l *Loader) own(defs *Definitions, id int32, r Reference) *elfobj.Object {
	if def := defs.defOf(id, r.Object); def != nil && defs.suits(id, def, r.Version) {
		return r.Object // first in its own tree: no need to build the tree
	}
	if def := defs.first(id, defs.treeRank(l, r), r.Version); def != nil {
		return def.o
	}
	return nil
}

// ownTree is Tree(o), kept: every index that asks own about o's
// references asks for the same tree.
func (l *Loader) ownTree(o *elfobj.Object) []*elfobj.Object {
	l.mu.Lock()
	tree, ok := l.trees[o]
	l.mu.Unlock()
	if ok {
		return tree
	}
	tree = l.Tree(o)
	l.mu.Lock()
	if l.trees == nil {
		l.trees = map[*elfobj.Object][]*elfobj.Object{}
	}
	l.trees[o] = tree
	l.mu.Unlock()
	return tree
}

// Via says which step of the search found a library.
type Via string

// The steps of the loader's search, in glibc's order.
const (
	ViaPath        Via = "path"     // the name held a slash
	ViaRpath       Via = "DT_RPATH" // of the object or one that loaded it
	ViaLibraryPath Via = "LD_LIBRARY_PATH"
	ViaRunpath     Via = "DT_RUNPATH"
	ViaCache       Via = "ld.so.cache"
	ViaDefault     Via = "default directories"
	ViaLoaded      Via = "already loaded" // mapped before under that name
)

// Resolution is the outcome of one DT_NEEDED lookup.
type Resolution struct {
	Name   string         // the DT_NEEDED string
	Object *elfobj.Object // nil when not found
	Via    Via
	Dir    string   // the search directory that held it, as written (before $ORIGIN expansion)
	Path   string   // where it was found, as ld.so names it (the object is read once per real file)
	Tried  []string // candidate paths, in order, when not found
}

// Resolve finds name for needer. chain lists the objects that loaded needer,
// nearest first, whose DT_RPATH ld.so also searches.
func (l *Loader) Resolve(needer *elfobj.Object, chain []*elfobj.Object, name string) Resolution {
	if len(needer.Runpath) == 0 && slices.ContainsFunc(chain, func(o *elfobj.Object) bool { return len(o.Rpath) > 0 }) {
		return l.resolve(needer, chain, name) // the loaders' DT_RPATH counts
	}
	key := resolveKey{needer, name}
	l.mu.Lock()
	res, ok := l.resolved[key]
	l.mu.Unlock()
	if ok {
		return res
	}
	res = l.resolve(needer, nil, name)
	l.mu.Lock()
	if l.resolved == nil {
		l.resolved = map[resolveKey]Resolution{}
	}
	l.resolved[key] = res
	l.mu.Unlock()
	return res
}

// resolve is Resolve, searched afresh.
func (l *Loader) resolve(needer *elfobj.Object, chain []*elfobj.Object, name string) Resolution {
	res := Resolution{Name: name}
	if strings.Contains(name, "/") {
		p := expand(name, needer)
		if o := l.candidate(p, needer); o != nil {
			res.Object, res.Via, res.Path = o, ViaPath, p
		} else {
			res.Tried = append(res.Tried, p)
		}
		return res
	}
	try := func(dirs []string, owner *elfobj.Object, via Via) bool {
		for _, d := range dirs {
			// LibraryPath is the installed machine's too: the caller gave it.
			if l.Relocated && via != ViaLibraryPath && !strings.Contains(d, "ORIGIN") && !IsSystemDir(d, needer.Machine, needer.Class) {
				res.Tried = append(res.Tried, d+"/"+name+" (a build-machine path: gone once installed)")
				continue
			}
			p := joinDir(expand(d, owner), name)
			if p == "" {
				res.Tried = append(res.Tried, expand(d, owner)+"/"+name+" (outside the wheel)")
				continue
			}
			if o := l.candidate(p, needer); o != nil {
				res.Object, res.Via, res.Dir, res.Path = o, via, d, p
				return true
			}
			res.Tried = append(res.Tried, p)
		}
		return false
	}
	if len(needer.Runpath) == 0 {
		for _, o := range append([]*elfobj.Object{needer}, chain...) {
			if len(o.Runpath) > 0 {
				break
			}
			if try(o.Rpath, o, ViaRpath) {
				return res
			}
		}
	}
	if try(l.LibraryPath, needer, ViaLibraryPath) || try(needer.Runpath, needer, ViaRunpath) {
		return res
	}
	if l.Cache != nil {
		if p, ok := l.Cache.Lookup(name, needer.Machine, needer.Class); ok {
			if o := l.candidate(p, needer); o != nil {
				res.Object, res.Via, res.Dir, res.Path = o, ViaCache, filepath.Dir(p), p
				return res
			}
			res.Tried = append(res.Tried, p)
		}
	}
	try(DefaultDirs(needer.Machine, needer.Class), needer, ViaDefault)
	return res
}

// candidate returns the object at p if it exists and suits needer.
func (l *Loader) candidate(p string, needer *elfobj.Object) *elfobj.Object {
	o := l.lookup(p)
	if o == nil || o.Machine != needer.Machine || o.Class != needer.Class {
		return nil
	}
	return o
}

func (l *Loader) lookup(p string) *elfobj.Object {
	l.mu.Lock()
	o, ok := l.known[p]
	l.mu.Unlock()
	if ok {
		return o
	}
	if strings.Contains(p, "!") || !filepath.IsAbs(p) {
		return nil // inside a wheel (all its entries are known) or unanchored
	}
	real, ok := l.realFile(p)
	if !ok {
		return nil
	}
	for {
		l.mu.Lock()
		if o, ok := l.known[real]; ok {
			l.known[p] = o
			l.mu.Unlock()
			return o
		}
		if _, bad := l.failed[real]; bad {
			l.mu.Unlock()
			return nil
		}
		wait, busy := l.opening[real]
		if !busy {
			break // this goroutine opens it; l.mu is held
		}
		l.mu.Unlock()
		<-wait // another goroutine is reading the same file
	}
	done := make(chan struct{})
	l.opening[real] = done
	fi := l.stats[real]
	l.mu.Unlock()

	// Read outside the lock: Prefetch reads several libraries at once.
	o, err := elfobj.OpenStat(p, real, fi, l.Read)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.failed[real] = err
	}
	l.settle(real, o)
	return o
}

// settle makes objs, read from the file real, known and wakes the searches
// waiting for that file. l.mu is held.
func (l *Loader) settle(real string, objs ...*elfobj.Object) {
	for _, o := range objs {
		if o != nil {
			l.remember(o)
		}
	}
	if done := l.opening[real]; done != nil {
		delete(l.opening, real)
		close(done)
	}
}

// realFile is the regular file p leads to after symlinks, and whether there
// is one. The search tries the same candidates many times (every library
// needs libc, through every RUNPATH entry before the cache), so answers are
// kept, missing files included; directories are resolved once each and only
// the last component of a candidate is looked at. The index (Read.Index)
// answers for the symlinks earlier runs followed to a file it still knows:
// one stat of the path, which the kernel follows, instead of an lstat and
// a readlink a link.
func (l *Loader) realFile(p string) (string, bool) {
	return l.realFileDepth(p, 0)
}

// maxLinks is the depth of symlinks followed, as the kernel's ELOOP limit.
const maxLinks = 40

func (l *Loader) realFileDepth(p string, depth int) (string, bool) {
	return l.remembered(p, func() string {
		if depth == 0 {
			if real, fi, ok := l.Read.Index.Resolve(p); ok {
				l.mu.Lock()
				l.stats[real] = fi
				l.mu.Unlock()
				return real
			}
		}
		dir, ok := l.realDir(filepath.Dir(p))
		if !ok || depth >= maxLinks {
			return ""
		}
		q := filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(q)
		switch {
		case err != nil:
		case fi.Mode().IsRegular():
			l.mu.Lock()
			l.stats[q] = fi
			l.mu.Unlock()
			return q
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(q); err == nil {
				if !filepath.IsAbs(t) {
					t = filepath.Join(dir, t)
				}
				r, _ := l.realFileDepth(t, depth+1)
				if depth == 0 && r != "" {
					l.Read.Index.Link(p, r)
				}
				return r
			}
		}
		return ""
	})
}

// realDir resolves a directory's symlinks, once per directory.
func (l *Loader) realDir(dir string) (string, bool) {
	return l.remembered(dir+"/", func() string { // the slash: never a file's key
		r, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return ""
		}
		return r
	})
}

// remembered returns the answer kept for key, or finds it with find (""
// for none) and keeps it; find runs without the lock.
func (l *Loader) remembered(key string, find func() string) (string, bool) {
	l.mu.Lock()
	r, ok := l.reals[key]
	l.mu.Unlock()
	if !ok {
		r = find()
		l.mu.Lock()
		l.reals[key] = r
		l.mu.Unlock()
	}
	return r, r != ""
}

// Prefetch reads the DT_NEEDED closure of roots ahead of the loader's
// search, GOMAXPROCS files at a time, each library as soon as the one that
// needs it has been read (level by level would leave workers idle at the end
// of every level). The search itself stays sequential and finds the files
// already read. A library reached first under another chain of loaders than
// the search's is found under that chain (DT_RPATH differs only then); what
// the search then needs and the prefetch did not read is read on demand.
func (l *Loader) Prefetch(roots []*elfobj.Object) {
	l.mu.Lock()
	fresh := slices.ContainsFunc(roots, func(o *elfobj.Object) bool { return !l.prefetched[o] })
	l.mu.Unlock()
	if !fresh {
		return // no workers started for a closure already read
	}
	p := l.startPrefetch()
	for _, r := range roots {
		p.visit(r, nil, false)
	}
	p.wait()
}

// OpenInputs reads the files paths name, as elfobj.Open does (the same
// objects, errors and order), makes them known as inputs are, and
// prefetches the closure of roots and of those objects while they are
// being read: a library's DT_NEEDED entries are looked up as soon as it
// has been read, so the closure is read beside the largest input instead
// of after it. The files about to be read are claimed before any search
// starts, so that a search reaching one of them under another name waits
// for it rather than reading it a second time: each file stays one Object,
// under the name the caller listed. listed, when not nil, is given the
// files' paths (as the objects will be named) before any is read.
func (l *Loader) OpenInputs(paths []string, roots []*elfobj.Object, listed func(paths []string)) ([]*elfobj.Object, []error) {
	p := l.startPrefetch()
	p.hold()
	objs, errs := elfobj.OpenStream(paths, l.Read, elfobj.Stream{
		Listed: func(reals, named []string) {
			if listed != nil {
				listed(named)
			}
			l.mu.Lock()
			for _, r := range reals {
				if _, ok := l.known[r]; !ok && l.opening[r] == nil {
					l.opening[r] = make(chan struct{})
				}
			}
			l.mu.Unlock()
			for _, r := range roots {
				p.visit(r, nil, false)
			}
		},
		Read: func(real string, objs []*elfobj.Object) {
			l.mu.Lock()
			l.settle(real, objs...)
			l.mu.Unlock()
			for _, o := range objs {
				p.visit(o, nil, false)
			}
		},
	})
	p.done() // the hold: every input has been read
	p.wait()
	return objs, errs
}

// prefetch is a closure read in progress: DT_NEEDED entries queued, and
// workers resolving them (which reads the libraries found). With an index
// that answers, a library costs a stat and a lookup, less than handing it
// between workers: one worker resolves them, and GOMAXPROCS do once the
// index passes a read on to a file.
type prefetch struct {
	l       *Loader
	mu      sync.Mutex
	wake    *sync.Cond
	queue   []Need
	pending int   // needs queued or being resolved, and holds
	workers int   // started
	reads   int64 // the index's Reads when the prefetch started
	wg      sync.WaitGroup
}

func (l *Loader) startPrefetch() *prefetch {
	p := &prefetch{l: l, workers: 1, reads: l.Read.Index.Reads()}
	if p.reads < 0 {
		procs.Widen() // every library is read
		p.workers = runtime.GOMAXPROCS(0)
	}
	p.wake = sync.NewCond(&p.mu)
	for range p.workers {
		p.wg.Go(p.work)
	}
	return p
}

// widen starts the rest of GOMAXPROCS workers once the index has passed
// a read on to a file (which widened GOMAXPROCS, procs.Widen): the closure
// is being read, not looked up.
func (p *prefetch) widen() {
	if p.l.Read.Index.Reads() == p.reads {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; p.workers < runtime.GOMAXPROCS(0); p.workers++ {
		p.wg.Go(p.work) // a worker is running: the group's count is not zero
	}
	p.wake.Broadcast()
}

// visit queues o's DT_NEEDED entries, unless o has been visited before (by
// this prefetch or an earlier one), and wakes a worker for each, but one
// when a worker visits (it takes the next itself): waking every worker
// for every library cost a futex call each.
func (p *prefetch) visit(o *elfobj.Object, chain []*elfobj.Object, worker bool) {
	p.l.mu.Lock()
	seen := p.l.prefetched[o]
	p.l.prefetched[o] = true
	p.l.mu.Unlock()
	if seen {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range o.Needed {
		p.queue = append(p.queue, Need{From: o, Chain: chain, Name: name})
		p.pending++
	}
	wake := len(o.Needed)
	if worker {
		wake--
	}
	for range min(wake, p.workers) {
		p.wake.Signal()
	}
}

// hold keeps the workers waiting for more even when the queue runs dry:
// objects are still being read elsewhere. done ends the hold.
func (p *prefetch) hold() {
	p.mu.Lock()
	p.pending++
	p.mu.Unlock()
}

// done ends one pending item (a need or a hold), and wakes the workers to
// leave at the last.
func (p *prefetch) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending--; p.pending == 0 {
		p.wake.Broadcast()
	}
}

// wait returns once nothing is pending: the closure is read.
func (p *prefetch) wait() { p.wg.Wait() }

func (p *prefetch) work() {
	for {
		p.mu.Lock()
		for len(p.queue) == 0 && p.pending > 0 {
			p.wake.Wait()
		}
		if len(p.queue) == 0 {
			p.mu.Unlock()
			return
		}
		n := p.queue[0]
		p.queue = p.queue[1:]
		narrow := p.workers < procs.Max()
		p.mu.Unlock()
		if res := p.l.Resolve(n.From, n.Chain, n.Name); res.Object != nil {
			// The chain matters for its DT_RPATH only (as chain's in
			// process.go): nil while no loader has one.
			var c []*elfobj.Object
			if n.Chain != nil || len(n.From.Rpath) > 0 {
				c = append([]*elfobj.Object{n.From}, n.Chain...)
			}
			p.visit(res.Object, c, true)
		}
		if narrow {
			p.widen()
		}
		p.done()
	}
}

// Need is one DT_NEEDED entry to resolve.
type Need struct {
	From  *elfobj.Object
	Chain []*elfobj.Object
	Name  string
}

// Failures lists system files the search found but could not read.
func (l *Loader) Failures() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, err := range l.failed {
		errs = append(errs, err)
	}
	return errs
}

// expand substitutes ld.so's dynamic string tokens. $ORIGIN is the directory
// of the object, in the wheel's namespace for wheel entries.
//
// Tokens are replaced in one pass, left to right, the first listed
// spelling winning at a position (as a strings.Replacer of them would,
// without building one per search directory).
func expand(s string, o *elfobj.Object) string {
	i := strings.IndexByte(s, '$')
	if i < 0 {
		return s
	}
	var b strings.Builder
	for ; i >= 0; i = strings.IndexByte(s, '$') {
		b.WriteString(s[:i])
		s = s[i:]
		n := 1 // a '$' that starts no token stays
		for _, t := range dynTokens {
			if strings.HasPrefix(s, t.name) {
				b.WriteString(t.value(o))
				n = len(t.name)
				break
			}
		}
		if n == 1 {
			b.WriteByte('$')
		}
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// dynTokens are ld.so's dynamic string tokens, each spelling.
var dynTokens = []struct {
	name  string
	value func(*elfobj.Object) string
}{
	{"${ORIGIN}", func(o *elfobj.Object) string { return o.Dir }}, {"$ORIGIN", func(o *elfobj.Object) string { return o.Dir }},
	{"${LIB}", libToken}, {"$LIB", libToken},
	{"${PLATFORM}", (*elfobj.Object).MachineName}, {"$PLATFORM", (*elfobj.Object).MachineName},
}

// libToken is what Debian's ld.so substitutes for $LIB: the multiarch directory.
func libToken(o *elfobj.Object) string {
	if t := triplet(o.Machine); t != "" {
		return "lib/" + t
	}
	return "lib"
}

// joinDir joins a search directory and a library name, keeping a wheel's
// "wheel.whl!" prefix out of path cleaning so that ".." cannot climb through it.
func joinDir(dir, name string) string {
	if i := strings.Index(dir, "!"); i >= 0 {
		inner := path.Clean(path.Join(dir[i+1:], name))
		if inner == ".." || strings.HasPrefix(inner, "../") {
			return "" // climbs out of the wheel: where it lands depends on the install
		}
		return dir[:i+1] + inner
	}
	return filepath.Join(dir, name)
}

// DefaultDirs are the directories Debian's ld.so searches last for a machine.
func DefaultDirs(m elf.Machine, c elf.Class) []string {
	var dirs []string
	if t := triplet(m); t != "" {
		dirs = append(dirs, "/lib/"+t, "/usr/lib/"+t)
	}
	dirs = append(dirs, "/lib", "/usr/lib")
	if c == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	}
	return dirs
}

func triplet(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64-linux-gnu"
	case elf.EM_AARCH64:
		return "aarch64-linux-gnu"
	case elf.EM_386:
		return "i386-linux-gnu"
	case elf.EM_ARM:
		return "arm-linux-gnueabihf"
	case elf.EM_PPC64:
		return "powerpc64le-linux-gnu"
	case elf.EM_S390:
		return "s390x-linux-gnu"
	case elf.EM_RISCV:
		return "riscv64-linux-gnu"
	}
	return ""
}

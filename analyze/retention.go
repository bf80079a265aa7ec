package analyze

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/linkline"
	"github.com/etlink/etlink/linkmap"
	"github.com/etlink/etlink/pylocate"
	"github.com/etlink/etlink/symset"
)

// LinkFacts is what one link does with the registrations on its line.
type LinkFacts struct {
	Link *linkline.Link
	// Map is the link's map file, nil when none was found.
	Map *linkmap.Map
	// Output is the produced file, nil when it does not exist (yet).
	Output *elfobj.Object
	// Linker is bfd, gold, lld or mold: from -fuse-ld, the map's format, or
	// the driver's default (bfd).
	Linker string
	// Libraries are the shared libraries on the line whose initializers
	// register something.
	Libraries []LibraryFate
	// Members are the archive members whose initializers register something.
	Members []MemberFate
	// Splits are the registries defined by more than one object of the
	// output's process, and where each registration lands (the output must
	// exist).
	Splits []Split
	// Doubles are registering units whose initializer runs twice in the
	// output's process into one registry (the output must exist).
	Doubles []Double
	// Unread are inputs that could not be read; the facts above do without them.
	Unread []error
	// LoadSet is the output and its DT_NEEDED closure, in the order the
	// loader maps them, when the output exists; else the shared libraries
	// the link is predicted to record in DT_NEEDED.
	LoadSet []*elfobj.Object
	// Extension says why the output is a Python extension module, "" when
	// it is none: it exports PyInit_ (the output, or one of the link's
	// objects when it is not built), CMake made it with a Python module
	// helper, or it is named like one.
	Extension string
	// Stale is the File API reply the link was read from when it is older
	// than the CMake sources: its CMakeLists.txt lines are unverified.
	Stale   *StaleReply
	process *Process
	r       *Retention
	// callees is what the link knows of initializers' callees; units the
	// registering objects on the line.
	callees Callees
	units   []Copy
}

// Ref is a reference: a symbol and the file that needs it.
type Ref struct {
	Symbol string
	File   string
	// needs is the DT_NEEDED list of File when it is a shared library: a
	// library it lists is loaded through it, so its references do not make
	// the linker record that library again.
	needs []string
	// cmdline marks a symbol the link line makes undefined (-u,
	// --undefined, --require-defined) rather than a file's reference.
	cmdline bool
}

// cmdlineRef is what a -u anchor's references say they come from.
const cmdlineRef = "the link line (-u, --undefined)"

// LibraryFate says whether a registering shared library reaches DT_NEEDED.
type LibraryFate struct {
	Input         linkline.Input
	Object        *elfobj.Object
	Registrations []Registration
	// Undecided says why etlink could not decide whether a library in
	// which it found no registration registers ("" when it could).
	Undecided string
	Kept      bool
	// Observed is true when Kept was read from the output's DT_NEEDED,
	// false when it is predicted from the inputs.
	Observed bool
	// Predicted is what the model of the linker says, also when observed.
	Predicted bool
	// RefBy are the references that keep it: predicted, or from the map.
	RefBy   []Ref
	MapLine int
	// Into is the object whose registration function the initializer's
	// call binds to in the output's process: the registry copy it fills.
	Into *elfobj.Object
	// LoadedBy is, for a library left out of the output's DT_NEEDED, a
	// library of the output's closure whose own DT_NEEDED loads it: its
	// initializer runs all the same (throughOthers).
	LoadedBy *elfobj.Object
}

// MemberFate says whether a registering archive member is extracted.
type MemberFate struct {
	Input         linkline.Input // the archive
	Object        *elfobj.Object // the member
	Registrations []Registration
	Undecided     string // as LibraryFate.Undecided
	// CarriedBy is a library of the output's load set that carries the
	// same registering unit, or a kept unit that carries the guarded
	// initialization that registers (CarriedGuard, its guard variable):
	// not extracted, its registrations still run.
	CarriedBy    *elfobj.Object
	CarriedGuard string
	Extracted    bool
	Observed     bool // from the map, not predicted
	Predicted    bool
	RefBy        []Ref
	MapLine      int
	Into         *elfobj.Object // as LibraryFate.Into
}

// Retention reads link inputs (cached across links: many links share a
// library) and decides what each link keeps.
type Retention struct {
	Patterns *Patterns
	Loader   *Loader
	mu       sync.Mutex
	cache    map[string]readResult
	code     *codeCache
	produced producers
}

type readResult struct {
	objs []*elfobj.Object
	err  error
}

// NewRetention returns an engine that matches registrations with p and
// resolves output load sets with l.
func NewRetention(p *Patterns, l *Loader) *Retention {
	// The load sets' libraries are read with their initializers once, by
	// the loader that finds them, and with their relocations: a backend
	// linked -Bsymbolic calls its own registry copy without the loader.
	l.Read.Initializers = true
	l.Read.References = true
	return &Retention{Patterns: p, Loader: l, cache: map[string]readResult{}, code: newCodeCache()}
}

// Close closes the files the engine keeps open for reading methods' code.
func (r *Retention) Close() { r.code.close() }

// read returns the objects of an input file: one, or an archive's members.
func (r *Retention) read(path string) ([]*elfobj.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if res, ok := r.cache[path]; ok {
		return res.objs, res.err
	}
	if strings.Contains(filepath.Base(path), ".so") {
		// A shared library is read once, by the loader, also when it is
		// both on the line and in an output's load set (libLLVM's
		// hundreds of initializers decoded once, not twice).
		if o := r.Loader.lookup(path); o != nil {
			r.cache[path] = readResult{objs: []*elfobj.Object{o}}
			return r.cache[path].objs, nil
		}
	}
	objs, errs := elfobj.Open([]string{path}, elfobj.Options{Initializers: true, Workers: 1, Budget: r.Loader.Read.Budget, Procs: r.Loader.Read.Procs})
	var err error
	if len(errs) > 0 {
		err = errs[0]
	}
	r.cache[path] = readResult{objs, err}
	return objs, err
}

// Analyze decides, for one link, the fate of every registering library and
// archive member, observed from the output and map where they exist and
// predicted from the inputs otherwise (and alongside, for comparison).
func (r *Retention) Analyze(link *linkline.Link, m *linkmap.Map) *LinkFacts {
	f := &LinkFacts{Link: link, Map: m, Linker: linkerOf(link, m), r: r}
	if out := abs(link.Dir, link.Output); out != "" {
		if _, err := os.Stat(out); err == nil {
			// Read as the loader reads the libraries it finds: the output
			// is one of them for the links that load it.
			if o, err := elfobj.OpenFile(out, "", r.Loader.Read); err == nil {
				f.Output = o
			} else {
				f.Unread = append(f.Unread, err)
			}
		}
	}
	newLinkSim(r, f).run()
	f.observe()
	f.Extension = f.extension()
	if f.Output != nil {
		r.load(f)
	}
	r.throughOthers(f)
	r.registries(f)
	defer r.guardCarriers(f)
	if f.process != nil {
		units, libs := r.processCopies(f)
		f.Doubles = r.doubles(f, units, libs)
		f.Splits = r.splits(f, units, libs)
	}
	return f
}

// load maps the output and its DT_NEEDED closure as the loader would: an
// executable's closure is the global scope, a module is dlopened.
func (r *Retention) load(f *LinkFacts) {
	r.Loader.Add(f.Output)
	f.process = NewProcess(r.Loader)
	f.LoadSet = f.process.Dlopen(f.Output, f.Output.Type == elf.ET_EXEC || !IsExtension(f.Output))
}

// throughOthers records, for each registering library the link leaves out
// of DT_NEEDED, the library of the output's closure (observed, else the
// closure of the libraries predicted kept) whose DT_NEEDED loads it anyway:
// ExecuTorch's executor_runner drops libexecutorch.so under --as-needed and
// loads it through the XNNPACK backend, and its initializer runs.
func (r *Retention) throughOthers(f *LinkFacts) {
	dropped := map[string]*LibraryFate{}
	for i := range f.Libraries {
		if lf := &f.Libraries[i]; !lf.Kept {
			dropped[realFile(lf.Object)] = lf
		}
	}
	if len(dropped) == 0 {
		return
	}
	p := f.process
	if p == nil {
		p = NewProcess(r.Loader)
		for _, o := range f.LoadSet {
			p.Dlopen(o, false)
		}
	}
	for _, from := range p.Order {
		for _, d := range p.Deps[from] {
			if d.Object == nil || d.Object == from {
				continue
			}
			if lf := dropped[realFile(d.Object)]; lf != nil && lf.LoadedBy == nil {
				lf.LoadedBy = from
			}
		}
	}
}

// registries records which registry copy each kept registration fills.
func (r *Retention) registries(f *LinkFacts) {
	if f.process == nil {
		return
	}
	var names symset.Set
	for _, lf := range f.Libraries {
		for _, reg := range lf.Registrations {
			names.Add(reg.Call)
		}
	}
	for _, mf := range f.Members {
		for _, reg := range mf.Registrations {
			names.Add(reg.Call)
		}
	}
	defs := Index(f.LoadSet, &names)
	for i := range f.Libraries {
		lf := &f.Libraries[i]
		if lf.Kept && len(lf.Registrations) > 0 {
			lf.Into = f.process.Bind(defs, f.loaded(lf.Object), lf.Registrations[0].Call, "")
		}
	}
	for i := range f.Members {
		mf := &f.Members[i]
		if mf.Extracted && len(mf.Registrations) > 0 {
			mf.Into = f.process.Bind(defs, f.Output, mf.Registrations[0].Call, "")
		}
	}
}

// extension says why the link's output is a Python extension module, or
// "" (LinkFacts.Extension). A module is what it is, whatever its name:
// pybind11 with OUTPUT_NAME or SUFFIX changed is still one.
func (f *LinkFacts) extension() string {
	l := f.Link
	if !l.Shared {
		return ""
	}
	if f.Output != nil {
		if s := pyInit(f.Output); s != "" {
			return f.Output.Path + " exports " + s
		}
	}
	if l.PythonModule {
		return "CMake made target " + l.Target + " with a Python module helper"
	}
	if f.Output == nil {
		for _, in := range l.Inputs {
			if in.Kind != linkline.KindObject || in.Path == "" {
				continue
			}
			if objs, err := f.r.read(abs(l.Dir, in.Path)); err == nil && len(objs) == 1 {
				if s := pyInit(objs[0]); s != "" {
					return in.Path + " defines " + s
				}
			}
		}
	}
	base := filepath.Base(l.Output)
	if pylocate.IsExtensionName(base) {
		return base + " is named like an extension module"
	}
	if l.Target != "" && strings.HasSuffix(base, ".so") && !strings.HasPrefix(base, "lib") {
		// CMake names a SHARED library libNAME.so unless PREFIX is "".
		return fmt.Sprintf("CMake names target %s %s, without its lib prefix (PREFIX \"\"): the file import %s loads", l.Target, base, strings.TrimSuffix(base, ".so"))
	}
	return ""
}

// pyInit is the PyInit_ function o exports, or "".
func pyInit(o *elfobj.Object) string {
	for i := range o.Symbols {
		if s := &o.Symbols[i]; strings.HasPrefix(s.Name, "PyInit_") && s.Defined() && s.Binding() != elf.STB_LOCAL {
			return s.Name
		}
	}
	return ""
}

// LibraryKept says whether the link records the shared library input in
// DT_NEEDED: read from the output when it exists (observed), else from the
// libraries the link is predicted to keep. known is false when the input
// cannot be read.
func (f *LinkFacts) LibraryKept(in linkline.Input) (kept, observed, known bool) {
	if in.Kind != linkline.KindShared || in.Path == "" {
		return false, false, false
	}
	objs, err := f.r.read(abs(f.Link.Dir, in.Path))
	if err != nil || len(objs) != 1 {
		return false, false, false
	}
	o := objs[0]
	if f.Output != nil {
		return slices.Contains(f.Output.Needed, neededName(o)), true, true
	}
	for _, q := range f.LoadSet {
		if q == o {
			return true, false, true
		}
	}
	return false, false, true
}

// Patterns are the registration patterns the link was read with (one set
// for a session's links).
func (f *LinkFacts) Patterns() *Patterns { return f.r.Patterns }

// ProjectBuilt reports whether an input of the link is built by the project
// rather than installed: a target of the build (File API), an object file,
// a path written relative to the command's directory, or a file below that
// directory (the build tree, where a log names inputs by absolute path).
func (f *LinkFacts) ProjectBuilt(in linkline.Input) bool {
	if in.Target != "" || in.Kind == linkline.KindObject {
		return true
	}
	if !strings.HasPrefix(in.Arg, "-l") && !filepath.IsAbs(in.Arg) {
		return true
	}
	// Compared as real files: the build directory given through a symlink
	// while CMake wrote its real path into -L and absolute arguments.
	dir := realPath(f.Link.Dir)
	p := realPath(abs(f.Link.Dir, in.Path))
	return filepath.IsAbs(dir) && dir != "/" && strings.HasPrefix(p, dir+"/")
}

// NotBuilt reports whether an input is one the project builds whose file
// does not exist yet (a tree configured and not built, or not fully): what
// it registers cannot be read, so nothing is decided about it.
func (f *LinkFacts) NotBuilt(in linkline.Input) bool {
	if in.Implicit {
		return false
	}
	p := in.Path
	if p == "" { // not found: the path as written
		p = in.Arg
	}
	if strings.HasPrefix(p, "-") {
		return in.Target != "" // a target's -l the link could not find
	}
	// The file first: a built tree's inputs all exist, and ProjectBuilt
	// resolves symbolic links.
	_, err := os.Stat(abs(f.Link.Dir, p))
	return errors.Is(err, fs.ErrNotExist) && f.ProjectBuilt(in)
}

// loaded returns the load-set object that is the same file as o (the loader
// and the link read it under different names), or o.
func (f *LinkFacts) loaded(o *elfobj.Object) *elfobj.Object {
	for _, q := range f.LoadSet {
		if q == o || sameFile(q.Path, o.Path) {
			return q
		}
	}
	return o
}

func abs(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// linkerOf names the linker that ran: -fuse-ld, the map's format, or bfd
// (what gcc and g++ run by default on Linux).
func linkerOf(l *linkline.Link, m *linkmap.Map) string {
	switch name := strings.TrimPrefix(filepath.Base(l.Linker), "ld."); {
	case name == "bfd", name == "gold", name == "lld", name == "mold":
		return name
	case strings.Contains(name, "lld"):
		return "lld"
	case strings.Contains(name, "mold"):
		return "mold"
	case strings.Contains(name, "gold"):
		return "gold"
	}
	if m != nil {
		return m.Format.String()
	}
	return "bfd"
}

// linkSim replays symbol resolution over the inputs in order.
//
// The model: regular objects are always loaded; an archive member is
// extracted when --whole-archive is in force or it defines a symbol that is
// undefined at that point (archives are rescanned until nothing more is
// pulled, and a --start-group rescans the group); a shared library under
// --as-needed is kept when it defines a non-weak undefined symbol that
// nothing earlier defines, referenced by a regular object. GNU ld (bfd)
// decides both at the input's position on the line, from what came before;
// gold extracts archive members at their position too but decides
// as-needed libraries after reading everything; lld and mold decide both
// from the whole link. Only bfd also counts a reference from a kept shared
// library (one that does not list the library in its own DT_NEEDED): with
// gold, lld and mold a backend referenced only by another shared library is
// dropped (pinned by the retention matrix test, consumer_shlib_ref). A
// symbol the line makes undefined (-u, --undefined, --require-defined) is
// undefined from the start: every linker extracts the archive member that
// defines it, and only mold also keeps an --as-needed library for it
// (consumer_anchor_undefined). Not modelled: references from shared libraries
// pulling archive members, symbol versions, and linker scripts (Debian's
// libc.so): implicit driver inputs only carry the state.
type linkSim struct {
	r *Retention
	f *LinkFacts
	// positionalArchives and positionalShared say whether archive members
	// and as-needed libraries are decided where they stand on the line;
	// sharedRefs whether shared libraries' references keep libraries.
	positionalArchives, positionalShared, sharedRefs bool
	// cmdlineKeeps says whether a -u symbol keeps an --as-needed library.
	cmdlineKeeps bool
	defined      map[string]bool
	// runtime says which callees a runtime library defines, from the
	// link's inputs.
	runtime   *definers
	undef     map[string]Ref // non-weak undefined so far, with the first file needing it
	weakUndef map[string]Ref
	kept      map[*elfobj.Object][]Ref
	// members are the archive members offered to the link, by real file
	// and name, in the order first offered.
	members     map[memberKey]*memberOcc
	memberOrder []memberKey
}

type loadedInput struct {
	in   linkline.Input
	objs []*elfobj.Object
}

func newLinkSim(r *Retention, f *LinkFacts) *linkSim {
	return &linkSim{r: r, f: f,
		positionalArchives: f.Linker == "bfd" || f.Linker == "gold",
		positionalShared:   f.Linker == "bfd",
		sharedRefs:         f.Linker == "bfd",
		cmdlineKeeps:       f.Linker == "mold",
		defined:            map[string]bool{}, undef: map[string]Ref{}, weakUndef: map[string]Ref{},
		kept: map[*elfobj.Object][]Ref{}, members: map[memberKey]*memberOcc{}}
}

func (s *linkSim) run() {
	for _, sym := range s.f.Link.Undefined {
		s.undef[sym] = Ref{Symbol: sym, File: cmdlineRef, cmdline: true}
	}
	var inputs []loadedInput
	var scripts []string
	for _, in := range s.f.Link.Inputs {
		if in.Kind == linkline.KindScript && in.Path != "" {
			scripts = append(scripts, abs(s.f.Link.Dir, in.Path))
		}
		if in.Path == "" || (in.Kind != linkline.KindObject && in.Kind != linkline.KindArchive && in.Kind != linkline.KindShared) {
			continue
		}
		objs, err := s.r.read(abs(s.f.Link.Dir, in.Path))
		if err != nil {
			if !in.Implicit {
				s.f.Unread = append(s.f.Unread, err)
			}
			continue
		}
		if len(objs) > 0 {
			inputs = append(inputs, loadedInput{in, objs})
		}
	}
	s.runtime = newDefiners(inputs, scripts, s.r.read, s.r.code)
	s.f.callees = s.runtime
	for i, li := range inputs {
		if li.in.Kind == linkline.KindObject {
			regs := s.r.Patterns.Registrations(li.objs[0], s.runtime)
			s.f.units = append(s.f.units, byInitializer(li.objs[0], &inputs[i].in, regs)...)
		}
	}
	if !s.positionalArchives {
		s.loadStatic(inputs)
	}
	var shared []loadedInput
	for i := 0; i < len(inputs); i++ {
		li := inputs[i]
		switch li.in.Kind {
		case linkline.KindObject:
			if s.positionalArchives {
				s.load(li.objs[0], nil)
			}
		case linkline.KindArchive:
			if s.positionalArchives {
				end := i
				if g := li.in.State.Group; g > 0 {
					for end+1 < len(inputs) && inputs[end+1].in.State.Group == g {
						end++
					}
				}
				s.extract(inputs[i : end+1])
				i = end
			}
		case linkline.KindShared:
			if s.positionalShared {
				s.decide(li)
			}
			shared = append(shared, li)
		}
	}
	if !s.positionalShared {
		// Keep libraries until no kept library's references keep another.
		for changed := true; changed; {
			changed = false
			for _, li := range shared {
				if _, ok := s.kept[li.objs[0]]; !ok && s.decide(li) {
					changed = true
				}
			}
		}
	}
	for _, li := range onePerFile(shared, s.kept) {
		s.record(li)
		if _, ok := s.kept[li.objs[0]]; ok {
			s.f.LoadSet = append(s.f.LoadSet, li.objs[0])
		}
	}
	s.memberFates()
}

// loadStatic loads every object and extracts archive members to a fixed point.
func (s *linkSim) loadStatic(inputs []loadedInput) {
	var archives []loadedInput
	for _, li := range inputs {
		switch li.in.Kind {
		case linkline.KindObject:
			s.load(li.objs[0], nil)
		case linkline.KindArchive:
			archives = append(archives, li)
		}
	}
	s.extract(archives)
}

// load adds an object's definitions and references. needs is the object's
// DT_NEEDED list when it is a shared library.
func (s *linkSim) load(o *elfobj.Object, needs []string) {
	for i := range o.Symbols {
		sym := &o.Symbols[i]
		if sym.Name == "" {
			continue
		}
		if sym.Defined() {
			if o.Type == elf.ET_DYN && !sym.Exported() {
				continue
			}
			s.defined[sym.Name] = true
			delete(s.undef, sym.Name)
			delete(s.weakUndef, sym.Name)
			continue
		}
		if s.defined[sym.Name] {
			continue
		}
		ref := Ref{Symbol: sym.Name, File: o.Path, needs: needs}
		if sym.Binding() == elf.STB_WEAK {
			if _, ok := s.weakUndef[sym.Name]; !ok {
				s.weakUndef[sym.Name] = ref
			}
		} else if _, ok := s.undef[sym.Name]; !ok {
			s.undef[sym.Name] = ref
		}
	}
}

// define adds a shared library's exported definitions only.
func (s *linkSim) define(o *elfobj.Object) {
	for i := range o.Symbols {
		if sym := &o.Symbols[i]; sym.Exported() {
			s.defined[sym.Name] = true
			delete(s.undef, sym.Name)
			delete(s.weakUndef, sym.Name)
		}
	}
}

// extract pulls archive members until no member of archives defines an
// undefined symbol. An archive named twice (ExecuTorch names its
// registration archives by an absolute path under --whole-archive and
// again plainly by a relative one) is one file: a member is extracted
// once, at whichever occurrence takes it (s.members, across the calls for
// a positional linker), and has one fate (memberFates).
func (s *linkSim) extract(archives []loadedInput) {
	for changed := true; changed; {
		changed = false
		for _, li := range archives {
			for _, m := range li.objs {
				mo := s.member(li, m)
				if mo.extracted {
					continue
				}
				if li.in.State.WholeArchive {
					mo.extracted, mo.whole, mo.in = true, true, li.in
					s.load(m, nil)
					changed = true
					continue
				}
				if ref, ok := s.pulls(m); ok {
					mo.extracted, mo.ref, mo.in = true, ref, li.in
					s.load(m, nil)
					changed = true
				}
			}
		}
	}
}

// memberKey names an archive member by its archive's real file, however
// the line spells the path.
type memberKey struct{ file, member string }

// memberOcc is what the link did with one archive member: the occurrence
// that extracted it (in), else the first that offered it.
type memberOcc struct {
	obj              *elfobj.Object
	in               linkline.Input
	extracted, whole bool
	ref              Ref
}

// member is m's record, made at its first occurrence.
func (s *linkSim) member(li loadedInput, m *elfobj.Object) *memberOcc {
	k := memberKey{realPath(m.Archive), m.Member}
	mo := s.members[k]
	if mo == nil {
		mo = &memberOcc{obj: m, in: li.in}
		s.members[k] = mo
		s.memberOrder = append(s.memberOrder, k)
	}
	return mo
}

// memberFates records the fate of every registering archive member, once
// per member, at the occurrence that extracted it or the first.
func (s *linkSim) memberFates() {
	for _, k := range s.memberOrder {
		mo := s.members[k]
		regs := s.r.Patterns.Registrations(mo.obj, s.runtime)
		why := ""
		if len(regs) == 0 {
			if why = undecided(mo.obj); why == "" {
				continue
			}
		}
		mf := MemberFate{Input: mo.in, Object: mo.obj, Registrations: regs, Undecided: why, Extracted: mo.extracted, Predicted: mo.extracted}
		if mo.extracted && !mo.whole {
			mf.RefBy = []Ref{mo.ref}
		}
		s.f.Members = append(s.f.Members, mf)
	}
}

// pulls reports whether member m defines a symbol that is undefined now.
func (s *linkSim) pulls(m *elfobj.Object) (Ref, bool) {
	for i := range m.Symbols {
		sym := &m.Symbols[i]
		if !sym.Defined() || sym.Binding() == elf.STB_LOCAL {
			continue
		}
		if ref, ok := s.undef[sym.Name]; ok {
			return ref, true
		}
	}
	return Ref{}, false
}

// decide keeps a shared library that is not under --as-needed or that
// defines a symbol something still needs, and then loads its definitions
// and references. It reports whether the library was kept.
func (s *linkSim) decide(li loadedInput) bool {
	o := li.objs[0]
	name := neededName(o)
	var refs []Ref
	for i := range o.Symbols {
		sym := &o.Symbols[i]
		if !sym.Exported() {
			continue
		}
		if ref, ok := s.undef[sym.Name]; ok && !slices.Contains(ref.needs, name) && (!ref.cmdline || s.cmdlineKeeps) {
			refs = append(refs, ref)
		}
	}
	if li.in.State.AsNeeded && len(refs) == 0 {
		return false
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Symbol < refs[j].Symbol })
	s.kept[o] = refs
	if s.sharedRefs {
		s.load(o, o.Needed)
	} else {
		s.define(o)
	}
	return true
}

// onePerFile keeps one occurrence of each shared library file the line
// names, however it is spelled (ExecuTorch names a backend by its absolute
// path inside a --no-as-needed option and again plainly): the one that kept
// it, else the first. The linker records a library once.
func onePerFile(shared []loadedInput, kept map[*elfobj.Object][]Ref) []loadedInput {
	var out []loadedInput
	at := map[string]int{}
	for _, li := range shared {
		_, k := kept[li.objs[0]]
		key := realFile(li.objs[0])
		i, seen := at[key]
		if !seen {
			at[key] = len(out)
			out = append(out, li)
			continue
		}
		if _, firstKept := kept[out[i].objs[0]]; k && !firstKept {
			out[i] = li
		}
	}
	return out
}

// record notes a registering shared library's predicted fate.
func (s *linkSim) record(li loadedInput) {
	o := li.objs[0]
	regs := s.r.Patterns.Registrations(o, s.runtime)
	why := ""
	if len(regs) == 0 {
		if why = undecided(o); why == "" {
			return
		}
	}
	refs, kept := s.kept[o]
	s.f.Libraries = append(s.f.Libraries, LibraryFate{Input: li.in, Object: o, Registrations: regs, Undecided: why,
		Kept: kept, Predicted: kept, RefBy: refs})
}

// observe overrides predictions with what the output and the map show.
func (f *LinkFacts) observe() {
	if f.Output != nil {
		needed := map[string]bool{}
		for _, n := range f.Output.Needed {
			needed[n] = true
		}
		for i := range f.Libraries {
			lf := &f.Libraries[i]
			lf.Kept, lf.Observed = needed[neededName(lf.Object)], true
		}
	}
	if f.Map == nil {
		f.observeInitializers()
		return
	}
	for i := range f.Libraries {
		lf := &f.Libraries[i]
		for _, k := range f.Map.AsNeeded {
			if sameFile(abs(f.Link.Dir, k.Library), lf.Object.Path) {
				lf.RefBy = []Ref{{Symbol: k.BySymbol, File: k.ByFile}}
				lf.MapLine = k.Line
			}
		}
	}
	for i := range f.Members {
		mf := &f.Members[i]
		mf.Observed, mf.Extracted = true, false
		for _, in := range f.Map.Loaded {
			if in.Member == mf.Object.Member && sameFile(abs(f.Link.Dir, in.Archive), mf.Object.Archive) {
				mf.Extracted, mf.MapLine = true, in.Line
			}
		}
		for _, x := range f.Map.Extracted {
			if x.Member == mf.Object.Member && sameFile(abs(f.Link.Dir, x.Archive), mf.Object.Archive) {
				mf.Extracted, mf.MapLine = true, x.Line
				if x.BySymbol != "" {
					mf.RefBy = []Ref{{Symbol: x.BySymbol, File: x.ByFile}}
				}
			}
		}
	}
}

// observeInitializers reads, without a map, whether a registering member
// was extracted from the output's own initializers: its static initializer
// (_GLOBAL__sub_I_register_kernels.cpp) is in the output's DT_INIT_ARRAY
// when it was. A stripped output names them by address only, and a member
// whose initializers have no name (LTO IR) cannot be looked for: the fate
// then stays predicted.
func (f *LinkFacts) observeInitializers() {
	if f.Output == nil {
		return
	}
	inits := map[string]bool{}
	for _, in := range f.Output.Initializers {
		if !strings.HasPrefix(in.Function, "0x") {
			inits[in.Function] = true
		}
	}
	if len(inits) == 0 {
		return
	}
	for i := range f.Members {
		mf := &f.Members[i]
		named := false
		for _, in := range mf.Object.Initializers {
			if !strings.HasPrefix(in.Function, "0x") {
				named = true
			}
		}
		if !named {
			continue
		}
		mf.Observed, mf.Extracted = true, false
		for _, in := range mf.Object.Initializers {
			mf.Extracted = mf.Extracted || inits[in.Function]
		}
	}
}

// neededName is the name a DT_NEEDED entry records for a library: its
// SONAME, or its file name when it has none.
func neededName(o *elfobj.Object) string {
	if o.Soname != "" {
		return o.Soname
	}
	return filepath.Base(o.Path)
}

// sameFile compares a path as a map prints it (made absolute against the
// link's directory: a relative one would otherwise be resolved against
// etlink's own working directory) with one etlink read: the same file, or
// failing that the same file name.
func sameFile(mapPath, path string) bool {
	if mapPath == path {
		return true
	}
	a, errA := filepath.EvalSymlinks(mapPath)
	b, errB := filepath.EvalSymlinks(path)
	if errA == nil && errB == nil {
		return a == b
	}
	return filepath.Base(mapPath) == filepath.Base(path)
}

package analyze

import (
	"debug/elf"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/symset"
)

// Def is one definition of a symbol.
type Def struct {
	Object *elfobj.Object
	Symbol *elfobj.Symbol
}

// Binding says where references from one object to a symbol go.
type Binding struct {
	Side string
	From *elfobj.Object
	// To is the object the reference binds to; nil when nothing in the
	// object's scope defines the symbol (or the object was never mapped).
	To *elfobj.Object
	// Own is the copy From's own link resolved the reference to, where it
	// binds when From is loaded alone (Loader.own); nil when From's own
	// dependencies define none.
	Own *elfobj.Object
	// Defines is true when From holds a definition of its own and refers
	// to it through the loader.
	Defines bool
}

// Interposed reports whether the reference binds to another definition
// than the one its own link resolved it to.
func (bd Binding) Interposed() bool { return bd.To != nil && bd.Own != nil && bd.To != bd.Own }

// Use says how a process uses the copies of a symbol several objects define.
type Use int

// The uses, least harmful first.
const (
	// Unused: at most one copy is bound by any reference in the process
	// (or the copies are never mapped together).
	Unused Use = iota
	// Separate: two or more copies are bound, each by the references
	// whose own link resolved to it: copies of code or state that live
	// side by side, each with its own users.
	Separate
	// Interposed: some reference binds to another copy than the one its
	// own link resolved it to: code built against one copy runs with the
	// other.
	Interposed
)

func (u Use) String() string {
	return [...]string{"unused", "separate", "interposed"}[u]
}

// classify grades bindings against the copies they are about, grouped in
// parties: the wheel's and the peer's definitions for ET301 (libblas and
// liblapack binding each other's weak xerbla_ is the peer's own affair),
// each shipped object its own party for ET302. A reference is interposed
// when it binds to another party's copy than its own link's; copies are
// separate when references bind to copies of two parties or more.
func classify(parties [][]Def, bs []Binding) Use {
	bound := 0 // the first party a reference binds to
	separate := false
	for _, bd := range bs {
		to, own := partyOf(parties, bd.To), partyOf(parties, bd.Own)
		if bd.Interposed() && to != 0 && own != 0 && to != own {
			return Interposed
		}
		if to != 0 && bound == 0 {
			bound = to
		}
		separate = separate || to != 0 && to != bound
	}
	if separate {
		return Separate
	}
	return Unused
}

// partyOf is the party (counting from 1) that o's definition is in, the
// last one that holds it; 0 for none. A party holds a few definitions: a
// scan costs less than a map.
func partyOf(parties [][]Def, o *elfobj.Object) int {
	if o == nil {
		return 0
	}
	for i := len(parties) - 1; i >= 0; i-- {
		for _, d := range parties[i] {
			if d.Object == o {
				return i + 1
			}
		}
	}
	return 0
}

// Conflict is a symbol exported by the wheel and by its peer.
type Conflict struct {
	Name  string
	Wheel []Def // definitions in the wheel's shipped shared objects
	// Peer are the definitions in the peer's closure: its own files and the
	// system libraries it loads, those the wheel's closure loads too
	// included (the wheel's copy and that file's are two definitions).
	Peer     []Def
	Bindings []Binding
	Use      Use
}

// Duplicate is a symbol exported by more than one shipped object that are
// mapped together in some process.
type Duplicate struct {
	Name string
	Defs []Def
	// Process names where the copies meet in the worst way: "python3" (the
	// interpreter importing the wheel) or an executable of the wheel.
	Process  string
	Bindings []Binding
	Use      Use
}

// Ignore reports whether a symbol name is meant to be defined in many places.
type Ignore func(name string) bool

// LinkerSymbol reports whether name is one the linker defines in every
// output, not the code. A switch, not a map: asked about every export of
// the wheel, it rules a long mangled name out by its length, unhashed.
func LinkerSymbol(name string) bool {
	switch name {
	case "_init", "_fini", "_edata", "_end", "__bss_start", "__bss_start__", "__bss_end__", "_bss_end__", "__end__",
		"__data_start", "data_start", "_IO_stdin_used", "__dso_handle", "__TMC_END__", "_GLOBAL_OFFSET_TABLE_", "_DYNAMIC", "_fp_hw",
		"__libc_csu_init", "__libc_csu_fini", "__exidx_start", "__exidx_end", "_PROCEDURE_LINKAGE_TABLE_", "__gmon_start__":
		return true
	}
	return false
}

// PerModule reports whether every extension module must define name for
// itself: Python finds a module's PyInit_ function with dlsym on that
// module's own handle, so two modules' copies never meet.
func PerModule(name string) bool { return strings.HasPrefix(name, "PyInit_") }

// exportsOf calls fn for each exported, not ignored symbol of a shared
// object that is a definition of its own: not an executable's (a program is
// never loaded beside the Python process), not a copy-relocated one.
func exportsOf(o *elfobj.Object, ignore Ignore, fn func(s *elfobj.Symbol)) {
	if o.Type != elf.ET_DYN || o.Executable {
		return
	}
	eachExport(o, ignore, fn)
}

// eachExport calls fn for each exported symbol of o that is a definition
// of its own and may be compared with others.
func eachExport(o *elfobj.Object, ignore Ignore, fn func(s *elfobj.Symbol)) {
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Exported() && !s.Copied() && !LinkerSymbol(s.Name) && !PerModule(s.Name) && (ignore == nil || !ignore(s.Name)) {
			fn(s)
		}
	}
}

// ConflictNames is every name of the peer's symbols that Conflicts and the
// process model behind it look at, given the wheel's objects: the names the
// wheel exports (a peer symbol by another name is in no conflict, and no
// reference to it is asked about). Reading the peer and the libraries the
// loader finds with elfobj.Options{Only: ConflictNames(wheel), ModuleInit:
// true} (IsExtension asks for each file's PyInit_ function) gives Conflicts
// the same answer with a few thousand of the closure's hundreds of
// thousands of symbols.
func ConflictNames(wheel []*elfobj.Object) *symset.Set {
	names := &symset.Set{}
	names.Grow(exported(wheel))
	for _, o := range wheel {
		for i := range o.Symbols {
			if s := &o.Symbols[i]; s.Exported() {
				names.Add(s.Name)
			}
		}
	}
	return names
}

// exported counts the exported symbols of objs: the size of the maps
// that hold them by name.
func exported(objs []*elfobj.Object) int {
	n := 0
	for _, o := range objs {
		for i := range o.Symbols {
			if o.Symbols[i].Exported() {
				n++
			}
		}
	}
	return n
}

// PackageNames is what the release checks ask the closure about, given the
// wheel's objects: every symbol of ConflictNames, and the definitions of
// the other names the wheel leaves undefined (ET401 asks what defines each,
// in the closure and the interpreter's scope; which other library refers
// to malloc is nobody's question). Read with elfobj.Options{Only: names,
// OnlyDefs: defs}. What that leaves out could matter in one case only: a
// STB_GNU_UNIQUE name the wheel leaves undefined and its own tree does not
// define, defined by two objects of the process, whose first reference in
// relocation order is another library's; ET401 then names the copy the
// references it has (the wheel's, the definers') bind to.
func PackageNames(wheel []*elfobj.Object) (names, defs *symset.Set) {
	names, defs = ConflictNames(wheel), &symset.Set{}
	for _, o := range wheel {
		for i := range o.Symbols {
			if s := &o.Symbols[i]; !s.Defined() && s.Name != "" && !names.Has(s.Name) {
				defs.Add(s.Name)
			}
		}
	}
	return names, defs
}

// Conflicts lists the symbols both the wheel's shipped shared objects and the
// peer's closure export, names compared without versions, sorted by name.
// A file both closures load (libstdc++.so.6, libgomp) is a side like any
// other library of the peer's: it is mapped once, but a wheel object that
// exports the same symbols (a statically linked runtime) is a second
// definition. Only a wheel file the peer's closure itself reaches is one
// definition on both sides.
func (b *Build) Conflicts(ignore Ignore) []Conflict {
	if b.Peer == nil {
		return nil
	}
	// The wheel's names are numbered as met: ids and names map one to
	// the other, wheel and peer hold each one's definitions by number, and
	// the index of both closures (indexNames) numbers them alike.
	n := exported(b.Wheel.Inputs)
	ids, wheel := newNameIDs(n), make([][]Def, 0, n)
	slab := make([]Def, 0, 2*n) // every name's first definition on each side
	for _, o := range b.Wheel.Inputs {
		if b.Peer.Has(o) || slices.Contains(b.Wheel.OtherPython, o) {
			continue
		}
		exportsOf(o, ignore, func(s *elfobj.Symbol) {
			id, added := ids.add(s.Name)
			if added {
				wheel = append(wheel, nil)
			}
			wheel[id] = addDef(&slab, wheel[id], o, s)
		})
	}
	names := ids.names
	peer := make([][]Def, len(names))
	for _, o := range b.Peer.Closure {
		if o.Type != elf.ET_DYN || o.Executable || b.Wheel.Shipped(o) {
			continue
		}
		// The wheel's names are already filtered (no linker symbols, none
		// ignored): being one is enough. The commands read the closure
		// keeping the wheel's names only (ConflictNames, PackageNames), so
		// most of what is asked is in it: no filter in front of the map.
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if !s.Exported() || s.Copied() {
				continue
			}
			if id, ok := ids.lookup(s.Name); ok {
				peer[id] = addDef(&slab, peer[id], o, s)
			}
		}
	}
	var both []int32 // the names defined on both sides, by name
	for id := range peer {
		if len(peer[id]) > 0 {
			both = append(both, int32(id))
		}
	}
	sortByName(both, names, 0)
	out := make([]Conflict, len(both))
	var definers []*elfobj.Object
	seen := map[*elfobj.Object]bool{}
	for i, id := range both {
		out[i] = Conflict{Name: names[id], Wheel: wheel[id], Peer: peer[id]}
		if AllVague(out[i].Wheel, out[i].Peer) {
			continue // ordinary C++ whoever binds where: not worth a read
		}
		for _, d := range out[i].Peer {
			if !seen[d.Object] {
				seen[d.Object] = true
				definers = append(definers, d.Object)
			}
		}
	}
	readReferences(definers)
	var objs []*elfobj.Object
	objs = append(objs, b.Process.Order...)
	objs = append(objs, b.Wheel.Closure...)
	objs = append(objs, b.Peer.Closure...)
	b.bind(out, indexNames(objs, ids), both)
	return out
}

// sortByName sorts ids by names[id], whose first depth bytes are the same:
// a multikey quicksort (Bentley and Sedgewick), which partitions on one
// byte at a time and so reads a shared prefix once per name, where a
// comparison sort compares it again for every pair. Mangled C++ names
// share long ones (_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcE...):
// sorting a bundled runtime's thousands of conflicts was a tenth of
// Conflicts. Names are distinct.
func sortByName(ids []int32, names []string, depth int) {
	for len(ids) > 16 {
		pivot := byteAt(names[ids[len(ids)/2]], depth)
		lt, i, gt := 0, 0, len(ids) // ids[:lt] < pivot, ids[gt:] > pivot
		for i < gt {
			switch c := byteAt(names[ids[i]], depth); {
			case c < pivot:
				ids[lt], ids[i] = ids[i], ids[lt]
				lt, i = lt+1, i+1
			case c > pivot:
				gt--
				ids[gt], ids[i] = ids[i], ids[gt]
			default:
				i++
			}
		}
		sortByName(ids[:lt], names, depth)
		sortByName(ids[gt:], names, depth)
		if pivot < 0 {
			return // a name that ends here: the only one
		}
		ids, depth = ids[lt:gt], depth+1
	}
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(names[a][depth:], names[b][depth:]) })
}

// byteAt is s[i], or -1 past its end (a name sorts before its extensions).
func byteAt(s string, i int) int {
	if i < len(s) {
		return int(s[i])
	}
	return -1
}

// AllVague reports whether every definition has vague linkage (weak or
// unique: template instances, inline functions), which the C++ ABI expects
// in many objects.
func AllVague(defs ...[]Def) bool {
	for _, ds := range defs {
		for _, d := range ds {
			if !d.Symbol.Vague() {
				return false
			}
		}
	}
	return true
}

// AllUnique reports whether every definition is STB_GNU_UNIQUE: the loader
// binds every reference in the process to one of them, the first found.
func AllUnique(defs ...[]Def) bool {
	for _, ds := range defs {
		for _, d := range ds {
			if !d.Symbol.Unique() {
				return false
			}
		}
	}
	return true
}

// readReferences reads the relocation flags of the peer's definers, which
// the closure was read without: whether a library uses its own copy
// through the loader decides whether that copy is bound at all, and so the
// grade of a conflict that is not vague linkage everywhere (only those are
// read: a vague conflict is a note however its copies are used). A file
// that cannot be read again keeps its flags unknown (taken as used).
func readReferences(objs []*elfobj.Object) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, o := range objs {
		if o.References {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			_ = o.ReadReferences()
		})
	}
	wg.Wait()
}

// addDef appends a definition, keeping one per object (the default version
// over a hidden one); a name's first starts in slab (appendIn).
func addDef(slab *[]Def, defs []Def, o *elfobj.Object, s *elfobj.Symbol) []Def {
	if n := len(defs); n > 0 && defs[n-1].Object == o {
		if defs[n-1].Symbol.Hidden() && !s.Hidden() {
			defs[n-1].Symbol = s
		}
		return defs
	}
	return appendIn(slab, defs, Def{Object: o, Symbol: s})
}

// bind records, for each conflict, where references from every object of
// both closures go in the simulated process, and where they would go on
// their own, and grades the conflict. defs indexes both closures; conflict
// i is the name numbered ids[i] in it.
func (b *Build) bind(cs []Conflict, defs *Definitions, ids []int32) {
	refs := 0
	for _, id := range ids {
		refs += len(defs.named[id].refs)
	}
	slab := make([]Binding, 0, refs) // every conflict's bindings in one allocation
	for i := range cs {
		c := &cs[i]
		at := len(slab)
		if slab = b.bindings(slab, b.Process, defs, ids[i]); len(slab) > at {
			c.Bindings = slab[at:len(slab):len(slab)]
		}
		c.Use = classify([][]Def{c.Wheel, c.Peer}, c.Bindings)
	}
}

// bindings appends to out where each reference to the name id goes in p:
// to its bound definition and, for comparison, its own. Executables do not
// take part in a process they do not run.
func (b *Build) bindings(out []Binding, p *Process, defs *Definitions, id int32) []Binding {
	for _, r := range defs.named[id].refs {
		if r.exe && r.Object != p.Exe {
			continue
		}
		bd := Binding{Side: b.sideOf(r.Object), From: r.Object, Defines: r.Defines}
		if p.Mapped(r.Object) {
			bd.To = p.bind(defs, id, r.Object, r.Version)
		}
		bd.Own = b.Loader.own(defs, id, r)
		out = append(out, bd)
	}
	return out
}

// sideOf names the party an object belongs to: the wheel for what it ships
// and what only its closure loads, the peer for the rest of the peer's
// closure (system libraries both load included), "python" for the
// interpreter's own.
func (b *Build) sideOf(o *elfobj.Object) string {
	switch {
	case b.Wheel.Shipped(o), b.Wheel.Has(o) && (b.Peer == nil || !b.Peer.Has(o)):
		return "wheel"
	case b.Peer != nil && b.Peer.Has(o):
		return b.Peer.Name
	}
	return "python"
}

// Duplicates lists the symbols exported by more than one of the wheel's
// shipped objects that some process maps together, sorted by name: the
// Python process that imports the wheel, or one of the wheel's executables
// (two executables never share a process). An executable's copy of a
// library's variable (a copy relocation) is not a definition, and PyInit_
// functions are per module.
func (b *Build) Duplicates(ignore Ignore) []Duplicate {
	var linked, exes []*elfobj.Object
	for _, o := range b.Wheel.Inputs {
		if o.Type != elf.ET_DYN && o.Type != elf.ET_EXEC {
			continue
		}
		linked = append(linked, o)
		if o.Executable {
			exes = append(exes, o)
		}
	}
	if len(linked) < 2 {
		return nil // one object: no name has two definers
	}
	n := exported(linked)
	by := make(map[string][]Def, n)
	slab := make([]Def, 0, n)
	for _, o := range linked {
		eachExport(o, ignore, func(s *elfobj.Symbol) { by[s.Name] = addDef(&slab, by[s.Name], o, s) })
	}
	var names symset.Set
	for name, defs := range by {
		if len(defs) > 1 {
			names.Add(name)
		}
	}
	procs := []*Process{b.Process}
	labels := []string{"python3"}
	if b.Process.Exe != nil {
		labels[0] = path.Base(b.Process.Exe.Path)
	}
	for _, e := range exes {
		p := NewProcess(b.Loader)
		p.Exec(e)
		procs = append(procs, p)
		labels = append(labels, e.Path)
	}
	var out []Duplicate
	for name, all := range by {
		if len(all) < 2 {
			continue
		}
		var best *Duplicate
		for i, p := range procs {
			d := b.duplicateIn(p, labels[i], name, all, &names)
			if d != nil && (best == nil || d.Use > best.Use) {
				best = d
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// duplicateIn is name's duplicate in p, when p maps two or more of its
// definers; nil otherwise.
func (b *Build) duplicateIn(p *Process, label, name string, all []Def, names *symset.Set) *Duplicate {
	var defs []Def
	for _, d := range all {
		if p.Mapped(d.Object) && (!d.Object.Executable || d.Object == p.Exe) {
			defs = append(defs, d)
		}
	}
	if len(defs) < 2 {
		return nil
	}
	idx := b.index(p, names)
	d := &Duplicate{Name: name, Defs: defs, Process: label}
	if id, ok := idx.ids.byName[name]; ok {
		d.Bindings = b.bindings(nil, p, idx, id)
	}
	parties := make([][]Def, len(defs))
	for i := range defs {
		parties[i] = defs[i : i+1]
	}
	d.Use = classify(parties, d.Bindings)
	return d
}

// index returns the definitions of names among what p maps and the wheel's
// closure, built once per process.
func (b *Build) index(p *Process, names *symset.Set) *Definitions {
	if b.indexes == nil {
		b.indexes = map[*Process]*Definitions{}
	}
	if d, ok := b.indexes[p]; ok {
		return d
	}
	d := Index(append(append([]*elfobj.Object(nil), p.Order...), b.Wheel.Closure...), names)
	b.indexes[p] = d
	return d
}

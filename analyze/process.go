package analyze

import (
	"debug/elf"
	"slices"

	"github.com/etlink/etlink/elfobj"
)

// Process simulates the dynamic loader of one process: which file each
// dlopen maps, and which definition a symbol reference binds to.
//
// The model is glibc's (elf/dl-open.c, elf/dl-lookup.c). The global scope
// is the executable's search list (python3 and its DT_NEEDED closure: libm,
// libz, libc, or libpython for an interpreter that links it) followed by
// every object opened RTLD_GLOBAL, in order. Each dlopen builds the
// breadth-first search list of its root and the root's DT_NEEDED
// dependencies; an object first mapped by that dlopen resolves its
// references in the global scope, then in that search list. A DT_NEEDED
// name that matches the SONAME (or the DT_NEEDED name) of an object already
// mapped reuses that object without any search: this is why auditwheel
// renames the libraries it grafts, and why a wheel's unrenamed copy of a
// library torch already loaded is never mapped. A reference from an object
// that defines the symbol with protected visibility binds to that object. A
// symbol bound with STB_GNU_UNIQUE has one definition per process whatever
// the scopes: the first one a lookup found, in relocation order (each
// dlopen's new objects relocated dependencies first), is the one every
// later reference gets. A versioned reference takes a definition of that
// version or an unversioned one; an unversioned reference never takes a
// hidden version.
//
// Simplified: an object already mapped by an earlier dlopen keeps the scope
// of the dlopen that mapped it (glibc may add later scopes to it, which only
// matters for symbols the first scope cannot resolve); lazy binding makes no
// difference to the outcome.
type Process struct {
	loader *Loader
	// Exe is the executable the process runs; nil when not known (then
	// the global scope holds only what was opened RTLD_GLOBAL).
	Exe *elfobj.Object
	// Global is the global scope in search order.
	Global []*elfobj.Object
	// Order lists every mapped object in mapping order.
	Order  []*elfobj.Object
	byName map[string]*elfobj.Object
	global map[*elfobj.Object]bool
	// opened says which dlopen (an index into lists; the executable's
	// start is the first) mapped each object, and pos where in Order.
	opened map[*elfobj.Object]int
	pos    map[*elfobj.Object]int
	lists  [][]*elfobj.Object
	// globalAt is, per dlopen, how much of Global existed when it ran:
	// with RTLD_NOW (Python's default) its objects were relocated then,
	// against that global scope, not against what later dlopens added.
	globalAt []int
	// unique caches uniqueOwner's answers.
	unique map[string]*elfobj.Object
	// Missing holds DT_NEEDED entries that could not be found.
	Missing []Edge
	// Deps holds each mapped object's DT_NEEDED entries, in order, and
	// where each led (ViaLoaded: to an object already mapped under that
	// name; no Object: not found). noDeps leaves Deps and Missing empty.
	Deps   map[*elfobj.Object][]Resolution
	noDeps bool
	// deps is where each object's Deps are carved from (depsRoom).
	deps []Resolution
	// parent is searchList's map of who loaded whom, kept for the next
	// search.
	parent map[*elfobj.Object]*elfobj.Object
}

// Edge is one DT_NEEDED entry and where it led.
type Edge struct {
	From *elfobj.Object
	Resolution
}

// NewProcess starts an empty process that finds files with l.
func NewProcess(l *Loader) *Process { return newProcess(l, 0) }

// newProcess is NewProcess with maps sized for n objects: a process that
// maps a side's closure (closureObjects).
func newProcess(l *Loader, n int) *Process {
	return &Process{
		loader: l,
		byName: make(map[string]*elfobj.Object, n),
		Deps:   make(map[*elfobj.Object][]Resolution, n),
		global: map[*elfobj.Object]bool{},
		opened: make(map[*elfobj.Object]int, n),
		pos:    make(map[*elfobj.Object]int, n),
		parent: make(map[*elfobj.Object]*elfobj.Object, n),
	}
}

// Exec starts the process with the executable exe, as the kernel and ld.so
// do: exe and its DT_NEEDED closure are mapped first and are the global
// scope every later lookup searches first.
func (p *Process) Exec(exe *elfobj.Object) {
	p.Exe = exe
	p.Dlopen(exe, true)
}

// Dlopen maps root and its dependencies as dlopen(root, RTLD_NOW|flags) does
// and returns root's search list.
func (p *Process) Dlopen(root *elfobj.Object, global bool) []*elfobj.Object {
	p.unique = nil // a dlopen can change which copy is first
	list := p.searchList(root)
	k := len(p.lists)
	p.lists = append(p.lists, list)
	p.globalAt = append(p.globalAt, len(p.Global))
	for _, o := range list {
		if _, ok := p.opened[o]; !ok {
			p.opened[o] = k
			p.pos[o] = len(p.Order)
			p.Order = append(p.Order, o)
		}
	}
	if global {
		for _, o := range list {
			if !p.global[o] {
				p.global[o] = true
				p.Global = append(p.Global, o)
			}
		}
	}
	return list
}

// searchList walks root's DT_NEEDED tree breadth first, reusing objects
// already mapped under the needed name.
func (p *Process) searchList(root *elfobj.Object) []*elfobj.Object {
	list := []*elfobj.Object{root}
	if p.parent == nil {
		p.parent = map[*elfobj.Object]*elfobj.Object{}
	}
	parent := p.parent // and which are in
	clear(parent)
	parent[root] = nil
	p.name(root, "")
	p.loader.Prefetch([]*elfobj.Object{root})
	for i := 0; i < len(list); i++ {
		o := list[i]
		walked, seen := p.Deps[o] // an earlier search's
		seen = seen || p.noDeps
		if !seen && len(o.Needed) > 0 {
			p.Deps[o] = p.depsRoom(len(o.Needed)) // each need appends one
		}
		var loaders []*elfobj.Object // chain(parent, o), once o needs a search
		searched := false
		for j, need := range o.Needed {
			dep := p.mapped(walked, j, need)
			if dep == nil {
				if !searched {
					loaders, searched = chain(parent, o), true
				}
				res := p.loader.Resolve(o, loaders, need)
				if !seen {
					p.Deps[o] = append(p.Deps[o], res)
				}
				if res.Object == nil {
					if !p.noDeps {
						p.Missing = append(p.Missing, Edge{From: o, Resolution: res})
					}
					continue
				}
				dep = res.Object
				p.name(dep, need)
			} else if !seen {
				p.Deps[o] = append(p.Deps[o], Resolution{Name: need, Object: dep, Via: ViaLoaded})
			}
			if _, in := parent[dep]; !in {
				parent[dep] = o
				list = append(list, dep)
			}
		}
	}
	return list
}

// depsRoom returns an empty slice with room for n Resolutions, carved out
// of a chunk that holds the Deps of many objects: torch's closure has
// three thousand DT_NEEDED entries in a few hundred objects, which cost
// an allocation each.
func (p *Process) depsRoom(n int) []Resolution {
	if cap(p.deps)-len(p.deps) < n {
		p.deps = make([]Resolution, 0, max(n, depsChunk))
	}
	at := len(p.deps)
	p.deps = p.deps[:at+n]
	return p.deps[at : at : at+n]
}

// depsChunk is how many Resolutions depsRoom allocates at a time (6 KB):
// a few chunks for torch's closure, little left unused by a small one.
const depsChunk = 64

// mapped is the object mapped under need, the j-th DT_NEEDED entry of an
// object an earlier search walked (walked: what it found for each): the
// one it found, which it named so (name); nil when none is.
func (p *Process) mapped(walked []Resolution, j int, need string) *elfobj.Object {
	if j < len(walked) && walked[j].Object != nil && need != "" {
		return walked[j].Object // as byName holds it: a search's dlopens map the tree again and again
	}
	return p.byName[need]
}

// name records the names under which later DT_NEEDED entries find o mapped.
func (p *Process) name(o *elfobj.Object, need string) {
	for _, n := range []string{need, o.Soname} {
		if _, taken := p.byName[n]; n != "" && !taken {
			p.byName[n] = o
		}
	}
}

// chain lists the objects that loaded o, nearest first: the DT_RPATH chain;
// nil when none of them has a DT_RPATH, which is then the same search.
func chain(parent map[*elfobj.Object]*elfobj.Object, o *elfobj.Object) []*elfobj.Object {
	rpath := false
	for q := parent[o]; q != nil && !rpath; q = parent[q] {
		rpath = len(q.Rpath) > 0
	}
	if !rpath {
		return nil
	}
	var c []*elfobj.Object
	for q := parent[o]; q != nil; q = parent[q] {
		c = append(c, q)
	}
	return c
}

// Mapped reports whether o was mapped into the process.
func (p *Process) Mapped(o *elfobj.Object) bool {
	_, ok := p.opened[o]
	return ok
}

// InGlobal reports whether o is in the global scope.
func (p *Process) InGlobal(o *elfobj.Object) bool { return p.global[o] }

// Scope is the lookup order for references from o: the global scope as it
// was when o was mapped and relocated, then the search list of the dlopen
// that mapped it.
func (p *Process) Scope(o *elfobj.Object) []*elfobj.Object {
	k, ok := p.opened[o]
	if !ok {
		return nil
	}
	return p.scope(k)
}

// scope is the lookup order of the objects the k-th dlopen mapped. It
// never changes: later dlopens add to Global past globalAt[k].
func (p *Process) scope(k int) []*elfobj.Object {
	global := p.Global[:p.globalAt[k]]
	out := append([]*elfobj.Object(nil), global...)
	for _, q := range p.lists[k] {
		if !slices.Contains(global, q) {
			out = append(out, q)
		}
	}
	return out
}

// relocatedBefore reports whether ld.so relocates a before b: dlopen by
// dlopen, and within one the new objects in reverse mapping order (a
// library before the objects that need it).
func (p *Process) relocatedBefore(a, b *elfobj.Object) bool {
	if p.opened[a] != p.opened[b] {
		return p.opened[a] < p.opened[b]
	}
	return p.pos[a] > p.pos[b]
}

// Definitions answers "which objects define this name, and which refer to
// it" for Bind; callers build it once for the names they ask about (Index).
// Index numbers the names and the objects it meets, so that what a search
// looks up for each reference is a slice index: not a hash of a mangled
// name, not a map of a scope's objects.
type Definitions struct {
	// ids numbers the names Index met: each one's place in named, so that
	// a symbol's name is hashed once however much Index records of it.
	ids   *nameIDs
	named []named
	// objs are the indexed objects, each once, and num each one's place in
	// objs: what a rank is indexed by.
	objs []*elfobj.Object
	num  map[*elfobj.Object]int32
	// versions lists the version of every definition an object has of a
	// name it defines more than once (libc's memcpy@GLIBC_2.2.5 and
	// memcpy@@GLIBC_2.14): a reference may ask for an old one. An object
	// with one definition has that one's version only, which named holds.
	versions map[definer][]string
	// scopes and trees are the ranks the searches asked for: each
	// process's dlopen scopes, and each object's own tree (by its number).
	scopes []scopeRanks
	trees  []rank
}

// rank holds, by object number, each indexed object's position in a search
// order counting from 1; 0 for one that is not in it.
type rank []int32

// scopeRanks are the ranks of one process's scopes, by dlopen.
type scopeRanks struct {
	p     *Process
	ranks []rank
}

// named is what Index found of one name.
type named struct {
	defs []definition // one per object, in the order Index met them
	refs []Reference
}

// definition is one object's exported definition of a name (its default
// version over a hidden one).
type definition struct {
	o   *elfobj.Object
	s   *elfobj.Symbol
	num int32 // o's number
	// What the searches ask of s for every reference, read while Index
	// has s at hand: whether o's own references bind to it (lookup),
	// whether it is STB_GNU_UNIQUE, whether its version is hidden.
	self, unique, hidden bool
}

func newDefinition(o *elfobj.Object, s *elfobj.Symbol, num int32) definition {
	return definition{o: o, s: s, num: num, self: s.Visibility() == elf.STV_PROTECTED || o.References && !s.Relocated(),
		unique: s.Unique(), hidden: s.Hidden()}
}

// definer is one object's definitions of one name.
type definer struct {
	id int32
	o  *elfobj.Object
}

// Reference is one object's reference to a symbol.
type Reference struct {
	Object  *elfobj.Object
	Version string // the version asked for; "" for none
	// Defines is true when Object holds a definition of its own and
	// refers to it through the loader (a relocation names it, or its
	// relocations were not read).
	Defines bool
	exe     bool  // Object.Executable, read while Index has Object at hand
	num     int32 // Object's number
}

// Of returns the exported definitions of name, by object.
func (d *Definitions) Of(name string) map[*elfobj.Object]*elfobj.Symbol {
	id, ok := d.ids.byName[name]
	if !ok {
		return nil
	}
	defs := d.named[id].defs
	of := make(map[*elfobj.Object]*elfobj.Symbol, len(defs))
	for _, def := range defs {
		of[def.o] = def.s
	}
	return of
}

// Refs returns the references to name, in the order Index met them.
func (d *Definitions) Refs(name string) []Reference {
	if id, ok := d.ids.byName[name]; ok {
		return d.named[id].refs
	}
	return nil
}

// Names are the symbol names Index is asked about: a symset.Set, or the
// keys of a map a caller holds them in already.
type Names interface {
	Has(name string) bool
	Len() int
}

// Index collects, from objs, the exported definitions of the given names
// and the references to them. Each object is indexed once.
func Index(objs []*elfobj.Object, names Names) *Definitions {
	d := newDefinitions(len(objs), names.Len())
	d.scan(objs, names)
	return d
}

// indexNames is Index of the names ids numbers: a caller that numbered
// them looks its names up by number.
func indexNames(objs []*elfobj.Object, ids *nameIDs) *Definitions {
	d := &Definitions{ids: ids, named: make([]named, len(ids.names)), num: make(map[*elfobj.Object]int32, len(objs))}
	d.scan(objs, nil)
	return d
}

// newDefinitions sizes what Index fills for at most objs objects and
// names names: each name once.
func newDefinitions(objs, names int) *Definitions {
	ids := &nameIDs{byName: make(map[string]int32, names), names: make([]string, 0, names)}
	return &Definitions{ids: ids, named: make([]named, 0, names), num: make(map[*elfobj.Object]int32, objs)}
}

func (d *Definitions) newName(name string) int32 {
	id, _ := d.ids.add(name)
	d.named = append(d.named, named{})
	return id
}

// scan indexes the symbols of objs by the names numbered so far and, when
// names is not nil, the others it has.
func (d *Definitions) scan(objs []*elfobj.Object, names Names) {
	// Every name's first definition and reference share two slabs: most
	// names have one of each, which then cost no allocation of their own.
	defs, refs := make([]definition, 0, len(d.named)), make([]Reference, 0, len(d.named))
	for _, o := range objs {
		if _, seen := d.num[o]; seen {
			continue
		}
		num := int32(len(d.objs))
		d.num[o] = num
		d.objs = append(d.objs, o)
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if s.Name == "" {
				continue
			}
			id, ok := d.ids.lookup(s.Name)
			if !ok {
				if names == nil || !names.Has(s.Name) {
					continue
				}
				id = d.newName(s.Name)
			}
			d.add(&defs, &refs, id, o, s, num)
		}
	}
}

// add indexes s, a symbol of o (numbered num), under its name's id: a
// definition, a reference, or both. defs and refs are scan's slabs.
func (d *Definitions) add(defs *[]definition, refs *[]Reference, id int32, o *elfobj.Object, s *elfobj.Symbol, num int32) {
	e := &d.named[id]
	switch {
	case !s.Defined():
		e.refer(refs, Reference{Object: o, Version: s.Version(), exe: o.Executable, num: num})
	case s.Exported():
		// Index adds one object's symbols before the next's: o's
		// definition, if any, is the last one.
		if n := len(e.defs); n > 0 && e.defs[n-1].o == o {
			prev := &e.defs[n-1]
			k := definer{id, o}
			vs, listed := d.versions[k]
			if !listed {
				vs = appendVersion(nil, prev.s) // the first: the only one until now
			}
			if d.versions == nil {
				d.versions = map[definer][]string{}
			}
			d.versions[k] = appendVersion(vs, s)
			if prev.hidden {
				*prev = newDefinition(o, s, num) // a default version wins over a hidden one
			}
		} else {
			e.defs = appendIn(defs, e.defs, newDefinition(o, s, num))
		}
		if !o.References || s.Relocated() {
			e.refer(refs, Reference{Object: o, Defines: true, exe: o.Executable, num: num})
		}
	}
}

// refer records r, once per object: Index adds one object's symbols
// before the next's, so o's reference, if any, is the last one.
func (e *named) refer(slab *[]Reference, r Reference) {
	if n := len(e.refs); n > 0 && e.refs[n-1].Object == r.Object {
		return
	}
	e.refs = appendIn(slab, e.refs, r)
}

// appendIn appends v to s, whose storage slab holds: an empty s starts as
// one element of it, a full one moves to twice its room at slab's end (a
// new slab of slabChunk elements when that is full; the old one stays
// with the slices in it). The many names with one or two definitions or
// references share a few allocations instead of one or two each.
func appendIn[T any](slab *[]T, s []T, v T) []T {
	if len(s) < cap(s) {
		return append(s, v)
	}
	room := max(1, 2*len(s))
	if cap(*slab)-len(*slab) < room {
		*slab = make([]T, 0, max(slabChunk, room))
	}
	at := len(*slab)
	*slab = append(append(*slab, s...), v)[:at+room]
	return (*slab)[at : at+len(s)+1 : at+room]
}

// slabChunk is how many elements appendIn adds to a full slab: a few
// allocations for thousands of names, and little room left unused.
const slabChunk = 1024

func appendVersion(vs []string, s *elfobj.Symbol) []string {
	if v := s.Version(); v != "" {
		return append(vs, v)
	}
	return vs
}

// defOf is o's definition of the name id; nil when o defines none. A name
// has a few definers: a scan costs less than a map.
func (d *Definitions) defOf(id int32, o *elfobj.Object) *definition {
	defs := d.named[id].defs
	for i := range defs {
		if defs[i].o == o {
			return &defs[i]
		}
	}
	return nil
}

// rankOf ranks the indexed objects of order.
func (d *Definitions) rankOf(order []*elfobj.Object) rank {
	r := make(rank, len(d.objs))
	for i, q := range order {
		if n, ok := d.num[q]; ok && r[n] == 0 {
			r[n] = int32(i + 1)
		}
	}
	return r
}

// scopeRank is the rank of the lookup scope of p's k-th dlopen.
func (d *Definitions) scopeRank(p *Process, k int) rank {
	i := slices.IndexFunc(d.scopes, func(s scopeRanks) bool { return s.p == p })
	if i < 0 {
		i = len(d.scopes)
		d.scopes = append(d.scopes, scopeRanks{p: p})
	}
	s := &d.scopes[i]
	if k >= len(s.ranks) {
		s.ranks = append(s.ranks, make([]rank, k+1-len(s.ranks))...)
	}
	if s.ranks[k] == nil {
		s.ranks[k] = d.rankOf(p.scope(k))
	}
	return s.ranks[k]
}

// treeRank is the rank of the tree of r's object (Loader.Tree).
func (d *Definitions) treeRank(l *Loader, r Reference) rank {
	if d.trees == nil {
		d.trees = make([]rank, len(d.objs))
	}
	if d.trees[r.num] == nil {
		d.trees[r.num] = d.rankOf(l.ownTree(r.Object))
	}
	return d.trees[r.num]
}

// Bind returns the object whose definition a reference from o to name (asking
// for version, "" for none) binds to, or nil when nothing in scope defines it
// (or o is not mapped).
func (p *Process) Bind(defs *Definitions, o *elfobj.Object, name, version string) *elfobj.Object {
	id, ok := defs.ids.byName[name]
	if !ok {
		return nil
	}
	return p.bind(defs, id, o, version)
}

// bind is Bind of the name numbered id.
func (p *Process) bind(defs *Definitions, id int32, o *elfobj.Object, version string) *elfobj.Object {
	to := p.lookup(defs, id, o, version)
	if to == nil {
		return nil
	}
	if to.unique {
		if first := p.uniqueOwner(defs, id); first != nil {
			return first
		}
	}
	return to.o
}

// lookup is the scope search of one reference, before the unique table.
// An object's use of its own definition never reaches the loader when the
// definition is protected, or when no relocation of the object names it
// (bound at link time: -Bsymbolic, a call within the object): it binds to
// itself.
func (p *Process) lookup(defs *Definitions, id int32, o *elfobj.Object, version string) *definition {
	if def := defs.defOf(id, o); def != nil && def.self {
		return def
	}
	k, ok := p.opened[o]
	if !ok {
		return nil
	}
	return defs.first(id, defs.scopeRank(p, k), version)
}

// first returns the definition of the name id that comes first in r and
// suits the version asked for; nil for none.
func (d *Definitions) first(id int32, r rank, version string) *definition {
	var best *definition
	defs := d.named[id].defs
	for i := range defs {
		def := &defs[i]
		if at := r[def.num]; at != 0 && (best == nil || at < r[best.num]) && d.suits(id, def, version) {
			best = def
		}
	}
	return best
}

// suits applies ld.so's version rule to def, an object's default (or only)
// definition of the name id: a versioned reference takes a definition of
// that version, or an unversioned one; an unversioned reference takes the
// default version and never a hidden one.
func (d *Definitions) suits(id int32, def *definition, want string) bool {
	if want == "" {
		return !def.hidden
	}
	v := def.s.Version()
	return v == "" || v == want || slices.Contains(d.versions[definer{id, def.o}], want)
}

// uniqueOwner returns the definition of a STB_GNU_UNIQUE name the process
// registered first: the lookup of the first reference, in relocation
// order, that found a unique definition.
func (p *Process) uniqueOwner(defs *Definitions, id int32) *elfobj.Object {
	e, name := &defs.named[id], defs.ids.names[id]
	if o, ok := p.unique[name]; ok {
		return o
	}
	var owner, by *elfobj.Object
	for _, r := range e.refs {
		if !p.Mapped(r.Object) || by != nil && !p.relocatedBefore(r.Object, by) {
			continue
		}
		if to := p.lookup(defs, id, r.Object, r.Version); to != nil && to.unique {
			owner, by = to.o, r.Object
		}
	}
	if p.unique == nil {
		p.unique = map[string]*elfobj.Object{}
	}
	p.unique[name] = owner
	return owner
}

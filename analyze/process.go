package analyze

import (
	"debug/elf"
	"math"
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
	// ranks caches each dlopen's lookup order as positions, by the
	// dlopen's index in lists: Bind asks the same scopes many times. A
	// dlopen can change any scope.
	ranks []map[*elfobj.Object]int
	// unique caches uniqueOwner's answers.
	unique map[string]*elfobj.Object
	// Missing holds DT_NEEDED entries that could not be found.
	Missing []Edge
	// Deps holds each mapped object's DT_NEEDED entries, in order, and
	// where each led (ViaLoaded: to an object already mapped under that
	// name; no Object: not found). noDeps leaves Deps and Missing empty.
	Deps   map[*elfobj.Object][]Resolution
	noDeps bool
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
func NewProcess(l *Loader) *Process {
	return &Process{
		loader: l,
		byName: map[string]*elfobj.Object{},
		Deps:   map[*elfobj.Object][]Resolution{},
		global: map[*elfobj.Object]bool{},
		opened: map[*elfobj.Object]int{},
		pos:    map[*elfobj.Object]int{},
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
	p.ranks, p.unique = nil, nil // a dlopen can change any scope
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
			p.Deps[o] = make([]Resolution, 0, len(o.Needed)) // each need appends one
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
	global := p.Global[:p.globalAt[k]]
	out := append([]*elfobj.Object(nil), global...)
	for _, q := range p.lists[k] {
		if !slices.Contains(global, q) {
			out = append(out, q)
		}
	}
	return out
}

// rank is the position of each object of o's lookup scope in it.
func (p *Process) rank(o *elfobj.Object) map[*elfobj.Object]int {
	k, ok := p.opened[o]
	if !ok {
		return nil
	}
	if p.ranks == nil {
		p.ranks = make([]map[*elfobj.Object]int, len(p.lists))
	}
	if r := p.ranks[k]; r != nil {
		return r
	}
	scope := p.Scope(o)
	r := make(map[*elfobj.Object]int, len(scope))
	for i, q := range scope {
		r[q] = i
	}
	p.ranks[k] = r
	return r
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
type Definitions struct {
	// ids numbers the names Index met: each one's place in named, so that
	// a symbol's name is hashed once however much Index records of it.
	ids   map[string]int32
	named []named
	// defs holds named's maps of definitions by name: what Of and the
	// loader's Own look up.
	defs map[string]map[*elfobj.Object]*elfobj.Symbol
	// versions lists the version of every definition an object has of a
	// name it defines more than once (libc's memcpy@GLIBC_2.2.5 and
	// memcpy@@GLIBC_2.14): a reference may ask for an old one. An object
	// with one definition has that one's version only, which defs holds.
	versions map[definer][]string
}

// named is what Index found of one name.
type named struct {
	defs map[*elfobj.Object]*elfobj.Symbol // nil until a definition
	refs []Reference
}

// definer is one object's definitions of one name.
type definer struct {
	name string
	o    *elfobj.Object
}

// Reference is one object's reference to a symbol.
type Reference struct {
	Object  *elfobj.Object
	Version string // the version asked for; "" for none
	// Defines is true when Object holds a definition of its own and
	// refers to it through the loader (a relocation names it, or its
	// relocations were not read).
	Defines bool
}

// Of returns the exported definitions of name, by object.
func (d *Definitions) Of(name string) map[*elfobj.Object]*elfobj.Symbol { return d.defs[name] }

// Refs returns the references to name, in the order Index met them.
func (d *Definitions) Refs(name string) []Reference {
	if id, ok := d.ids[name]; ok {
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
	n := names.Len() // each name once, the maps sized at once
	d := &Definitions{ids: make(map[string]int32, n), named: make([]named, 0, n),
		defs: make(map[string]map[*elfobj.Object]*elfobj.Symbol, n), versions: map[definer][]string{}}
	seen := make(map[*elfobj.Object]bool, len(objs))
	for _, o := range objs {
		if seen[o] {
			continue
		}
		seen[o] = true
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if s.Name == "" {
				continue
			}
			id, ok := d.ids[s.Name]
			if !ok {
				if !names.Has(s.Name) {
					continue
				}
				id = int32(len(d.named))
				d.ids[s.Name] = id
				d.named = append(d.named, named{})
			}
			d.add(&d.named[id], o, s)
		}
	}
	return d
}

// add indexes o's symbol s in e, what Index holds of s's name: a
// definition, a reference, or both.
func (d *Definitions) add(e *named, o *elfobj.Object, s *elfobj.Symbol) {
	switch {
	case !s.Defined():
		e.refer(Reference{Object: o, Version: s.Version()})
	case s.Exported():
		if e.defs == nil {
			e.defs = map[*elfobj.Object]*elfobj.Symbol{}
			d.defs[s.Name] = e.defs
		}
		prev, again := e.defs[o]
		if !again || prev.Hidden() {
			e.defs[o] = s // a default version wins over a hidden one
		}
		if again {
			k := definer{s.Name, o}
			vs, listed := d.versions[k]
			if !listed {
				vs = appendVersion(nil, prev) // the first: the only one until now
			}
			d.versions[k] = appendVersion(vs, s)
		}
		if !o.References || s.Relocated() {
			e.refer(Reference{Object: o, Defines: true})
		}
	}
}

// refer records r, once per object: Index adds one object's symbols
// before the next's, so o's reference, if any, is the last one.
func (e *named) refer(r Reference) {
	if n := len(e.refs); n > 0 && e.refs[n-1].Object == r.Object {
		return
	}
	e.refs = append(e.refs, r)
}

func appendVersion(vs []string, s *elfobj.Symbol) []string {
	if v := s.Version(); v != "" {
		return append(vs, v)
	}
	return vs
}

// Bind returns the object whose definition a reference from o to name (asking
// for version, "" for none) binds to, or nil when nothing in scope defines it
// (or o is not mapped).
func (p *Process) Bind(defs *Definitions, o *elfobj.Object, name, version string) *elfobj.Object {
	return p.bind(defs, defs.Of(name), o, name, version)
}

// bind is Bind given of, defs.Of(name): looked up once for every
// reference to a name.
func (p *Process) bind(defs *Definitions, of map[*elfobj.Object]*elfobj.Symbol, o *elfobj.Object, name, version string) *elfobj.Object {
	to := p.lookup(defs, of, o, name, version)
	if to != nil && of[to].Unique() {
		if first := p.uniqueOwner(defs, name); first != nil {
			return first
		}
	}
	return to
}

// lookup is the scope search of one reference, before the unique table.
// An object's use of its own definition never reaches the loader when the
// definition is protected, or when no relocation of the object names it
// (bound at link time: -Bsymbolic, a call within the object): it binds to
// itself. of is defs.Of(name).
func (p *Process) lookup(defs *Definitions, of map[*elfobj.Object]*elfobj.Symbol, o *elfobj.Object, name, version string) *elfobj.Object {
	if s, ok := of[o]; ok && (s.Visibility() == elf.STV_PROTECTED || o.References && !s.Relocated()) {
		return o
	}
	return defs.firstOf(of, p.rank(o), name, version)
}

// first returns the definer of name that comes first in rank and suits
// the version asked for.
func (d *Definitions) first(rank map[*elfobj.Object]int, name, version string) *elfobj.Object {
	return d.firstOf(d.defs[name], rank, name, version)
}

// firstOf is first among of, name's definitions (d.Of(name)).
func (d *Definitions) firstOf(of map[*elfobj.Object]*elfobj.Symbol, rank map[*elfobj.Object]int, name, version string) *elfobj.Object {
	var best *elfobj.Object
	bestAt := math.MaxInt
	for q, s := range of {
		if at, ok := rank[q]; ok && at < bestAt && d.suits(q, s, name, version) {
			best, bestAt = q, at
		}
	}
	return best
}

// suits applies ld.so's version rule to object q, whose default (or only)
// definition of name is def: a versioned reference takes a definition of
// that version, or an unversioned one; an unversioned reference takes the
// default version and never a hidden one.
func (d *Definitions) suits(q *elfobj.Object, def *elfobj.Symbol, name, want string) bool {
	if want == "" {
		return !def.Hidden()
	}
	v := def.Version()
	return v == "" || v == want || slices.Contains(d.versions[definer{name, q}], want)
}

// uniqueOwner returns the definition of a STB_GNU_UNIQUE name the process
// registered first: the lookup of the first reference, in relocation
// order, that found a unique definition.
func (p *Process) uniqueOwner(defs *Definitions, name string) *elfobj.Object {
	if o, ok := p.unique[name]; ok {
		return o
	}
	var owner, by *elfobj.Object
	of := defs.Of(name)
	for _, r := range defs.Refs(name) {
		if !p.Mapped(r.Object) || by != nil && !p.relocatedBefore(r.Object, by) {
			continue
		}
		if to := p.lookup(defs, of, r.Object, name, r.Version); to != nil && of[to].Unique() {
			owner, by = to, r.Object
		}
	}
	if p.unique == nil {
		p.unique = map[string]*elfobj.Object{}
	}
	p.unique[name] = owner
	return owner
}

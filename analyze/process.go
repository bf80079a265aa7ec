package analyze

import (
	"debug/elf"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/symset"
)

// Process simulates the dynamic loader of one Python process: which file each
// dlopen maps, and which definition a symbol reference binds to.
//
// The model is glibc's. The global scope is the executable's search list
// (not known here, taken as empty: python3 defines none of the symbols etlink
// compares) plus every object opened RTLD_GLOBAL, in order. Each dlopen builds
// the breadth-first search list of its root and the root's DT_NEEDED
// dependencies; an object first mapped by that dlopen resolves its
// references in the global scope, then in that search list. A DT_NEEDED name
// that matches the SONAME (or the DT_NEEDED name) of an object already mapped
// reuses that object without any search: this is why auditwheel renames the
// libraries it grafts, and why a wheel's unrenamed copy of a library torch
// already loaded is never mapped. A reference from an object that defines the
// symbol with protected visibility binds to that object.
//
// Simplified: an object already mapped by an earlier dlopen keeps the scope
// of the dlopen that mapped it (glibc may add later scopes to it, which only
// matters for symbols the first scope cannot resolve); DT_SYMBOLIC and
// -Bsymbolic are not read; lazy binding makes no difference to the outcome.
type Process struct {
	loader *Loader
	// Global is the global scope in search order.
	Global []*elfobj.Object
	// Order lists every mapped object in mapping order.
	Order  []*elfobj.Object
	byName map[string]*elfobj.Object
	mapped map[*elfobj.Object]bool
	global map[*elfobj.Object]bool
	scope  map[*elfobj.Object][]*elfobj.Object
	// scopes caches Scope's answers between dlopens: Bind asks for the
	// same scopes many times.
	scopes map[*elfobj.Object][]*elfobj.Object
	// Missing holds DT_NEEDED entries that could not be found.
	Missing []Edge
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
		mapped: map[*elfobj.Object]bool{},
		global: map[*elfobj.Object]bool{},
		scope:  map[*elfobj.Object][]*elfobj.Object{},
	}
}

// Dlopen maps root and its dependencies as dlopen(root, RTLD_NOW|flags) does
// and returns root's search list.
func (p *Process) Dlopen(root *elfobj.Object, global bool) []*elfobj.Object {
	p.scopes = nil // a dlopen can change any scope
	list := p.searchList(root)
	for _, o := range list {
		if !p.mapped[o] {
			p.mapped[o] = true
			p.Order = append(p.Order, o)
			p.scope[o] = list
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
	in := map[*elfobj.Object]bool{root: true}
	parent := map[*elfobj.Object]*elfobj.Object{}
	p.name(root, "")
	p.loader.Prefetch([]*elfobj.Object{root})
	for i := 0; i < len(list); i++ {
		o := list[i]
		for _, need := range o.Needed {
			dep := p.byName[need]
			if dep == nil {
				res := p.loader.Resolve(o, chain(parent, o), need)
				if res.Object == nil {
					p.Missing = append(p.Missing, Edge{From: o, Resolution: res})
					continue
				}
				dep = res.Object
				p.name(dep, need)
			}
			if !in[dep] {
				in[dep] = true
				parent[dep] = o
				list = append(list, dep)
			}
		}
	}
	return list
}

// name records the names under which later DT_NEEDED entries find o mapped.
func (p *Process) name(o *elfobj.Object, need string) {
	for _, n := range []string{need, o.Soname} {
		if _, taken := p.byName[n]; n != "" && !taken {
			p.byName[n] = o
		}
	}
}

// chain lists the objects that loaded o, nearest first: the DT_RPATH chain.
func chain(parent map[*elfobj.Object]*elfobj.Object, o *elfobj.Object) []*elfobj.Object {
	var c []*elfobj.Object
	for q := parent[o]; q != nil; q = parent[q] {
		c = append(c, q)
	}
	return c
}

// Mapped reports whether o was mapped into the process.
func (p *Process) Mapped(o *elfobj.Object) bool { return p.mapped[o] }

// Scope is the lookup order for references from o: the global scope, then
// the search list of the dlopen that mapped o.
func (p *Process) Scope(o *elfobj.Object) []*elfobj.Object {
	if s, ok := p.scopes[o]; ok {
		return s
	}
	out := append([]*elfobj.Object(nil), p.Global...)
	for _, q := range p.scope[o] {
		if !p.global[q] {
			out = append(out, q)
		}
	}
	if p.scopes == nil {
		p.scopes = map[*elfobj.Object][]*elfobj.Object{}
	}
	p.scopes[o] = out
	return out
}

// Definitions answers "which objects define this name" for Bind; callers
// build it once for the names they ask about (see Index).
type Definitions map[string]map[*elfobj.Object]*elfobj.Symbol

// Index collects, from objs, the exported definitions of the given names.
func Index(objs []*elfobj.Object, names *symset.Set) Definitions {
	defs := Definitions{}
	for _, o := range objs {
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if !s.Exported() || !names.Has(s.Name) {
				continue
			}
			m := defs[s.Name]
			if m == nil {
				m = map[*elfobj.Object]*elfobj.Symbol{}
				defs[s.Name] = m
			}
			if prev, ok := m[o]; !ok || prev.Hidden {
				m[o] = s // a default version wins over a hidden one
			}
		}
	}
	return defs
}

// Bind returns the object whose definition a reference from o to name (asking
// for version, "" for none) binds to, or nil when nothing in scope defines it.
func (p *Process) Bind(defs Definitions, o *elfobj.Object, name, version string) *elfobj.Object {
	byObj := defs[name]
	if s, ok := byObj[o]; ok && s.Visibility() == elf.STV_PROTECTED {
		return o
	}
	for _, q := range p.Scope(o) {
		if s, ok := byObj[q]; ok && versionMatches(s, version) {
			return q
		}
	}
	return nil
}

// versionMatches applies ld.so's rule: a versioned reference needs that
// version (or an unversioned definition); an unversioned reference takes the
// default version and never a hidden one.
func versionMatches(def *elfobj.Symbol, want string) bool {
	if want == "" {
		return !def.Hidden
	}
	return def.Version == "" || def.Version == want
}

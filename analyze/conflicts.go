package analyze

import (
	"debug/elf"
	"sort"

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
	// Defines is true when From holds a definition of its own: calls from
	// inside it go through the PLT too, unless bound locally.
	Defines bool
}

// Conflict is a symbol exported by the wheel and by its peer.
type Conflict struct {
	Name     string
	Wheel    []Def // definitions in the wheel's shipped shared objects
	Peer     []Def // definitions in the peer's closure, shared files excluded
	Bindings []Binding
}

// Duplicate is a symbol exported by more than one shipped object.
type Duplicate struct {
	Name string
	Defs []Def
}

// Ignore reports whether a symbol name is meant to be defined in many places.
type Ignore func(name string) bool

// linkerSymbols are defined by the linker in every output, not by the code.
var linkerSymbols = map[string]bool{
	"_init": true, "_fini": true, "_edata": true, "_end": true, "__bss_start": true,
	"__bss_start__": true, "__bss_end__": true, "_bss_end__": true, "__end__": true,
	"__data_start": true, "data_start": true, "_IO_stdin_used": true, "__dso_handle": true,
	"__TMC_END__": true, "_GLOBAL_OFFSET_TABLE_": true, "_DYNAMIC": true, "_fp_hw": true,
	"__libc_csu_init": true, "__libc_csu_fini": true, "__exidx_start": true, "__exidx_end": true,
	"_PROCEDURE_LINKAGE_TABLE_": true, "__gmon_start__": true,
}

// LinkerSymbol reports whether name is one the linker defines in every output.
func LinkerSymbol(name string) bool { return linkerSymbols[name] }

// exportsOf calls fn for each exported, not ignored symbol of a shared object.
func exportsOf(o *elfobj.Object, ignore Ignore, fn func(s *elfobj.Symbol)) {
	if o.Type != elf.ET_DYN {
		return
	}
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Exported() && !LinkerSymbol(s.Name) && (ignore == nil || !ignore(s.Name)) {
			fn(s)
		}
	}
}

// ConflictNames is every name of the peer's symbols that Conflicts and the
// process model behind it look at, given the wheel's objects: the names the
// wheel exports (a peer symbol by another name is in no conflict, and no
// reference to it is asked about) and the PyInit_ prefix (IsExtension).
// Reading the peer and the libraries the loader finds with
// elfobj.Options{Only: ConflictNames(wheel)} gives Conflicts the same answer
// with a few thousand of the closure's hundreds of thousands of symbols.
func ConflictNames(wheel []*elfobj.Object) *symset.Set {
	names := &symset.Set{}
	names.AddPrefix("PyInit_")
	for _, o := range wheel {
		for i := range o.Symbols {
			if s := &o.Symbols[i]; s.Exported() {
				names.Add(s.Name)
			}
		}
	}
	return names
}

// Conflicts lists the symbols both the wheel's shipped shared objects and the
// peer's closure export, names compared without versions, sorted by name.
// Files both closures reach (libc, libstdc++, a system library both link)
// are mapped once and are not a side of any conflict.
func (b *Build) Conflicts(ignore Ignore) []Conflict {
	if b.Peer == nil {
		return nil
	}
	wheel := map[string][]Def{}
	for _, o := range b.Wheel.Inputs {
		if b.Shared(o) {
			continue
		}
		exportsOf(o, ignore, func(s *elfobj.Symbol) { wheel[s.Name] = addDef(wheel[s.Name], o, s) })
	}
	// Most of the peer closure's exports are not the wheel's: the set's
	// filter rules them out before their names are hashed for the map.
	var inWheel symset.Set
	for name := range wheel {
		inWheel.Add(name)
	}
	peer := map[string][]Def{}
	for _, o := range b.Peer.Closure {
		if o.Type != elf.ET_DYN || b.Shared(o) || b.Wheel.Shipped(o) {
			continue
		}
		// The wheel's map is already filtered (no linker symbols, none
		// ignored): being in it is enough.
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if s.Exported() && inWheel.Has(s.Name) {
				peer[s.Name] = addDef(peer[s.Name], o, s)
			}
		}
	}
	var out []Conflict
	var names symset.Set
	for name, defs := range peer {
		out = append(out, Conflict{Name: name, Wheel: wheel[name], Peer: defs})
		names.Add(name)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	b.bind(out, &names)
	return out
}

// addDef appends a definition, keeping one per object (the default version
// over a hidden one).
func addDef(defs []Def, o *elfobj.Object, s *elfobj.Symbol) []Def {
	if n := len(defs); n > 0 && defs[n-1].Object == o {
		if defs[n-1].Symbol.Hidden && !s.Hidden {
			defs[n-1].Symbol = s
		}
		return defs
	}
	return append(defs, Def{Object: o, Symbol: s})
}

// ref is an undefined reference to a symbol.
type ref struct {
	obj     *elfobj.Object
	version string
}

// bind records, for each conflict, where references from each side go in
// the simulated process. An object references a symbol when its dynamic
// symbol table holds it undefined, or when it defines it (its own calls go
// through the PLT unless bound locally).
func (b *Build) bind(cs []Conflict, names *symset.Set) {
	refs := map[string][]ref{}
	seen := map[*elfobj.Object]bool{}
	for _, side := range []*Side{b.Peer, b.Wheel} {
		for _, o := range side.Closure {
			if seen[o] {
				continue
			}
			seen[o] = true
			for i := range o.Symbols {
				s := &o.Symbols[i]
				if !s.Defined() && names.Has(s.Name) {
					refs[s.Name] = append(refs[s.Name], ref{o, s.Version})
				}
			}
		}
	}
	defs := Index(b.Process.Order, names)
	for i := range cs {
		c := &cs[i]
		for _, side := range []*Side{b.Wheel, b.Peer} {
			for _, r := range refs[c.Name] {
				if side.Has(r.obj) && !b.Shared(r.obj) {
					c.Bindings = append(c.Bindings, b.binding(defs, side, r.obj, c.Name, r.version, false))
				}
			}
			for _, d := range c.defs(side == b.Wheel) {
				c.Bindings = append(c.Bindings, b.binding(defs, side, d.Object, c.Name, "", true))
			}
		}
	}
}

func (c *Conflict) defs(wheel bool) []Def {
	if wheel {
		return c.Wheel
	}
	return c.Peer
}

func (b *Build) binding(defs Definitions, side *Side, o *elfobj.Object, name, version string, defines bool) Binding {
	bd := Binding{Side: side.Name, From: o, Defines: defines}
	if b.Process.Mapped(o) {
		bd.To = b.Process.Bind(defs, o, name, version)
	}
	return bd
}

// Duplicates lists the symbols exported by more than one of the wheel's
// shipped shared objects, sorted by name.
func (b *Build) Duplicates(ignore Ignore) []Duplicate {
	by := map[string][]Def{}
	for _, o := range b.Wheel.Inputs {
		exportsOf(o, ignore, func(s *elfobj.Symbol) { by[s.Name] = addDef(by[s.Name], o, s) })
	}
	var out []Duplicate
	for name, defs := range by {
		if len(defs) > 1 {
			out = append(out, Duplicate{Name: name, Defs: defs})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

package analyze

import (
	"maps"
	"slices"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/symset"
)

// Split is a registry function (or object) with more than one copy in the
// output's process. Copies are one registry when every registration lands
// in the copy the process reads: the loader binds every call to one copy
// (the program's copy interposes a library's). A copy that registrations
// reach without the loader (hidden visibility, --exclude-libs, a version
// script's local:, -Bsymbolic, protected visibility: the static linker bound
// the call) is a second registry the program does not read.
type Split struct {
	// Symbol is the registry called (mangled).
	Symbol string
	// Copies are the objects of the process that define Symbol, in load
	// order: exported, or found where their own calls reach them.
	Copies []RegistryCopy
	// Reader is the copy the process reads: the one the loader binds
	// Symbol to from the output, or the output's own unexported copy; nil
	// when neither exists.
	Reader *elfobj.Object
	// Apart is true when registrations land in a copy other than Reader
	// (or, with no reader, in more than one copy): registrations the
	// program does not see.
	Apart bool
}

// RegistryCopy is one object's copy of a registry and the registrations
// that land in it.
type RegistryCopy struct {
	Object *elfobj.Object
	// Exported is true when the copy is in the object's dynamic symbol
	// table: the loader may bind other objects' calls to it.
	Exported bool
	// Lands are the registrations whose calls reach this copy, and how.
	Lands []Landing
}

// Landing is one registering unit's call and the copy it reaches.
type Landing struct {
	Copy Copy
	// Bound says how the call reaches the copy: "the loader binds it" or
	// "bound at link time" (a call the static linker resolved in its own
	// object).
	Bound string
}

// splits finds, in the output's process, the registries defined by more
// than one object and where each registration lands: units are the
// output's own registering objects, libs the loaded libraries'.
func (r *Retention) splits(f *LinkFacts, units, libs []Copy) []Split {
	if f.process == nil {
		return nil
	}
	regs := slices.Clone(units)
	regs = append(regs, libs...)
	for _, o := range f.LoadSet {
		if o != f.Output {
			regs = append(regs, byInitializer(o, nil, r.Patterns.InternalRegistrations(o, f.callees))...)
		}
	}
	var names symset.Set
	for _, c := range regs {
		for _, reg := range c.Registrations {
			names.Add(reg.Call)
		}
	}
	if names.Len() == 0 {
		return nil
	}
	defs := Index(f.LoadSet, &names)
	byCall := map[string][]Copy{}
	for _, c := range regs {
		for _, reg := range c.Registrations {
			byCall[reg.Call] = append(byCall[reg.Call], c)
		}
	}
	var out []Split
	for _, call := range slices.Sorted(maps.Keys(byCall)) {
		if sp, ok := r.split(f, defs, call, byCall[call]); ok {
			out = append(out, sp)
		}
	}
	return out
}

// split decides one registry: its copies, where each registrar's call of
// it lands, and which copy the process reads.
func (r *Retention) split(f *LinkFacts, defs *Definitions, call string, registrars []Copy) (Split, bool) {
	exported := defs.Of(call)
	hiddenOut := false
	if _, ok := exported[f.Output]; !ok {
		hiddenOut = r.code.defines(f.Output, call)
	}
	sp := Split{Symbol: call, Reader: f.process.Bind(defs, f.Output, call, "")}
	if hiddenOut {
		sp.Reader = f.Output
	}
	copies := map[*elfobj.Object]*RegistryCopy{}
	add := func(o *elfobj.Object) *RegistryCopy {
		if c, ok := copies[o]; ok {
			return c
		}
		_, exp := exported[o]
		c := &RegistryCopy{Object: o, Exported: exp}
		copies[o] = c
		return c
	}
	for o := range exported {
		add(o)
	}
	if hiddenOut {
		add(f.Output)
	}
	seen := map[[2]any]bool{}
	for _, c := range registrars {
		from, internal := c.Object, false
		for _, reg := range c.Registrations {
			internal = internal || reg.Call == call && reg.Internal
		}
		if c.Input != nil {
			from = f.Output // linked into the output: its calls are the output's
		}
		var to *elfobj.Object
		bound := "the loader binds it"
		switch {
		case internal, from == f.Output && hiddenOut:
			to, bound = from, "bound at link time"
		default:
			to = f.process.Bind(defs, from, call, "")
			if _, ok := exported[from]; ok && to == from && from.References && !exported[from].Relocated() {
				bound = "bound at link time"
			}
		}
		if to == nil || seen[[2]any{c.Object, c.Registrations[0].Initializer}] {
			continue
		}
		seen[[2]any{c.Object, c.Registrations[0].Initializer}] = true
		rc := add(to)
		rc.Lands = append(rc.Lands, Landing{Copy: c, Bound: bound})
	}
	if len(copies) < 2 {
		return Split{}, false
	}
	landed := 0
	for _, o := range f.LoadSet {
		c, ok := copies[o]
		if !ok {
			continue
		}
		sp.Copies = append(sp.Copies, *c)
		if len(c.Lands) > 0 {
			landed++
			sp.Apart = sp.Apart || sp.Reader != nil && o != sp.Reader
		}
	}
	sp.Apart = sp.Apart || sp.Reader == nil && landed > 1
	return sp, landed > 0
}

package analyze

import (
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/linkline"
)

// guardCarriers marks the registering members left out of the link whose
// every registration is a guarded initialization (a template's static data
// member, an inline variable: Registration.Guard) that a unit the process
// keeps carries too, by defining the same guard in the same COMDAT group:
// the process runs it once, from there, and nothing is lost.
func (r *Retention) guardCarriers(f *LinkFacts) {
	for i := range f.Members {
		mf := &f.Members[i]
		if mf.Extracted || mf.CarriedBy != nil || len(mf.Registrations) == 0 {
			continue
		}
		var carrier *elfobj.Object
		for _, reg := range mf.Registrations {
			c := r.guardCarrier(f, reg.Guard)
			if c == nil {
				carrier = nil
				break
			}
			carrier = c
		}
		if carrier != nil {
			mf.CarriedBy, mf.CarriedGuard = carrier, mf.Registrations[0].Guard
		}
	}
}

// guardCarrier is a unit the process keeps that defines guard: an object
// on the line, an extracted member, the output (its full symbol table), or
// a loaded library (unique symbols are exported, and the loader unifies
// them); nil when none does or guard is "".
func (r *Retention) guardCarrier(f *LinkFacts, guard string) *elfobj.Object {
	if guard == "" {
		return nil
	}
	defines := func(o *elfobj.Object) bool {
		for i := range o.Symbols {
			if s := &o.Symbols[i]; s.Name == guard && s.Defined() {
				return true
			}
		}
		return false
	}
	for _, in := range f.Link.Inputs {
		if in.Kind != linkline.KindObject || in.Path == "" {
			continue
		}
		if objs, err := r.read(abs(f.Link.Dir, in.Path)); err == nil && len(objs) == 1 && defines(objs[0]) {
			return objs[0]
		}
	}
	for _, mf := range f.Members {
		if mf.Extracted && defines(mf.Object) {
			return mf.Object
		}
	}
	if f.Output != nil && r.code.defines(f.Output, guard) {
		return f.Output
	}
	for _, o := range f.LoadSet {
		if o != f.Output && defines(o) {
			return o
		}
	}
	return nil
}

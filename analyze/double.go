package analyze

import (
	"maps"
	"slices"
	"strings"

	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/linkline"
	"github.com/etlink/etlink/symset"
)

// Double is a registering translation unit whose static initializer runs
// in two objects of one process, both registering into the same registry
// copy: a registry that rejects a duplicate aborts before main (ExecuTorch's
// register_kernels, gflags, protobuf's generated pool, LLVM's cl::opt).
type Double struct {
	// Initializer is the unit's static initializer (_GLOBAL__sub_I_<file>).
	Initializer string
	// Call is a registry function both copies call, and Registry the copy
	// of it both calls bind to.
	Call     string
	Registry *elfobj.Object
	Copies   []Copy
	// Shared names what every copy hands, directly, when the loader binds
	// it to one definition for all of them: the registry is given the same
	// object twice, which one that keys by the object registers once
	// (protobuf's descriptor tables guard themselves) and one that keys by
	// name rejects (Abseil's flags). "" when the copies hand their own.
	Shared string
}

// Copy is one object of a process that carries a registering unit: an
// archive member or object linked into the output (Input is the link
// argument that brought it), or a library the output loads (Input nil).
type Copy struct {
	Object        *elfobj.Object
	Input         *linkline.Input
	Registrations []Registration
	// Built is, for a library whose initializers are unnamed (stripped),
	// the object or archive member its own link put in it that carries
	// the unit (Input is that link's argument).
	Built *Copy
}

// unitKey identifies a registering translation unit across objects: its
// initializer's name and the symbols it registers (an object's name local
// to the unit), so that two files of one base name (a/kernels.cpp,
// b/kernels.cpp) are not taken for one. A pattern's match, which names no
// symbol, counts by the registry it calls.
func unitKey(c Copy) (string, map[string]bool) {
	regs := map[string]bool{}
	for _, r := range c.Registrations {
		if r.Handed != "" {
			regs[r.Handed] = true
		} else {
			regs["\x00"+QualifiedName(demangle.Name(r.Call))] = true
		}
	}
	return c.Registrations[0].Initializer, regs
}

// byInitializer splits an object's registrations by initializer, one Copy
// each; initializers named by address only (stripped) are left out.
func byInitializer(o *elfobj.Object, in *linkline.Input, regs []Registration) []Copy {
	var out []Copy
	idx := map[string]int{}
	for _, r := range regs {
		if r.Initializer == "" || strings.HasPrefix(r.Initializer, "0x") {
			continue
		}
		i, ok := idx[r.Initializer]
		if !ok {
			i = len(out)
			idx[r.Initializer] = i
			out = append(out, Copy{Object: o, Input: in})
		}
		out[i].Registrations = append(out[i].Registrations, r)
	}
	return out
}

// sameUnit reports whether two copies are one unit: the same initializer
// registering at least one same symbol.
func sameUnit(a, b Copy) bool {
	na, ra := unitKey(a)
	nb, rb := unitKey(b)
	if na != nb {
		return false
	}
	for k := range ra {
		if rb[k] {
			return true
		}
	}
	return false
}

// processCopies lists the registering units of the output's process: its
// own (the link's objects and extracted members) and its loaded libraries'.
func (r *Retention) processCopies(f *LinkFacts) (units, libs []Copy) {
	units = slices.Clone(f.units)
	for i := range f.Members {
		mf := &f.Members[i]
		if mf.Extracted && len(mf.Registrations) > 0 {
			units = append(units, byInitializer(mf.Object, &mf.Input, mf.Registrations)...)
		}
	}
	for _, o := range f.LoadSet {
		if o != f.Output {
			libs = append(libs, r.libraryCopies(o, r.Patterns.Registrations(o, f.callees))...)
		}
	}
	return units, libs
}

// doubles finds the registering units of the output's process that run
// twice into one registry, and marks the archive members not extracted
// whose unit a loaded library carries (their registrations are not lost).
func (r *Retention) doubles(f *LinkFacts, units, libs []Copy) []Double {
	for i := range f.Members {
		mf := &f.Members[i]
		if mf.Extracted || len(mf.Registrations) == 0 {
			continue
		}
		for _, c := range byInitializer(mf.Object, &mf.Input, mf.Registrations) {
			for _, l := range libs {
				if sameUnit(c, l) {
					mf.CarriedBy = l.Object
				}
			}
		}
	}
	all := append(slices.Clone(units), libs...)
	var names symset.Set
	for _, c := range all {
		for _, reg := range c.Registrations {
			names.Add(reg.Call)
			if reg.Handed != "" {
				names.Add(reg.Handed)
			}
		}
	}
	defs := Index(f.LoadSet, &names)
	var out []Double
	done := map[int]bool{}
	for i, c := range all {
		if done[i] {
			continue
		}
		group := []Copy{c}
		for j := i + 1; j < len(all); j++ {
			if !done[j] && all[j].Object != c.Object && sameUnit(c, all[j]) {
				group = append(group, all[j])
				done[j] = true
			}
		}
		if len(group) < 2 {
			continue
		}
		if d, ok := oneRegistry(f, defs, group); ok {
			d.Shared = sharedHandoffs(f, defs, group)
			out = append(out, d)
		}
	}
	return out
}

// oneRegistry reports whether every copy's call of a common registry binds
// to the same definition in the process: then both registrations land in
// one registry.
func oneRegistry(f *LinkFacts, defs *Definitions, group []Copy) (Double, bool) {
	calls := map[string]bool{}
	for _, r := range group[0].Registrations {
		calls[r.Call] = true
	}
	for _, call := range slices.Sorted(maps.Keys(calls)) {
		var to *elfobj.Object
		same := true
		for _, c := range group {
			from := c.Object
			if c.Input != nil {
				from = f.Output // linked into the output: its references are the output's
			}
			b := f.process.Bind(defs, from, call, "")
			if b == nil || to != nil && b != to {
				same = false
				break
			}
			to = b
		}
		if same {
			return Double{Initializer: group[0].Registrations[0].Initializer, Call: call, Registry: to, Copies: group}, true
		}
	}
	// A registration whose method hands the object on in another input
	// (cl::opt's, in libLLVM): one registry when every copy's ends there.
	var last *elfobj.Object
	var call string
	for _, c := range group {
		var in *elfobj.Object
		for _, r := range c.Registrations {
			if r.HandedIn != nil {
				in, call = r.HandedIn, r.Call
				break
			}
		}
		if in == nil || last != nil && !sameFile(in.Path, last.Path) {
			return Double{}, false
		}
		last = in
	}
	return Double{Initializer: group[0].Registrations[0].Initializer, Call: call, Registry: last, Copies: group}, true
}

// sharedHandoffs names what the copies hand when every registration of
// each hands, directly, a symbol the loader binds to one definition for
// all the copies; "" when some copy hands something of its own.
func sharedHandoffs(f *LinkFacts, defs *Definitions, group []Copy) string {
	var shared []string
	for _, c := range group {
		for _, r := range c.Registrations {
			if r.Handed == "" || r.Indirect {
				return ""
			}
			var to *elfobj.Object
			for _, d := range group {
				from := d.Object
				if d.Input != nil {
					from = f.Output
				}
				b := f.process.Bind(defs, from, r.Handed, "")
				if b == nil || to != nil && b != to {
					return ""
				}
				to = b
			}
			if !slices.Contains(shared, r.Handed) {
				shared = append(shared, r.Handed)
			}
		}
	}
	names := make([]string, len(shared))
	for i, s := range shared {
		names[i] = demangle.Name(s)
	}
	return strings.Join(names, ", ")
}

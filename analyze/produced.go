package analyze

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/linkline"
)

// producers knows the links a session read by the file each produces, so
// that a library one of them made is known by the registering units its
// link put in it. A stripped library's initializers are unnamed (-s, as
// ExecuTorch's Release flags link libexecutorch.so), so the units it
// carries cannot be matched by name from the file alone; its link line
// names them: libexecutorch.a(register_prim_ops.cpp.o), whole-archived.
type producers struct {
	mu    sync.Mutex
	links map[string]*linkline.Link
	units map[string][]Copy
}

// Produces tells the engine the session's links.
func (r *Retention) Produces(links []*linkline.Link) {
	r.produced.mu.Lock()
	defer r.produced.mu.Unlock()
	r.produced.links, r.produced.units = map[string]*linkline.Link{}, map[string][]Copy{}
	for _, l := range links {
		if out := abs(l.Dir, l.Output); out != "" {
			r.produced.links[realPath(out)] = l
		}
	}
}

// builtUnits returns the registering units that the link which produced o
// put in it (its objects and the archive members it extracts, predicted
// from its line), each a Copy of the object or member it came from; nil
// when no link of the session produced o.
func (r *Retention) builtUnits(o *elfobj.Object) []Copy {
	p := &r.produced
	p.mu.Lock()
	defer p.mu.Unlock()
	key := realFile(o)
	l := p.links[key]
	if l == nil {
		return nil
	}
	if units, ok := p.units[key]; ok {
		return units
	}
	f := &LinkFacts{Link: l, Linker: linkerOf(l, nil), r: r}
	newLinkSim(r, f).run()
	units := f.units
	for i := range f.Members {
		if mf := &f.Members[i]; mf.Extracted && len(mf.Registrations) > 0 {
			units = append(units, byInitializer(mf.Object, &mf.Input, mf.Registrations)...)
		}
	}
	p.units[key] = units
	return units
}

// libraryCopies lists the registering units a loaded library carries: by
// its initializers' names, and, where they are unnamed (stripped), by the
// units its own link put in it (Copy.Built).
func (r *Retention) libraryCopies(o *elfobj.Object, regs []Registration) []Copy {
	copies := byInitializer(o, nil, regs)
	unnamed := false
	for _, reg := range regs {
		unnamed = unnamed || reg.Initializer == "" || strings.HasPrefix(reg.Initializer, "0x")
	}
	if !unnamed {
		return copies
	}
	named := map[string]bool{}
	for _, c := range copies {
		named[c.Registrations[0].Initializer] = true
	}
	for _, b := range r.builtUnits(o) {
		if !named[b.Registrations[0].Initializer] {
			b := b
			copies = append(copies, Copy{Object: o, Registrations: b.Registrations, Built: &b})
		}
	}
	return copies
}

// realPath is p made absolute with symlinks resolved, or only made
// absolute when they cannot be.
func realPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		p = a
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// realFile is the file o was read from, as realPath says it: the reader
// resolved it already (Object.Real), so most objects cost no system call.
func realFile(o *elfobj.Object) string {
	if o.Real != "" {
		return o.Real
	}
	return realPath(o.Path)
}

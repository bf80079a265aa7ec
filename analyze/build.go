// Package analyze is etlink's engine. It turns the parsed models into a Build:
// the objects each side ships, their DT_NEEDED closure as ld.so would resolve
// it, a simulated Python process that imports the sides in a stated order,
// and the facts rules ask about (symbols defined by both sides, by two shipped
// objects, and which definition each reference binds to).
package analyze

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"debug/elf"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/pylocate"
)

// Side is one party to a process: the wheel under test, or its peer (torch).
type Side struct {
	// Name is "wheel", "torch", or the peer's path as given.
	Name string
	// Inputs are the objects the side ships.
	Inputs []*elfobj.Object
	// Roots are what Python dlopens for this side, in order.
	Roots []Root
	// Alternatives are roots the package's Python opens only on a branch
	// its default import does not take; Undecided what that reading could
	// not follow (PythonPlan).
	Alternatives []Root
	Undecided    []string
	// Closure is Inputs plus every object their DT_NEEDED entries reach,
	// breadth first, each once.
	Closure []*elfobj.Object
	// Missing are DT_NEEDED entries the loader search did not find.
	Missing []Edge
	// OtherPython are extension modules tagged for another CPython version
	// than the interpreter's, which it never imports (Debian ships a
	// package's modules for two versions side by side).
	OtherPython []*elfobj.Object
	has         map[*elfobj.Object]bool
}

// Root is one dlopen a side performs.
type Root struct {
	Object *elfobj.Object
	Global bool // RTLD_GLOBAL
	// Name is a library the package's code opens by name, for the loader
	// to search (Object nil until NewBuild resolves it).
	Name string
	// Why says where the package's Python opens it (PythonPlan), "" for
	// a root etlink adds; Cond the branch it needs ("" by default).
	Why, Cond string
}

// Has reports whether o belongs to the side's closure.
func (s *Side) Has(o *elfobj.Object) bool { return s.has[o] }

// Shipped reports whether o is one of the side's own inputs.
func (s *Side) Shipped(o *elfobj.Object) bool {
	for _, in := range s.Inputs {
		if in == o {
			return true
		}
	}
	return false
}

// IsExtension reports whether o is a Python extension module: named like one
// (*.cpython-*.so, *.abi3.so) or exporting the PyInit_ function an import
// of its file calls (elfobj.ModuleInit: foo.so's PyInit_foo; a PyInit_ of
// another name is never called, as the import looks up no other).
func IsExtension(o *elfobj.Object) bool {
	if o.Type != elf.ET_DYN || o.Executable {
		return false
	}
	if pylocate.IsExtensionName(baseName(o.Path)) {
		return true
	}
	init := elfobj.ModuleInit(o.Path)
	for i := range o.Symbols {
		if o.Symbols[i].Name == init && o.Symbols[i].Exported() {
			return true
		}
	}
	return false
}

// NewSide makes a side from its inputs. Roots are what the packages' own
// Python opens, in its order and mode (plan), then the extension modules
// (imported as Python does, RTLD_LOCAL) followed by the shared libraries no
// extension reaches, which something must dlopen for them to matter.
func NewSide(name string, inputs []*elfobj.Object, plan PythonPlan) *Side {
	s := &Side{Name: name, Inputs: inputs, Alternatives: plan.Alternatives, Undecided: plan.Undecided}
	s.Roots = append(s.Roots, plan.Roots...)
	var exts, libs []*elfobj.Object
	for _, o := range inputs {
		switch {
		case IsExtension(o):
			exts = append(exts, o)
		case o.Type == elf.ET_DYN && !o.Executable: // a program is run, never dlopened
			libs = append(libs, o)
		}
	}
	sort.SliceStable(exts, func(i, j int) bool { return extRank(exts[i]) < extRank(exts[j]) })
	for _, o := range exts {
		if !s.rooted(o) {
			s.Roots = append(s.Roots, Root{Object: o})
		}
	}
	for _, o := range libs {
		if !s.rooted(o) {
			s.Roots = append(s.Roots, Root{Object: o})
		}
	}
	return s
}

// extRank puts a package's top-level _C extension first: `import torch`
// loads torch._C before any other extension.
func extRank(o *elfobj.Object) int {
	if strings.HasPrefix(path.Base(strings.ReplaceAll(o.Path, "!", "/")), "_C.") {
		return 0
	}
	return 1
}

func (s *Side) rooted(o *elfobj.Object) bool {
	for _, r := range s.Roots {
		if r.Object == o {
			return true
		}
	}
	return false
}

// resolveNames finds the libraries the side's Python opens by name as
// dlopen does from the interpreter (its search path: LD_LIBRARY_PATH, the
// cache, the default directories); one the search does not find here is
// left out, and said so.
func (s *Side) resolveNames(l *Loader, interp *elfobj.Object) {
	roots := s.Roots[:0]
	for _, r := range s.Roots {
		if r.Object == nil {
			needer := interp
			if needer == nil && len(s.Inputs) > 0 {
				needer = s.Inputs[0]
			}
			if needer != nil {
				r.Object = l.Resolve(&elfobj.Object{Machine: needer.Machine, Class: needer.Class}, nil, r.Name).Object
			}
			if r.Object == nil {
				s.Undecided = append(s.Undecided, fmt.Sprintf("%s: %s is not found by the loader's search here", r.Why, r.Name))
				continue
			}
		}
		roots = append(roots, r)
	}
	s.Roots = roots
}

// forPython drops from the roots the extension modules tagged for another
// CPython version than version ("311"; "" keeps them all).
func (s *Side) forPython(version string) {
	if version == "" {
		return
	}
	roots := s.Roots[:0]
	for _, r := range s.Roots {
		// A release interpreter imports its own tag (and 3.7's pymalloc
		// "37m"), never a debug build's ("311d": Debian ships pyodbc's).
		if tag := pylocate.ExtensionTag(baseName(r.Object.Path)); tag != "" && tag != version && tag != version+"m" {
			s.OtherPython = append(s.OtherPython, r.Object)
			continue
		}
		roots = append(roots, r)
	}
	s.Roots = roots
}

// pythonName matches an interpreter's file name or libpython's: python3.11,
// libpython3.11.so.1.0.
var pythonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`python3\.([0-9]+)`) })

// InterpreterVersion is the CPython version interp runs, as extension tags
// spell it ("311"), from its file name or the libpython it links; "" when
// neither says.
func InterpreterVersion(interp *elfobj.Object) string {
	if interp == nil {
		return ""
	}
	for _, name := range append([]string{baseName(interp.Path), baseName(interp.Real)}, interp.Needed...) {
		if m := pythonName().FindStringSubmatch(name); m != nil {
			return "3" + m[1]
		}
	}
	return ""
}

// baseName is the last element of an object's path, inside a wheel too.
func baseName(p string) string { return path.Base(strings.ReplaceAll(p, "!", "/")) }

// resolve fills Closure and Missing as if the side were loaded on its own.
func (s *Side) resolve(l *Loader) {
	p := newProcess(l, closureObjects)
	for _, r := range s.Roots {
		p.Dlopen(r.Object, r.Global)
	}
	// Inputs that are not shared libraries (objects, executables) still
	// belong to the side.
	s.has = map[*elfobj.Object]bool{}
	for _, o := range append(append([]*elfobj.Object(nil), s.Inputs...), p.Order...) {
		if !s.has[o] {
			s.has[o] = true
			s.Closure = append(s.Closure, o)
		}
	}
	s.Missing = p.Missing
}

// LoadStep is one entry of a load order: a side, opened local or global.
type LoadStep struct {
	Side   string
	Global bool
}

// ParseLoadOrder reads --load-order: comma-separated side names ("torch" or
// "peer" for the --with side, "wheel"), each optionally suffixed ":global"
// to open all of that side's roots RTLD_GLOBAL (as TORCH_USE_RTLD_GLOBAL=1 or
// sys.setdlopenflags(RTLD_GLOBAL) would).
func ParseLoadOrder(spec string) ([]LoadStep, error) {
	var steps []LoadStep
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		name, mode, _ := strings.Cut(strings.TrimSpace(part), ":")
		switch name {
		case "peer":
			name = "torch"
		case "torch", "wheel":
		default:
			return nil, fmt.Errorf("--load-order: unknown side %q (want torch, peer or wheel)", name)
		}
		if mode != "" && mode != "global" && mode != "local" {
			return nil, fmt.Errorf("--load-order: unknown mode %q for %s (want global or local)", mode, name)
		}
		if seen[name] {
			return nil, fmt.Errorf("--load-order: %s named twice", name)
		}
		seen[name] = true
		steps = append(steps, LoadStep{Side: name, Global: mode == "global"})
	}
	if !seen["wheel"] {
		steps = append(steps, LoadStep{Side: "wheel"})
	}
	if !seen["torch"] {
		steps = append([]LoadStep{{Side: "torch"}}, steps...)
	}
	return steps, nil
}

// Build is everything the rules ask about.
type Build struct {
	Wheel *Side
	// Peer is the --with side; nil when there is none.
	Peer   *Side
	Loader *Loader
	// Order is the load order Process was run with.
	Order []LoadStep
	// Process is the simulated Python process: the interpreter started,
	// then the sides imported in Order. Its Exe is nil when no interpreter
	// could be read.
	Process *Process
	// indexes holds Duplicates' definitions per process.
	indexes map[*Process]*Definitions
}

// Roots lists what the sides dlopen, in order; nil sides are skipped.
func Roots(sides ...*Side) []*elfobj.Object {
	var roots []*elfobj.Object
	for _, s := range sides {
		if s != nil {
			for _, r := range s.Roots {
				if r.Object != nil {
					roots = append(roots, r.Object)
				}
			}
		}
	}
	return roots
}

// NewBuild resolves both sides and runs the load-order simulation in a
// process of interp, the Python interpreter (nil when none could be read).
func NewBuild(l *Loader, interp *elfobj.Object, wheel, peer *Side, order []LoadStep) *Build {
	b := &Build{Wheel: wheel, Peer: peer, Loader: l, Order: order, Process: newProcess(l, closureObjects)}
	// Both closures in one sweep: the sides share system libraries.
	roots := Roots(wheel, peer)
	if interp != nil {
		roots = append(roots, interp)
	}
	l.Prefetch(roots)
	wheel.resolveNames(l, interp)
	if peer != nil {
		peer.resolveNames(l, interp)
	}
	version := InterpreterVersion(interp)
	wheel.forPython(version)
	wheel.resolve(l)
	if peer != nil {
		peer.forPython(version)
		peer.resolve(l)
	}
	if interp != nil {
		b.Process.Exec(interp)
	}
	for _, step := range order {
		side := b.side(step.Side)
		if side == nil {
			continue
		}
		for _, r := range side.Roots {
			b.Process.Dlopen(r.Object, r.Global || step.Global)
		}
	}
	return b
}

func (b *Build) side(name string) *Side {
	if name == "wheel" {
		return b.Wheel
	}
	return b.Peer
}

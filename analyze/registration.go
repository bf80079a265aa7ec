package analyze

import (
	"fmt"
	"path"
	"strings"

	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
)

// Patterns recognise registration functions: what a backend's or kernel
// library's static initializer calls to put itself in a registry. A pattern is
// a glob over the qualified function name of the demangled symbol, without
// its parameters ("executorch::*::register_backend"); "*" matches within one
// or more name components.
type Patterns struct {
	globs []string
}

// DefaultPatterns are ExecuTorch's and torch's registration entry points.
//
// torch::detail::TorchLibraryInit's constructor is what TORCH_LIBRARY and
// TORCH_LIBRARY_IMPL expand to, but it is inline: in an optimised build the
// initializer calls torch::Library's constructor (and _impl/_def on it)
// directly, so those are registrations too (seen in Debian's libtorch_cpu).
func DefaultPatterns() *Patterns {
	return &Patterns{globs: []string{
		"executorch::*::register_backend",
		"executorch::*::register_kernel",
		"executorch::*::register_kernels",
		"torch::executor::register_kernels",
		"torch::executor::register_kernel",
		"torch::detail::TorchLibraryInit::TorchLibraryInit",
		"torch::Library::Library",
		"torch::Library::_impl",
		"torch::Library::_def",
		"torch::Library::_fallback",
		"c10::RegisterOperators::RegisterOperators",
		"c10::RegisterOperators::checkSchemaAndRegisterOp_",
	}}
}

// Add extends the patterns (etlink.toml [registration] patterns).
func (p *Patterns) Add(globs ...string) error {
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("registration pattern %q: %w", g, err)
		}
	}
	p.globs = append(p.globs, globs...)
	return nil
}

// Match reports whether sym (mangled or plain) names a registration function.
func (p *Patterns) Match(sym string) bool {
	if !strings.HasPrefix(sym, "_Z") && !strings.Contains(sym, "register") {
		return false // cheap exit: C names must say "register" to match
	}
	name := QualifiedName(demangle.Name(sym))
	for _, g := range p.globs {
		if ok, _ := path.Match(strings.ReplaceAll(g, "::", "/"), strings.ReplaceAll(name, "::", "/")); ok {
			return true
		}
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// QualifiedName strips a demangled function's parameters, qualifiers and
// return type: "void a::b<int>::f(int) const" -> "a::b<int>::f".
func QualifiedName(demangled string) string {
	depth, end := 0, len(demangled)
	for i, r := range demangled {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case '(':
			if depth == 0 {
				end = i
			}
		}
		if end != len(demangled) {
			break
		}
	}
	name := demangled[:end]
	// A return type (templates only) is separated by a space at depth 0.
	depth = 0
	start := 0
	for i, r := range name {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ' ':
			if depth == 0 {
				start = i + 1
			}
		}
	}
	return name[start:]
}

// Registration is one registration call found in a static initializer.
type Registration struct {
	Object *elfobj.Object
	// Initializer is the function the initializer table names.
	Initializer string
	// Source and Method say how it was found (see elfobj.Initializer).
	Source, Method string
	// Call is the registration function called (mangled).
	Call string
}

// Registrations lists the registration calls in o's static initializers.
func (p *Patterns) Registrations(o *elfobj.Object) []Registration {
	var out []Registration
	for _, in := range o.Initializers {
		for _, c := range in.Calls {
			if p.Match(c) {
				out = append(out, Registration{Object: o, Initializer: in.Function, Source: in.Source, Method: in.Method, Call: c})
			}
		}
	}
	return out
}

package analyze

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
)

// Patterns recognise registration functions: what a backend's or kernel
// library's static initializer calls to put itself in a registry. A pattern is
// a glob over the qualified function name of the demangled symbol, without
// its parameters ("executorch::*::register_backend"); "*" matches within one
// or more name components.
type Patterns struct {
	globs []glob
	// excludes are registries a handoff to which registers nothing.
	excludes []glob
	// words are the identifiers a name must hold for any glob to match it
	// (nil: some glob has none, and every name is demangled).
	words []string
}

// glob is one pattern, as written and with "::" as "/" (a "*" that stops
// at a component boundary); configured globs count their matches.
type glob struct {
	text, slashed string
	configured    bool
	matched       *atomic.Bool
}

func newGlob(text string, configured bool) glob {
	g := glob{text: text, slashed: strings.ReplaceAll(text, "::", "/"), configured: configured}
	if configured {
		g.matched = new(atomic.Bool)
	}
	return g
}

func (g glob) match(name, slashed string) bool {
	ok, _ := path.Match(g.slashed, slashed)
	if !ok {
		ok, _ = path.Match(g.text, name)
	}
	return ok
}

// lastWord is the identifier a glob ends with (letters after its last
// wildcard), which every name it matches ends with too, and so every
// mangled name it matches spells out: a <source-name> is the identifier's
// length and its letters, a substitution or a constructor repeats one
// spelled before. "" when the glob ends in a wildcard, an operator or a
// word the demangler may write without the mangled name spelling it
// (std::string is "Ss"; builtin types are letters).
func lastWord(g string) string {
	i := len(g)
	for i > 0 && (g[i-1] == '_' || '0' <= g[i-1] && g[i-1] <= '9' || 'a' <= g[i-1] && g[i-1] <= 'z' || 'A' <= g[i-1] && g[i-1] <= 'Z') {
		i--
	}
	if w := g[i:]; !unspelled[w] {
		return w
	}
	return ""
}

// unspelled are the identifiers a demangled name can hold that its mangled
// name need not: the standard abbreviations' (Sa, Sb, Ss, Si, So, Sd) and
// the builtin types' and special names' words.
var unspelled = map[string]bool{
	"std": true, "allocator": true, "basic_string": true, "string": true, "char_traits": true,
	"basic_istream": true, "istream": true, "basic_ostream": true, "ostream": true, "basic_iostream": true, "iostream": true,
	"void": true, "bool": true, "char": true, "wchar_t": true, "char8_t": true, "char16_t": true, "char32_t": true,
	"short": true, "int": true, "long": true, "signed": true, "unsigned": true, "float": true, "double": true,
	"__int128": true, "__float128": true, "decltype": true, "auto": true, "const": true, "volatile": true,
	"operator": true, "lambda": true, "unnamed": true, "anonymous": true, "namespace": true,
}

// DefaultPatterns are ExecuTorch's and torch's registration entry points.
//
// torch::detail::TorchLibraryInit's constructor is what TORCH_LIBRARY and
// TORCH_LIBRARY_IMPL expand to, but it is inline: in an optimised build the
// initializer calls torch::Library's constructor (and _impl/_def on it)
// directly, so those are registrations too (seen in Debian's libtorch_cpu).
func DefaultPatterns() *Patterns {
	p := &Patterns{}
	p.add([]string{
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
	}, false)
	return p
}

// Add extends the patterns (etlink.toml [registration] patterns): each
// names a registry a static initializer calls, C or C++.
func (p *Patterns) Add(globs ...string) error {
	if err := checkGlobs(globs); err != nil {
		return err
	}
	p.add(globs, true)
	return nil
}

// Exclude names registries a handoff to which registers nothing
// (etlink.toml [registration] exclude): a function that takes the unit's
// address only to read it.
func (p *Patterns) Exclude(globs ...string) error {
	if err := checkGlobs(globs); err != nil {
		return err
	}
	for _, g := range globs {
		p.excludes = append(p.excludes, newGlob(g, true))
	}
	return nil
}

func checkGlobs(globs []string) error {
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("registration pattern %q: %w", g, err)
		}
	}
	return nil
}

func (p *Patterns) add(globs []string, configured bool) {
	for _, g := range globs {
		if len(p.globs) == 0 || p.words != nil {
			if w := lastWord(g); w != "" {
				p.words = append(p.words, w)
			} else {
				p.words = nil
			}
		}
		p.globs = append(p.globs, newGlob(g, configured))
	}
}

// Unmatched lists the configured patterns and excludes that have matched
// no function an initializer calls so far.
func (p *Patterns) Unmatched() []string {
	var out []string
	for _, g := range append(slices.Clip(p.globs), p.excludes...) {
		if g.configured && !g.matched.Load() {
			out = append(out, g.text)
		}
	}
	return out
}

// excluded reports whether a configured exclude names sym.
func (p *Patterns) excluded(sym string) bool {
	if len(p.excludes) == 0 {
		return false
	}
	name := QualifiedName(demangle.Name(sym))
	slashed := strings.ReplaceAll(name, "::", "/")
	for _, g := range p.excludes {
		if g.match(name, slashed) {
			g.matched.Store(true)
			return true
		}
	}
	return false
}

// Match reports whether sym (mangled or plain) names a registration function.
func (p *Patterns) Match(sym string) bool {
	if p.words != nil && !slices.ContainsFunc(p.words, func(w string) bool { return strings.Contains(sym, w) }) {
		return false // demangling costs more than looking
	}
	name := QualifiedName(demangle.Name(sym))
	slashed := strings.ReplaceAll(name, "::", "/")
	found := false
	for _, g := range p.globs {
		if g.match(name, slashed) {
			found = true
			if !g.configured {
				continue
			}
			g.matched.Store(true) // every configured pattern that matches is used
		}
	}
	return found
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

// Registration is one registration found in a static initializer: a call
// of a configured registry, or a handoff of the unit to code outside it.
type Registration struct {
	Object *elfobj.Object
	// Initializer is the function the initializer table names.
	Initializer string
	// Source and Method say how it was found (see elfobj.Initializer).
	Source, Method string
	// Call is the registry reached (mangled): the function called, or the
	// object stored into when Arg is -1.
	Call string
	// Handed is the unit's own symbol the initializer hands to Call, and
	// Kind what it is (function, vtable, typeinfo, object); both "" when
	// a configured pattern named Call.
	Handed, Kind string
	// Arg is Handed's argument position (0 for the first), -1 for a store
	// into Call; Indirect is true when Handed reaches Call through memory
	// the argument points to (a factory object carrying its vtable).
	Arg      int
	Indirect bool
	// HandedOn says, for an object handed to its own constructor or method
	// (Arg 0), where that method's definition hands the object on: the
	// input that defines it, and the call or store; HandedIn is the input
	// whose code hands it on last, where its registry is.
	HandedOn string
	HandedIn *elfobj.Object
	// Internal is set for a call bound at link time to the object's own
	// copy of Call (InternalRegistrations).
	Internal bool
	// Guard is the guard variable of the guarded initialization that
	// registers (elfobj.Handoff.Guard): any unit that defines it carries
	// the registration.
	Guard string
}

// Callees is what a link knows of the functions an initializer calls.
type Callees interface {
	// Runtime tells whether a toolchain or system runtime defines sym
	// (glibc, libstdc++, libgcc, a sanitizer's runtime): calls into it
	// hand nothing to a registry.
	Runtime(sym string) bool
	// HandsOn reads the method sym where the link defines it, for what it
	// hands on of the object it runs on.
	HandsOn(sym string) (hs []elfobj.Handoff, in *elfobj.Object, undecided string, ok bool)
}

// Matches lists the calls in o's static initializers that a pattern names.
func (p *Patterns) Matches(o *elfobj.Object) []Registration {
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

// Registrations lists o's registrations: calls a pattern names, then each
// handoff of o's own functions, vtables, typeinfos or objects to code that
// o does not define and no runtime defines (rt), one per initializer,
// registry and symbol handed. Three handoffs are not registrations: the
// object under construction handed to its constructor, or to a function
// constructing it (returned by value into it), or to a method run on it,
// once its destructor is registered with __cxa_atexit; an object handing a
// part of itself to its own method (a vector its inline storage); and an
// argument past the callee's declared parameters (a register the caller
// left as it was).
func (p *Patterns) Registrations(o *elfobj.Object, rt Callees) []Registration {
	var handed []Registration
	found := map[[2]string]bool{}
	for _, in := range o.Initializers {
		for _, r := range p.handoffRegistrations(o, in, rt, false) {
			handed = append(handed, r)
			found[[2]string{r.Initializer, r.Call}] = true
		}
	}
	// A pattern's match that a handoff explains already is the same call.
	matched := slices.DeleteFunc(p.Matches(o), func(r Registration) bool { return found[[2]string{r.Initializer, r.Call}] })
	return append(matched, handed...)
}

// InternalRegistrations lists what o's initializers hand, as a
// registration would, to o's own named functions through calls its static
// linker bound (elfobj.Handoff.Internal): where another object of the
// process defines the function called, o registers into its own copy.
func (p *Patterns) InternalRegistrations(o *elfobj.Object, rt Callees) []Registration {
	var out []Registration
	for _, in := range o.Initializers {
		out = append(out, p.handoffRegistrations(o, in, rt, true)...)
	}
	return out
}

// handoffRegistrations lists the registrations among in's handoffs to
// code outside o, or with internal, to o's own functions.
func (p *Patterns) handoffRegistrations(o *elfobj.Object, in elfobj.Initializer, rt Callees, internal bool) []Registration {
	if len(in.Handoffs) == 0 {
		return nil
	}
	constructed := map[string]bool{}
	for _, h := range in.Handoffs {
		if h.Indirect || h.Kind != "object" || h.Internal != internal {
			continue
		}
		sig, _ := demangle.FunctionSignature(h.Callee)
		if h.Arg == 0 && sig.Constructor || h.Arg == 1 && isAtexit(h.Callee) {
			constructed[h.Symbol] = true
		}
	}
	var out []Registration
	seen := map[[2]string]bool{}
	passedOn := map[string]bool{} // handed out of the object too, for internal
	for _, h := range in.Handoffs {
		if internal && !h.Internal && h.Kind != "" && !rt.Runtime(h.Callee) {
			passedOn[h.Symbol] = true
		}
	}
	for _, h := range in.Handoffs {
		if h.Kind == "" || h.Internal != internal || seen[[2]string{h.Callee, h.Symbol}] {
			continue
		}
		if internal && (h.Kind == "object" && !h.Indirect || passedOn[h.Symbol]) {
			// An object handed to the object's own code is how its own
			// globals are built (a library's state constructed in place);
			// code identities, or an object carrying them, are what a
			// registry is given. What the own function passes on to a
			// registry outside the object (pybind11's hidden
			// embedded_module constructor at -O0, calling libpython's
			// PyImport_AppendInittab) lands where that call binds.
			continue
		}
		if sig, ok := demangle.FunctionSignature(h.Callee); ok && !takes(sig, h) {
			continue
		}
		if h.Receiver || rt.Runtime(h.Callee) || p.excluded(h.Callee) {
			continue
		}
		onward, last := "", (*elfobj.Object)(nil)
		if h.Arg == 0 && !h.Indirect && h.Kind == "object" && constructed[h.Symbol] {
			// The object under construction: it registers only if its
			// constructor, or a method run on it once written, hands it
			// on where the link defines it. A function it is handed to
			// unwritten returns a value into it (static T x = f();).
			sig, _ := demangle.FunctionSignature(h.Callee)
			if internal || !sig.Constructor && !h.Initialized {
				continue
			}
			if onward, last = handedOn(rt, h.Callee); onward == "" {
				continue
			}
		}
		seen[[2]string{h.Callee, h.Symbol}] = true
		out = append(out, Registration{Object: o, Initializer: in.Function, Source: in.Source, Method: in.Method,
			Call: h.Callee, Handed: h.Symbol, Kind: h.Kind, Arg: h.Arg, Indirect: h.Indirect, HandedOn: onward, HandedIn: last, Internal: internal, Guard: h.Guard})
	}
	return out
}

// handedOn says where the method callee, read where the link defines it,
// hands on the object it runs on to code no runtime defines; "" when it
// does not, or cannot be read. A method it runs on the object in another
// input is read there in turn (a template's constructor instantiated in
// the unit calling cl::opt<int>::done() in libLLVM), to a bounded depth.
func handedOn(rt Callees, callee string) (string, *elfobj.Object) {
	return handedOnFrom(rt, callee, map[string]bool{})
}

func handedOnFrom(rt Callees, callee string, asked map[string]bool) (string, *elfobj.Object) {
	if asked[callee] || len(asked) >= 8 {
		return "", nil
	}
	asked[callee] = true
	hs, in, _, ok := rt.HandsOn(callee)
	if !ok {
		return "", nil
	}
	for _, h := range hs {
		if rt.Runtime(h.Callee) {
			continue
		}
		switch {
		case h.Arg < 0:
			return fmt.Sprintf("%s stores it into %s", in.Path, demangle.Name(h.Callee)), in
		case h.Arg > 0:
			return fmt.Sprintf("%s hands it on to %s as argument %d", in.Path, demangle.Name(h.Callee), h.Arg+1), in
		}
		if on, last := handedOnFrom(rt, h.Callee, asked); on != "" {
			return fmt.Sprintf("%s runs %s on it; %s", in.Path, demangle.Name(h.Callee), on), last
		}
	}
	return "", nil
}

// takes reports whether a handoff's argument position is one the callee
// declares: its parameters, after the object for a member. A name need not
// say whether its scope is a class or a namespace: the position after the
// parameters counts unless the caller used that register as a pointer of
// its own (a scratch register left as it was).
func takes(sig demangle.Signature, h elfobj.Handoff) bool {
	switch {
	case h.Arg < sig.Params:
		return true
	case h.Arg > sig.Params:
		return false
	}
	return sig.Member || !h.Dereferenced
}

// isAtexit reports whether a function registers a destructor for a static
// or thread-local object, as the Itanium C++ ABI names it.
func isAtexit(sym string) bool {
	return sym == "__cxa_atexit" || sym == "__cxa_thread_atexit" || sym == "__cxa_thread_atexit_impl"
}

// undecided says why etlink cannot tell whether o, in which it found no
// registration, registers: its code is LTO IR, or the walk of one of its
// initializers stopped short. "" when nothing was left undecided.
func undecided(o *elfobj.Object) string {
	if o.LTO {
		return "it holds GCC's link-time-optimisation IR, not machine code: what its static initializers do exists only after the link"
	}
	for _, in := range o.Initializers {
		if in.Undecided != "" {
			return fmt.Sprintf("static initializer %s: %s", in.Function, in.Undecided)
		}
	}
	return ""
}

package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/jsonw"
)

// ET301 finds symbols that the wheel and its peer (torch) both export.
var ET301 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET301",
		Name:     "defined-by-peer",
		Severity: finding.Warning,
		Summary:  "a symbol the wheel exports is also exported by the peer (torch) or a library it loads",
		Why: `Both definitions end up in one process once the wheel and torch are imported. The
dynamic loader binds each reference to the first definition in that reference's scope:
the interpreter's global scope first (python3 and its libraries, then whatever was opened
RTLD_GLOBAL: torch's libtorch_global_deps, or everything with TORCH_USE_RTLD_GLOBAL=1),
then the module's own dependencies. A STB_GNU_UNIQUE symbol (a template's static data,
an inline function's static) has one definition per process, whichever loaded first.
What breaks depends on how the copies are used (etlink models the loader's binding):
- interposed: a reference binds to the other side's copy, not the one its own link
  resolved: code built against one copy runs with the other's. An error where the copies
  hold state: data the process can write once relocated, TLS, and what the C++ runtime
  compares by address (libc++'s type_info, make_shared's tag), whatever the linkage
  (template static data, an inline function's static and its guard variable), unless
  every copy is STB_GNU_UNIQUE, which the loader binds to one copy per process, and no
  copy comes with a C++ runtime linked in statically (whose own code would then run on
  the system runtime's state). A note
  for code, read-only data (std::piecewise_construct, vtables in RELRO) and RTTI under
  libstdc++, whose type_info::operator== compares names: no state is split. A wheel
  library with libstdc++ linked in statically and exported is the classic error: its
  std:: unique symbols bind to the system libstdc++.so.6 torch loaded, its other
  references to its own copy: two C++ runtimes mixed;
- separate: each side uses its own copy. Two copies of state that is meant to be one per
  process (cpuinfo's cache, XNNPACK's init state, a registry, the C++ or OpenMP runtime,
  gflags/glog, protobuf's pools) is the two-registries bug (warning); other duplicated
  state and duplicated code are notes;
- vague linkage everywhere (weak or unique: templates, inline functions, typeinfo) that
  holds no state is ordinary C++ and a note.
A file both sides load (libstdc++.so.6, libgomp) is a side too: a wheel object that
exports its symbols is a second definition. When one wheel object shares many symbols
with one library (it bundles that library), they are reported as one finding whose
details list every symbol.`,
		Fix: `Stop exporting the bundled copy: build the third-party code with
-fvisibility=hidden, link its archive with -Wl,--exclude-libs,ALL, or give the library a
version script that exports only its own API. For a bundled C++ runtime, link the shared
one (drop -static-libstdc++) or hide it with -Wl,--exclude-libs,ALL. Or link the very
library torch loads (same file, loaded once) instead of a private copy.`,
		Before: `# libexecutorch_threadpool.so bundles cpuinfo with default visibility
$ nm -D --defined-only libexecutorch_threadpool.so | grep cpuinfo_is_initialized
0000000000012340 B cpuinfo_is_initialized
$ etlink conflicts dist/executorch-*.whl --with torch
warning ET301 cpuinfo_is_initialized  libexecutorch_threadpool.so  OBJECT, also exported by libcpuinfo.so.0 (torch); both copies are live`,
		After: `# CMake: keep the bundled copy private
target_link_options(executorch_threadpool PRIVATE "LINKER:--exclude-libs,ALL")
set_target_properties(cpuinfo PROPERTIES C_VISIBILITY_PRESET hidden)
$ etlink conflicts dist/executorch-*.whl --with torch
no findings`,
	},
	Check: checkPeerConflicts,
}

// ET302 finds symbols exported by two shipped objects, or by a non-owner.
var ET302 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET302",
		Name:     "duplicate-within-wheel",
		Severity: finding.Warning,
		Summary:  "a symbol is exported by more than one object of the wheel that one process loads, or not by the library the ownership manifest names",
		Why: `Two shipped objects that export the same registry, thread pool or kernel table give the
process two copies: a backend registers into one table while the runtime reads the
other ("backend is not registered"), or two thread pools oversubscribe the cores. The
monolithic layout had exactly one definer too, inside the extension, so counting
definers is not enough: the ownership manifest says which library must own each group.
Only copies one process maps count, graded as ET301 grades them: the extension modules
Python imports (each RTLD_LOCAL, in a scope of its own), or one of the wheel's programs
with the libraries it loads. Two programs never share a process; an executable's copy
relocation of a library's variable is that variable, not a second one; every extension
module exports its own PyInit_ function.`,
		Fix: `Build each component once, as the shared library that owns it, and link that library
from every consumer instead of compiling or statically linking the component again.
Declare the owner in etlink.toml ([[owner]] library = ..., components = [...]) so a
regression is caught.`,
		Before: `# _portable_lib.so and _training_lib.so each link the runtime statically
$ etlink conflicts dist/executorch-*.whl
warning ET302 executorch::runtime::register_backend  _training_lib.so  also exported by _portable_lib.so`,
		After: `# both extensions link libexecutorch.so; etlink.toml names it the owner
[[owner]]
library = "libexecutorch.so*"
components = ["executorch"]
$ etlink conflicts dist/executorch-*.whl
no findings`,
	},
	Check: checkWheelDuplicates,
}

// ConflictDetails is the Details of an ET301 finding about one symbol and
// of an ET302 finding.
type ConflictDetails struct {
	// Linkage is "strong" or "vague" (every definition weak or unique).
	Linkage string `json:"linkage"`
	// Use is how the process uses the copies: "interposed", "separate"
	// or "unused" (analyze.Use).
	Use      string       `json:"use"`
	Process  string       `json:"process,omitempty"` // ET302: where the copies meet
	Wheel    []DefDetail  `json:"wheel"`
	Peer     []DefDetail  `json:"peer,omitempty"`
	Bindings []BindDetail `json:"bindings,omitempty"`
}

// BundleDetails is the Details of an ET301 finding about a library a wheel
// object bundles: every symbol the two share, each graded on its own.
type BundleDetails struct {
	Library   string         `json:"library"` // the peer's file
	Component string         `json:"component,omitempty"`
	Symbols   []BundleMember `json:"symbols"`
}

// BundleMember is one shared symbol of a bundle.
type BundleMember struct {
	Symbol   string           `json:"symbol"`
	Severity finding.Severity `json:"severity"`
	Details  ConflictDetails  `json:"details"`
}

// DefDetail is one definition as a finding reports it.
type DefDetail struct {
	Object     string `json:"object"`
	Symbol     string `json:"symbol"` // with version: foo@@V1
	Type       string `json:"type"`
	Binding    string `json:"binding"`
	Visibility string `json:"visibility"`
}

// BindDetail says where one object's references go.
type BindDetail struct {
	Side string `json:"side"`
	From string `json:"from"`
	To   string `json:"to,omitempty"` // empty: not bound (not mapped or undefined)
	// Own is where the reference binds when From is loaded alone; set
	// when it differs from To (the reference is interposed).
	Own string `json:"own,omitempty"`
}

// WriteJSON writes d as encoding/json would (jsonw.Value): a torch
// report holds thousands of them.
func (d ConflictDetails) WriteJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("linkage", d.Linkage)
	w.Field("use", d.Use)
	w.OmitEmpty("process", d.Process)
	w.Key("wheel")
	jsonw.Slice(w, d.Wheel, (*DefDetail).writeJSON)
	if len(d.Peer) > 0 {
		w.Key("peer")
		jsonw.Slice(w, d.Peer, (*DefDetail).writeJSON)
	}
	if len(d.Bindings) > 0 {
		w.Key("bindings")
		jsonw.Slice(w, d.Bindings, (*BindDetail).writeJSON)
	}
	w.Close('}')
}

// WriteJSON writes d as encoding/json would (jsonw.Value).
func (d BundleDetails) WriteJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("library", d.Library)
	w.OmitEmpty("component", d.Component)
	w.Key("symbols")
	jsonw.Slice(w, d.Symbols, func(m *BundleMember, w *jsonw.Writer) {
		w.Open('{')
		w.Field("symbol", m.Symbol)
		w.Field("severity", m.Severity.String())
		w.Key("details")
		m.Details.WriteJSON(w)
		w.Close('}')
	})
	w.Close('}')
}

func (d *DefDetail) writeJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("object", d.Object)
	w.Field("symbol", d.Symbol)
	w.Field("type", d.Type)
	w.Field("binding", d.Binding)
	w.Field("visibility", d.Visibility)
	w.Close('}')
}

func (b *BindDetail) writeJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("side", b.Side)
	w.Field("from", b.From)
	w.OmitEmpty("to", b.To)
	w.OmitEmpty("own", b.Own)
	w.Close('}')
}

// later is Details built when they are written: the text report never
// prints them, and a bundle's hold thousands of graded symbols.
type later[T jsonw.Value] func() T

// WriteJSON writes the details, built now (jsonw.Value).
func (l later[T]) WriteJSON(w *jsonw.Writer) { l().WriteJSON(w) }

// MarshalJSON is WriteJSON for encoding/json: the details as it encodes
// them, HTML left to the caller's encoder to escape.
func (l later[T]) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(l())
	return b.Bytes(), err
}

func defDetails(defs []analyze.Def) []DefDetail {
	out := make([]DefDetail, len(defs))
	for i, d := range defs {
		out[i] = DefDetail{Object: d.Object.Path, Symbol: d.Symbol.Versioned(), Type: d.Symbol.TypeName(),
			Binding: d.Symbol.BindingName(), Visibility: d.Symbol.VisibilityName()}
	}
	return out
}

// processWide are the components whose state is meant to be one per
// process: a second copy is a second CPU-info cache, XNNPACK or QNNPACK
// init state, operator or backend registry, C++ or OpenMP runtime, flag or
// log registry, protobuf descriptor pool or ONNX schema registry, oneDNN
// primitive cache. pthreadpool, flatbuffers, fmt, sleef, miniz, leveldb
// keep no such state (a pool is an object its creator owns).
var processWide = map[string]bool{
	"cpuinfo": true, "XNNPACK": true, "QNNPACK": true, "executorch": true, "torch": true,
	"libstdc++": true, "libc++": true, "libstdc++/libgcc": true, "openmp": true,
	"gflags": true, "glog": true, "protobuf": true, "onnx": true, "oneDNN": true,
}

// A verdict is what grade says of a symbol several objects define: its
// severity, its linkage, and why in words.
type verdict struct {
	sev     finding.Severity
	linkage string
	why     string
}

// The verdicts grade gives, one of each: a graded conflict points to its
// own (thousands of conflicts hold a pointer, not two strings each).
var (
	vagueCopies    = verdict{finding.Note, "vague", "vague linkage on every side: the C++ ABI expects copies"}
	uniqueCopies   = verdict{finding.Note, "vague", "STB_GNU_UNIQUE on every side: the loader binds every reference in the process to one copy"}
	mixedState     = verdict{finding.Error, "strong", "references bind to another copy than their own: two states mixed"}
	interposedCode = verdict{finding.Note, "strong", "references bind to another copy than their own, which holds no state to split: code, read-only data or RTTI compared by name"}
	splitOneState  = verdict{finding.Warning, "strong", "both copies are live: two copies of state meant to be one per process"}
	splitState     = verdict{finding.Note, "strong", "both copies are live, each used by its own: two copies of this state (an error only if it is meant to be one per process: name its owner in etlink.toml)"}
	duplicatedCode = verdict{finding.Note, "strong", "both copies are live, each used by its own: duplicated code"}
	oneCopyUsed    = verdict{finding.Note, "strong", "at most one copy is used in the process"}
)

// grade is the verdict on a symbol several objects define, from how the
// process uses the copies and what the symbol is (ET301's documentation).
func (ctx *Context) grade(use analyze.Use, name string, defs ...[]analyze.Def) *verdict {
	state := false
	for _, ds := range defs {
		for _, d := range ds {
			state = state || isState(d)
		}
	}
	switch {
	case analyze.AllVague(defs...) && !state:
		return &vagueCopies
	case analyze.AllUnique(defs...) && !ctx.bundledRuntime(name, defs...):
		// One copy per process by the loader's rule: the state is one,
		// and the code that uses it is the same header code everywhere.
		return &uniqueCopies
	case use == analyze.Interposed && state:
		return &mixedState
	case use == analyze.Interposed:
		return &interposedCode
	case use == analyze.Separate && (state || ctx.registration(name)) && ctx.oneInProcess(name, defs...):
		return &splitOneState
	case use == analyze.Separate && state:
		return &splitState
	case use == analyze.Separate:
		return &duplicatedCode
	}
	return &oneCopyUsed
}

// bundledRuntime reports whether a definer of a C++ runtime's symbol
// carries the runtime itself (linked in statically, not linking the shared
// one): unifying its unique symbols with the system runtime's mixes two
// runtimes' code over one state.
func (ctx *Context) bundledRuntime(name string, defs ...[]analyze.Def) bool {
	if ctx.Components == nil {
		return false
	}
	comp := ctx.Components.Of(name)
	for _, ds := range defs {
		for _, d := range ds {
			if isRuntimeLibrary(d.Object) {
				continue
			}
			if rt := sharedRuntime(d.Object, comp); rt == "" && (comp == "libstdc++" || comp == "libstdc++/libgcc" || comp == "libc++") {
				return true
			}
		}
	}
	return false
}

// isRuntimeLibrary reports whether o is a C++ runtime's shared library.
func isRuntimeLibrary(o *elfobj.Object) bool {
	name := o.Soname
	if name == "" {
		name = baseName(o.Path)
	}
	return strings.HasPrefix(name, "libstdc++.so") || strings.HasPrefix(name, "libc++.so") || strings.HasPrefix(name, "libgcc_s.so")
}

// isState reports whether a definition is state that a second copy splits:
// a writable object (TLS, common, data the process can write once
// relocated), or one whose address the C++ runtime compares. Code,
// read-only data (an empty tag such as std::piecewise_construct, RELRO's
// vtables) and RTTI under libstdc++, whose type_info::operator== compares
// names, are not; under libc++ type_info is compared by address.
func isState(d analyze.Def) bool {
	s := d.Symbol
	if !s.IsState() {
		return false
	}
	rtti := strings.HasPrefix(s.Name, "_ZTI") || strings.HasPrefix(s.Name, "_ZTS")
	switch {
	case addressCompared[s.Name], rtti && linksLibcxx(d.Object):
		return true
	case rtti:
		return false
	}
	if w, known := d.Object.Writable(s); known && !w {
		return false
	}
	return true
}

// addressCompared are read-only objects whose address libstdc++ compares:
// a second copy answers "not the same" (make_shared's type tag).
var addressCompared = map[string]bool{"_ZZNSt19_Sp_make_shared_tag5_S_tiEvE5__tag": true}

// linksLibcxx reports whether o is built against LLVM's libc++.
func linksLibcxx(o *elfobj.Object) bool {
	for _, n := range o.Needed {
		if strings.HasPrefix(n, "libc++.so") {
			return true
		}
	}
	return false
}

// oneInProcess reports whether a symbol's state is meant to be one per
// process: its component keeps process-wide state, or the ownership
// manifest claims it.
func (ctx *Context) oneInProcess(name string, defs ...[]analyze.Def) bool {
	comp := ""
	if ctx.Components != nil {
		comp = ctx.Components.Of(name)
	}
	if processWide[comp] {
		return true
	}
	if ctx.Config != nil {
		for _, own := range ctx.Config.Owners {
			if own.covers(name, comp) {
				return true
			}
		}
	}
	return false
}

// registration reports whether name is a registration function: the data
// behind it is a registry.
func (ctx *Context) registration(name string) bool {
	ctx.once.Do(func() {
		ctx.patterns = analyze.DefaultPatterns()
		if ctx.Config != nil {
			if p, err := ctx.Config.RegistrationPatterns(); err == nil {
				ctx.patterns = p
			}
		}
	})
	return ctx.patterns.Match(name)
}

func (ctx *Context) ignore() analyze.Ignore {
	if ctx.Config == nil {
		return nil
	}
	return ctx.Config.Allowed
}

// bundleMin is how many symbols one wheel object must share with one
// library of the peer for them to be reported as one bundle finding.
const bundleMin = 10

// graded is one ET301 conflict as one wheel definition sees it.
type graded struct {
	c *analyze.Conflict
	w analyze.Def
	*verdict
}

// details are the finding's Details about g's symbol.
func (g *graded) details() ConflictDetails {
	c := g.c
	return ConflictDetails{Linkage: g.linkage, Use: c.Use.String(), Wheel: defDetails(c.Wheel), Peer: defDetails(c.Peer),
		Bindings: bindDetails(c.Bindings)}
}

func checkPeerConflicts(r *Rule, ctx *Context) []finding.Finding {
	b := ctx.Build
	if b.Peer == nil {
		return nil
	}
	cs := b.Conflicts(ctx.ignore())
	// Group each wheel object's conflicts by the peer library defining
	// them: many with one library is a bundled copy of it. A symbol
	// several peer libraries define (a template instance) goes with the
	// one that shares the most with the wheel object.
	type pair struct{ wheel, peer *elfobj.Object }
	shared := map[pair]int{}
	for i := range cs {
		for _, w := range cs[i].Wheel {
			for _, p := range cs[i].Peer {
				shared[pair{w.Object, p.Object}]++
			}
		}
	}
	groups := map[pair][]graded{}
	var order []pair
	for i := range cs {
		c := &cs[i]
		v := ctx.grade(c.Use, c.Name, c.Wheel, c.Peer)
		for _, w := range c.Wheel {
			k := pair{w.Object, c.Peer[0].Object}
			for _, p := range c.Peer[1:] {
				if n := shared[pair{w.Object, p.Object}]; n > shared[k] {
					k.peer = p.Object
				}
			}
			if _, ok := groups[k]; !ok {
				order = append(order, k)
				groups[k] = make([]graded, 0, shared[k]) // at most: the group's symbols are shared by k
			}
			groups[k] = append(groups[k], graded{c, w, v})
		}
	}
	var singles []graded
	var out []finding.Finding
	for _, k := range order {
		g := groups[k]
		if len(g) < bundleMin {
			singles = append(singles, g...)
			continue
		}
		out = append(out, bundleFinding(r, ctx, k.wheel, k.peer, g))
	}
	return append(out, each(len(singles), func(i int, out []finding.Finding) []finding.Finding {
		g := singles[i]
		c := g.c
		msg := fmt.Sprintf("%s, also exported by %s (%s); %s", g.w.Symbol.TypeName(), objectList(c.Peer), b.Peer.Name, g.why)
		subj := subject(ctx, g.w.Object, c.Name)
		subj.Peer = objectList(c.Peer)
		f := r.newFinding(g.sev, subj, msg)
		f.Evidence = append(f.Evidence, defStep("wheel", g.w))
		f.Evidence = append(f.Evidence, peerSteps(b.Peer, c.Peer)...)
		f.Evidence = append(f.Evidence, bindSteps(b, c.Bindings)...)
		f.Fix = r.Fix
		f.Details = later[ConflictDetails](g.details)
		return append(out, f)
	})...)
}

// bundleFinding reports the symbols wheel object w shares with peer
// library p as one finding: the worst of them decides its severity, and
// the evidence shows that one's bindings.
func bundleFinding(r *Rule, ctx *Context, w, p *elfobj.Object, g []graded) finding.Finding {
	b := ctx.Build
	worst := 0
	comps := map[string]int{}
	var count [analyze.Interposed + 1]int
	for i, m := range g {
		if m.sev > g[worst].sev {
			worst = i
		}
		if ctx.Components != nil {
			comps[ctx.Components.Of(m.c.Name)]++
		}
		count[m.c.Use]++
	}
	component := majority(comps)
	what := component
	if what == "" {
		what = "code"
	}
	lib := baseName(p.Path)
	subj := finding.Subject{File: w.Path, Symbol: lib, Component: component, Peer: lib}
	if w.Archive != "" {
		subj.File, subj.Member = w.Archive, w.Member
	}
	how := fmt.Sprintf("%s linked into %s and exported", what, baseName(w.Path))
	fix := r.Fix
	if rt := sharedRuntime(w, component); rt != "" {
		// It links the shared runtime: what it exports are instances of
		// the runtime's header templates, not a second runtime.
		how = fmt.Sprintf("%s's header templates instantiated in %s and exported (it links %s)", what, baseName(w.Path), rt)
		fix = "These are template instances from " + what + "'s headers, not a bundled runtime: keep them private with a version script (or -Wl,--exclude-libs,ALL and -fvisibility=hidden, -fvisibility-inlines-hidden); GCC's -flto exports some of them GLOBAL even under -fvisibility=hidden, which only a version script undoes."
	}
	msg := fmt.Sprintf("exports %d symbols that %s (%s) also defines: %s (%s); worst: %s, %s",
		len(g), lib, b.Peer.Name, how, useCounts(count), demangle.Name(g[worst].c.Name), g[worst].why)
	f := r.newFinding(g[worst].sev, subj, msg)
	f.Evidence = []finding.Step{defStep("wheel", g[worst].w)}
	f.Evidence = append(f.Evidence, peerSteps(b.Peer, g[worst].c.Peer)...)
	f.Evidence = append(f.Evidence, bindSteps(b, g[worst].c.Bindings)...)
	f.Evidence = append(f.Evidence, finding.Step{Text: fmt.Sprintf("%d more symbols shared with %s: the finding's details list each, graded", len(g)-1, lib)})
	f.Fix = fix
	f.Details = later[BundleDetails](func() BundleDetails {
		det := BundleDetails{Library: p.Path, Component: component, Symbols: make([]BundleMember, len(g))}
		for i := range g {
			det.Symbols[i] = BundleMember{Symbol: g[i].c.Name, Severity: g[i].sev, Details: g[i].details()}
		}
		return det
	})
	return f
}

// sharedRuntime is the C++ runtime library w links in DT_NEEDED when the
// bundle's component is that runtime ("" when it is another component or
// w links no shared runtime: then the runtime itself is linked in).
func sharedRuntime(w *elfobj.Object, component string) string {
	prefix := map[string]string{"libstdc++": "libstdc++.so", "libstdc++/libgcc": "libstdc++.so", "libc++": "libc++.so"}[component]
	if prefix == "" {
		return ""
	}
	for _, n := range w.Needed {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// useCounts says how many shared symbols are used which way, the most
// harmful first.
func useCounts(n [analyze.Interposed + 1]int) string {
	var parts []string
	for u := analyze.Interposed; u >= analyze.Unused; u-- {
		if n[u] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[u], u))
		}
	}
	return strings.Join(parts, ", ")
}

func majority(n map[string]int) string {
	best := ""
	for k, v := range n {
		if k != "" && (best == "" || v > n[best] || v == n[best] && k < best) {
			best = k
		}
	}
	return best
}

func subject(ctx *Context, o *elfobj.Object, sym string) finding.Subject {
	s := finding.Subject{File: o.Path, Symbol: sym, Demangled: demangle.Name(sym)}
	if o.Archive != "" {
		s.File, s.Member = o.Archive, o.Member
	}
	if ctx.Components != nil {
		s.Component = ctx.Components.Of(sym)
	}
	return s
}

func defStep(side string, d analyze.Def) finding.Step {
	s := d.Symbol
	return finding.Step{
		Text: fmt.Sprintf("%s: %s exports %s (%s %s %s)", side, d.Object.Path, s.Versioned(),
			s.TypeName(), s.BindingName(), s.VisibilityName()),
		File:   d.Object.Path,
		Symbol: s.Versioned(),
	}
}

// objectList names the definers, at most shownPeers of them.
func objectList(defs []analyze.Def) string {
	names := make([]string, 0, min(len(defs), shownPeers))
	for _, d := range defs[:min(len(defs), shownPeers)] {
		names = append(names, baseName(d.Object.Path))
	}
	if n := len(defs) - shownPeers; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(names, ", ")
}

// shownPeers is how many of the peer's definers a finding names one by
// one: Debian's torch loads 26 OpenCV libraries that define libstdc++'s
// make_shared tag too.
const shownPeers = 4

// peerSteps are the evidence of the peer's definitions: the ones the peer
// ships first, then those of its load closure, at most shownPeers, and a
// step counting the rest (the details list every one).
func peerSteps(peer *analyze.Side, defs []analyze.Def) []finding.Step {
	ordered := slices.Clone(defs)
	slices.SortStableFunc(ordered, func(a, b analyze.Def) int {
		return cmpBool(!peer.Shipped(a.Object), !peer.Shipped(b.Object))
	})
	var steps []finding.Step
	for _, d := range ordered[:min(len(ordered), shownPeers)] {
		steps = append(steps, defStep(peer.Name, d))
	}
	if n := len(ordered) - shownPeers; n > 0 {
		steps = append(steps, finding.Step{Text: fmt.Sprintf("%s: %d more libraries of its load closure export it (%s, ...)", peer.Name, n, baseName(ordered[shownPeers].Object.Path))})
	}
	return steps
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func baseName(p string) string { return path.Base(strings.ReplaceAll(p, "!", "/")) }

func bindDetails(bs []analyze.Binding) []BindDetail {
	out := make([]BindDetail, len(bs))
	for i, bd := range bs {
		out[i] = BindDetail{Side: bd.Side, From: bd.From.Path}
		if bd.To != nil {
			out[i].To = bd.To.Path
		}
		if bd.Interposed() {
			out[i].Own = bd.Own.Path
		}
	}
	return out
}

// bindSteps summarises the bindings per side and target: the shortest chain
// that shows whether the copies are both live, or one interposed.
func bindSteps(b *analyze.Build, bs []analyze.Binding) []finding.Step {
	type key struct{ side, to, own string }
	var order []key
	from := map[key][]string{}
	for _, bd := range bs {
		k := key{bd.Side, "(unbound)", ""}
		if bd.To != nil {
			k.to = bd.To.Path
		}
		if bd.Interposed() {
			k.own = bd.Own.Path
		}
		if _, ok := from[k]; !ok {
			order = append(order, k)
		}
		from[k] = appendUnique(from[k], baseName(bd.From.Path))
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].own != "" && order[j].own == "" })
	steps := make([]finding.Step, 0, len(order))
	for _, k := range order {
		text := fmt.Sprintf("load order %s: references from %s (%s) bind to %s",
			orderString(b.Order), strings.Join(from[k], ", "), k.side, k.to)
		if k.own != "" {
			text += ", not to " + k.own + " as their own link resolved them"
		}
		steps = append(steps, finding.Step{Text: text, File: k.to})
	}
	return steps
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func orderString(steps []analyze.LoadStep) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = s.Side
		if s.Global {
			parts[i] += ":global"
		}
	}
	return strings.Join(parts, ",")
}

func checkWheelDuplicates(r *Rule, ctx *Context) []finding.Finding {
	b := ctx.Build
	var out []finding.Finding
	for _, d := range b.Duplicates(ctx.ignore()) {
		v := ctx.grade(d.Use, d.Name, d.Defs)
		subj := subject(ctx, d.Defs[0].Object, d.Name)
		subj.Peer = objectList(d.Defs[1:])
		msg := fmt.Sprintf("%s, exported by %d objects %s loads: %s; %s", d.Defs[0].Symbol.TypeName(),
			len(d.Defs), baseName(d.Process), objectList(d.Defs), v.why)
		f := r.newFinding(v.sev, subj, msg)
		for _, def := range d.Defs {
			f.Evidence = append(f.Evidence, defStep("wheel", def))
		}
		f.Evidence = append(f.Evidence, bindSteps(b, d.Bindings)...)
		f.Fix = r.Fix
		f.Details = later[ConflictDetails](func() ConflictDetails {
			return ConflictDetails{Linkage: v.linkage, Use: d.Use.String(), Process: d.Process,
				Wheel: defDetails(d.Defs), Bindings: bindDetails(d.Bindings)}
		})
		out = append(out, f)
	}
	return append(out, ownerViolations(r, ctx)...)
}

// ownerViolations reports exports of an owned group by another library.
func ownerViolations(r *Rule, ctx *Context) []finding.Finding {
	if ctx.Config == nil || len(ctx.Config.Owners) == 0 {
		return nil
	}
	var out []finding.Finding
	for _, o := range ctx.Build.Wheel.Inputs {
		for i := range o.Symbols {
			s := &o.Symbols[i]
			if !s.Exported() || analyze.LinkerSymbol(s.Name) {
				continue
			}
			comp := ""
			if ctx.Components != nil {
				comp = ctx.Components.Of(s.Name)
			}
			for _, own := range ctx.Config.Owners {
				if !own.covers(s.Name, comp) {
					continue
				}
				if ok, _ := path.Match(own.Library, baseName(o.Path)); ok {
					continue
				}
				// A manifest breach: graded by what is exported, as the
				// policy is broken wherever the copy is used.
				sev := finding.Warning
				switch {
				case s.Vague():
					sev = finding.Note
				case s.IsState():
					sev = finding.Error
				}
				subj := subject(ctx, o, s.Name)
				subj.Target = "owner " + own.Library // apart from the duplicate finding on the same symbol
				f := r.newFinding(sev, subj, fmt.Sprintf("%s, owned by %s (ownership manifest) but exported by %s",
					s.TypeName(), own.Library, baseName(o.Path)))
				f.Evidence = []finding.Step{
					defStep("wheel", analyze.Def{Object: o, Symbol: s}),
					{Text: fmt.Sprintf("etlink.toml [[owner]] library = %q claims %s", own.Library, ownClaim(own, comp))},
				}
				f.Fix = r.Fix
				out = append(out, f)
			}
		}
	}
	return out
}

func ownClaim(o Owner, comp string) string {
	if comp != "" {
		for _, c := range o.Components {
			if strings.EqualFold(c, comp) {
				return "component " + c
			}
		}
	}
	return "symbols " + strings.Join(o.Symbols, ", ")
}

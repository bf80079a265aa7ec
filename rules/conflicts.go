package rules

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
)

// ET301 finds symbols that the wheel and its peer (torch) both export.
var ET301 = &Rule{
	ID:       "ET301",
	Name:     "defined-by-peer",
	Severity: finding.Warning,
	Summary:  "a symbol the wheel exports is also exported by the peer (torch) or a library it loads",
	Why: `Both definitions end up in one process once the wheel and torch are imported. The
dynamic loader binds each reference to the first definition in that reference's scope:
with Python's default RTLD_LOCAL imports, torch's libraries bind to torch's copy and the
wheel's to its own, so two thread pools, two cpuinfo caches or two XNNPACK states
coexist; with RTLD_GLOBAL (TORCH_USE_RTLD_GLOBAL=1, or a library torch already loaded
under the same SONAME) one side silently runs the other's code, built against other
headers. A duplicated OBJECT or TLS symbol (error) means two copies of state; a
duplicated function (warning) means two copies of code; duplicated weak vague-linkage
definitions (templates, inline functions, typeinfo: note) are ordinary C++ but show
what else is bundled.`,
	Fix: `Stop exporting the bundled copy: build the third-party code with
-fvisibility=hidden, link its archive with -Wl,--exclude-libs,ALL, or give the library a
version script that exports only its own API. Or link the very library torch loads
(same file, loaded once) instead of a private copy.`,
	Before: `# libexecutorch_threadpool.so bundles pthreadpool with default visibility
$ nm -D --defined-only libexecutorch_threadpool.so | grep pthreadpool_create
0000000000012340 T pthreadpool_create
$ etlink conflicts dist/executorch-*.whl --with torch
warning ET301 pthreadpool_create  libexecutorch_threadpool.so  also exported by libpthreadpool.so.0 (torch)`,
	After: `# CMake: keep the bundled copy private
target_link_options(executorch_threadpool PRIVATE "LINKER:--exclude-libs,ALL")
set_target_properties(pthreadpool PROPERTIES C_VISIBILITY_PRESET hidden)
$ etlink conflicts dist/executorch-*.whl --with torch
no findings`,
	Check: checkPeerConflicts,
}

// ET302 finds symbols exported by two shipped objects, or by a non-owner.
var ET302 = &Rule{
	ID:       "ET302",
	Name:     "duplicate-within-wheel",
	Severity: finding.Warning,
	Summary:  "a symbol is exported by more than one object of the wheel, or not by the library the ownership manifest names",
	Why: `Two shipped objects that export the same registry, thread pool or kernel table give the
process two copies: a backend registers into one table while the runtime reads the
other ("backend is not registered"), or two thread pools oversubscribe the cores. The
monolithic layout had exactly one definer too, inside the extension, so counting
definers is not enough: the ownership manifest says which library must own each group.`,
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
	Check: checkWheelDuplicates,
}

// ConflictDetails is the Details of an ET301 finding.
type ConflictDetails struct {
	// Linkage is "strong" or "vague" (every definition weak or unique).
	Linkage  string       `json:"linkage"`
	Wheel    []DefDetail  `json:"wheel"`
	Peer     []DefDetail  `json:"peer"`
	Bindings []BindDetail `json:"bindings,omitempty"`
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
}

func defDetails(defs []analyze.Def) []DefDetail {
	out := make([]DefDetail, len(defs))
	for i, d := range defs {
		out[i] = DefDetail{Object: d.Object.Path, Symbol: d.Symbol.Versioned(), Type: d.Symbol.TypeName(),
			Binding: d.Symbol.BindingName(), Visibility: d.Symbol.VisibilityName()}
	}
	return out
}

// severity grades duplicated definitions: state is an error, code a warning,
// vague linkage everywhere a note.
func severity(defs ...[]analyze.Def) (finding.Severity, string) {
	vague, state := true, false
	for _, ds := range defs {
		for _, d := range ds {
			vague = vague && d.Symbol.Vague()
			state = state || d.Symbol.IsState()
		}
	}
	switch {
	case vague:
		return finding.Note, "vague"
	case state:
		return finding.Error, "strong"
	}
	return finding.Warning, "strong"
}

func (ctx *Context) ignore() analyze.Ignore {
	if ctx.Config == nil {
		return nil
	}
	return ctx.Config.Allowed
}

func checkPeerConflicts(r *Rule, ctx *Context) []finding.Finding {
	b := ctx.Build
	if b.Peer == nil {
		return nil
	}
	cs := b.Conflicts(ctx.ignore())
	return each(len(cs), func(i int, out []finding.Finding) []finding.Finding {
		c := &cs[i]
		sev, linkage := severity(c.Wheel, c.Peer)
		binds := bindDetails(c.Bindings)
		det := ConflictDetails{Linkage: linkage, Wheel: defDetails(c.Wheel), Peer: defDetails(c.Peer), Bindings: binds}
		for _, w := range c.Wheel {
			subj := subject(ctx, w.Object, c.Name)
			msg := fmt.Sprintf("%s, also exported by %s (%s); %s", w.Symbol.TypeName(),
				objectList(c.Peer), b.Peer.Name, liveCopies(c.Bindings))
			f := r.newFinding(sev, subj, msg)
			f.Evidence = append(f.Evidence, defStep("wheel", w))
			for _, p := range c.Peer {
				f.Evidence = append(f.Evidence, defStep(b.Peer.Name, p))
			}
			f.Evidence = append(f.Evidence, bindSteps(b, c.Bindings)...)
			f.Fix = r.Fix
			f.Details = det
			out = append(out, f)
		}
		return out
	})
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

func objectList(defs []analyze.Def) string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = baseName(d.Object.Path)
	}
	return strings.Join(names, ", ")
}

func baseName(p string) string { return path.Base(strings.ReplaceAll(p, "!", "/")) }

// liveCopies says in a few words whether both definitions are in use.
func liveCopies(bs []analyze.Binding) string {
	var targets []string
	bySide := map[string][]string{}
	for _, bd := range bs {
		if bd.To != nil {
			targets = appendUnique(targets, baseName(bd.To.Path))
			bySide[bd.Side] = appendUnique(bySide[bd.Side], baseName(bd.To.Path))
		}
	}
	switch len(targets) {
	case 0:
		return "no reference binds to either copy under this load order"
	case 1:
		return "every reference binds to " + targets[0] + ": code built against the other copy runs this one"
	}
	var parts []string
	for _, side := range sortedSides(bySide) {
		parts = append(parts, side+" binds "+strings.Join(bySide[side], "+"))
	}
	return "both copies are live: " + strings.Join(parts, ", ")
}

func sortedSides(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == "wheel") != (out[j] == "wheel") {
			return out[i] == "wheel" // the wheel first, then its peers by name
		}
		return out[i] < out[j]
	})
	return out
}

func bindDetails(bs []analyze.Binding) []BindDetail {
	out := make([]BindDetail, len(bs))
	for i, bd := range bs {
		out[i] = BindDetail{Side: bd.Side, From: bd.From.Path}
		if bd.To != nil {
			out[i].To = bd.To.Path
		}
	}
	return out
}

// bindSteps summarises the bindings per side and target: the shortest chain
// that shows whether the two copies are both live.
func bindSteps(b *analyze.Build, bs []analyze.Binding) []finding.Step {
	type key struct{ side, to string }
	var order []key
	from := map[key][]string{}
	for _, bd := range bs {
		k := key{bd.Side, "(unbound)"}
		if bd.To != nil {
			k.to = bd.To.Path
		}
		if _, ok := from[k]; !ok {
			order = append(order, k)
		}
		from[k] = appendUnique(from[k], baseName(bd.From.Path))
	}
	steps := make([]finding.Step, 0, len(order))
	for _, k := range order {
		steps = append(steps, finding.Step{
			Text: fmt.Sprintf("load order %s: references from %s (%s) bind to %s",
				orderString(b.Order), strings.Join(from[k], ", "), k.side, k.to),
			File: k.to,
		})
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
		sev, _ := severity(d.Defs)
		subj := subject(ctx, d.Defs[0].Object, d.Name)
		msg := fmt.Sprintf("%s, exported by %d shipped objects: %s", d.Defs[0].Symbol.TypeName(),
			len(d.Defs), objectList(d.Defs))
		f := r.newFinding(sev, subj, msg)
		for _, def := range d.Defs {
			f.Evidence = append(f.Evidence, defStep("wheel", def))
		}
		f.Fix = r.Fix
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
				sev, _ := severity([]analyze.Def{{Object: o, Symbol: s}})
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

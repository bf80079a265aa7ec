package rules

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/linkline"
)

// ET202 finds CMake that links the embedding Python library into an extension.
var ET202 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET202",
		Name:     "cmake-embed-python",
		Severity: finding.Error,
		Summary:  "CMake links Python::Python, ${PYTHON_LIBRARIES}, pybind11::embed or pybind11_add_module(... SHARED) into a Python extension",
		Why: `These name the embedding form of the Python library, for programs that start an
interpreter. Linked into an extension module they add DT_NEEDED libpython3.X.so, usually
by the build machine's absolute path (ET201 on the built file): the module then fails to
import where that file is missing and drags a second interpreter library into a python3
that is a different build. pybind11_add_module(name SHARED ...) goes through
Python_add_library(SHARED), which links Python::Python, and links pybind11::embed.
The rule judges the target's LINK_LIBRARIES as they stand at the end of configuration:
a project function that rewrites them without the embedding items (get_target_property,
list(FILTER), set_target_properties) fixes the link, and its evidence names every line
that changed them. Where etlink cannot evaluate such a rewrite it says so at note level.`,
		Fix: `Link the module form: Python::Module / Python3::Module (FindPython 3.15+),
pybind11::module, or pybind11_add_module(name MODULE ...) (MODULE is the default). A
SHARED target that other targets link cannot become a MODULE: drop the embedding items
from its LINK_LIBRARIES instead.`,
		Before: `pybind11_add_module(_portable_lib SHARED pybindings.cpp)
target_link_libraries(_portable_lib PRIVATE Python3::Python)`,
		After: `pybind11_add_module(_portable_lib MODULE pybindings.cpp)
target_link_libraries(_portable_lib PRIVATE Python3::Module)`,
	},
	Check: checkCMakeEmbed,
}

// embedItems are the link items that mean libpython, and what to use instead.
var embedItems = map[string]string{
	"Python::Python":       "Python::Module",
	"Python3::Python":      "Python3::Module",
	"pybind11::embed":      "pybind11::module",
	"${PYTHON_LIBRARIES}":  "Python3::Module (FindPython) or pybind11::module",
	"${PYTHON_LIBRARY}":    "Python3::Module (FindPython) or pybind11::module",
	"${Python3_LIBRARIES}": "Python3::Module",
	"${Python3_LIBRARY}":   "Python3::Module",
	"${Python_LIBRARIES}":  "Python::Module",
	"${Python_LIBRARY}":    "Python::Module",
}

// embedItem says whether a link item names libpython, and the fix. Only the
// variables FindPython and FindPythonLibs define count: look-alikes such as
// ${TORCH_PYTHON_LIBRARY} (libtorch_python) are other libraries. The
// wrappers CMake and projects put around an item do not hide it:
// $<LINK_ONLY:...>, $<BUILD_INTERFACE:...>, $<TARGET_NAME_IF_EXISTS:...>,
// $<$<CONFIG:...>:...>.
func embedItem(li cmake.LinkItem) (string, bool) {
	for _, s := range append([]string{strings.TrimSpace(li.Raw)}, cmake.Unwrap(li.Item)...) {
		if fix, ok := embedItems[s]; ok {
			return fix, true
		}
		if IsLibpython(s) || strings.HasPrefix(s, "-lpython3") {
			return "Python3::Module", true
		}
	}
	return "", false
}

func checkCMakeEmbed(r *Rule, ctx *Context) []finding.Finding {
	// A configured build's codemodel is CMake's own evaluation: for the
	// targets it holds, it decides, and etlink's reading of the source only
	// says where the two differ.
	model := map[string]*analyze.LinkFacts{}
	var out []finding.Finding
	for _, f := range ctx.Retention {
		if f.Link.DriverSource == "" || f.Link.Target == "" {
			continue // not from a File API reply
		}
		model[f.Link.Target] = f
		out = append(out, codemodelEmbed(r, f)...)
	}
	if ctx.CMake == nil {
		return out
	}
	for _, t := range ctx.CMake.Targets {
		if !t.Extension {
			continue
		}
		if plugin, src := embeddingPlugin(t); plugin {
			fd := r.newFinding(finding.Note, finding.Subject{File: t.Def.File, Target: t.Name, Symbol: "embedding-plugin"},
				fmt.Sprintf("%s is %s, but its source %s starts an interpreter and none defines a module's init function: taken for a plugin that embeds Python, not an extension (its libpython link is not judged)", t.Name, t.ExtensionWhy, src))
			fd.Location = &finding.Location{File: t.Def.File, Line: t.Def.Line}
			out = append(out, fd)
			continue
		}
		mine := oncePerCause(append(embedFindings(r, ctx.CMake, t), usageEmbeds(r, ctx.CMake, t)...))
		for k := range mine {
			mine[k].Evidence = append(mine[k].Evidence, finding.Step{Text: fmt.Sprintf(
				"read as CMake %s reads it: its CMAKE_VERSION, policies and FindPython targets decide the if()s around it", ctx.CMake.CMakeVersion)})
		}
		f, ok := model[t.Name]
		switch {
		case !ok && len(model) > 0:
			// The configured build has no such target: the source makes
			// it only in a configuration this build did not take.
			out = append(out, notConfigured(mine)...)
			continue
		case !ok:
			out = append(out, mine...)
			continue
		}
		if saysEmbed(mine) != (len(libpythonInputs(f)) > 0) {
			out = append(out, disagreeNote(r, t, f, saysEmbed(mine)))
		}
	}
	return oneLinePerCause(out)
}

// oneLinePerCause folds the errors that one line causes in several
// extensions (a helper macro's body, a helper library's usage requirement)
// into one finding naming them all: one line to change.
func oneLinePerCause(fs []finding.Finding) []finding.Finding {
	type key struct{ loc, item string }
	first := map[key]int{}
	var targets [][]string
	counts := map[int]int{} // targets of one name beyond the first (a name computed at configure time)
	out := fs[:0]
	for _, f := range fs {
		if f.Severity < finding.Warning || f.Location == nil {
			out = append(out, f)
			continue
		}
		k := key{f.Location.File + ":" + strconv.Itoa(f.Location.Line), f.Subject.Symbol}
		if i, ok := first[k]; ok {
			if !slices.Contains(targets[i], f.Subject.Target) {
				targets[i] = append(targets[i], f.Subject.Target)
			} else {
				counts[i]++
			}
			continue
		}
		first[k] = len(targets)
		targets = append(targets, []string{f.Subject.Target})
		out = append(out, f)
	}
	for k, i := range first {
		names := targets[i]
		n := len(names) + counts[i]
		if n < 2 {
			continue
		}
		for j := range out {
			f := &out[j]
			if f.Location == nil || f.Severity < finding.Warning || k != (key{f.Location.File + ":" + strconv.Itoa(f.Location.Line), f.Subject.Symbol}) {
				continue
			}
			shown := names
			if len(shown) > 5 {
				shown = append(slices.Clip(shown[:5]), fmt.Sprintf("%d more", len(names)-5))
			}
			f.Message = fmt.Sprintf("%d extensions (%s) link %s: the embedding Python library", n, strings.Join(shown, ", "), f.Subject.Symbol)
			f.Evidence = append(f.Evidence, finding.Step{Text: "the same line links it into " + strings.Join(names, ", ")})
			f.Subject.Target = ""
		}
	}
	return out
}

// moduleInits are what an extension's source defines for Python to import
// it; embedInits what a program or plugin calls to start an interpreter.
var (
	moduleInits = []string{"PyInit_", "PyMODINIT_FUNC", "PYBIND11_MODULE", "NB_MODULE", "BOOST_PYTHON_MODULE", "PyModule_Create", "Py_InitModule"}
	embedInits  = []string{"Py_Initialize"}
)

// embeddingPlugin reports whether a target taken for an extension only by
// its form (a MODULE library, a SHARED one without prefix) is a plugin
// that embeds Python (dnf5's python_plugins_loader): its sources, read
// where the tree holds them, call Py_Initialize and define no module init.
// Unreadable or generated sources (Cython) leave it an extension.
func embeddingPlugin(t *cmake.Target) (bool, string) {
	if !strings.EqualFold(t.Creator, "add_library") {
		return false, ""
	}
	dir := filepath.Dir(t.Def.File)
	embeds, read := "", 0
	for _, a := range t.CreatorArgs {
		switch strings.ToLower(filepath.Ext(a.Text)) {
		case ".c", ".cc", ".cpp", ".cxx", ".c++":
		default:
			continue
		}
		p := a.Text
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := datafile.ReadFile(p, 1<<20)
		if err != nil {
			return false, ""
		}
		read++
		text := string(b)
		for _, m := range moduleInits {
			if strings.Contains(text, m) {
				return false, ""
			}
		}
		for _, m := range embedInits {
			if embeds == "" && strings.Contains(text, m) {
				embeds = a.Text
			}
		}
	}
	return read > 0 && embeds != "", embeds
}

// oncePerCause keeps one finding per target and line: an item the
// extension links itself and again through a library it links is one
// line to change.
func oncePerCause(fs []finding.Finding) []finding.Finding {
	seen := map[string]bool{}
	out := fs[:0]
	for _, f := range fs {
		k := f.Subject.Target
		if f.Location != nil {
			k += "\x00" + f.Location.File + ":" + strconv.Itoa(f.Location.Line)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}

// saysEmbed reports whether findings say a target links libpython.
func saysEmbed(fs []finding.Finding) bool {
	for _, f := range fs {
		if f.Severity > finding.Note {
			return true
		}
	}
	return false
}

// libpythonInputs are the libpython items of a link.
func libpythonInputs(f *analyze.LinkFacts) []linkline.Input {
	var out []linkline.Input
	for _, in := range f.Link.Inputs {
		if !in.Implicit && (IsLibpython(in.Path) || IsLibpython(in.Arg) || libpythonFlag(in.Arg)) {
			out = append(out, in)
		}
	}
	return out
}

// codemodelEmbed reports an extension whose link, as CMake's codemodel
// generates it, names libpython, at the CMakeLists.txt line its backtrace
// leads to.
func codemodelEmbed(r *Rule, f *analyze.LinkFacts) []finding.Finding {
	if f.Extension == "" {
		return nil
	}
	var out []finding.Finding
	for _, in := range libpythonInputs(f) {
		subj := finding.Subject{File: in.Source.CMakeFile, Target: f.Link.Target, Symbol: "libpython"}
		fd := r.newFinding(r.Severity, subj, fmt.Sprintf("extension %s links %s (CMake's codemodel), added by %s", f.Link.Target, in.Arg, in.Source.CMakeCommand))
		fd.Location = &finding.Location{File: in.Source.CMakeFile, Line: in.Source.CMakeLine}
		fd.Evidence = []finding.Step{
			{Text: "a Python extension module: " + f.Extension},
			inputStep(in, f.Link),
		}
		fd.Fix = r.Fix
		out = append(out, fd)
	}
	return out
}

// notConfigured lowers findings on a target the codemodel lacks to notes
// that say so: CMake, which decides, did not create the target in the
// configuration linted, so no link of it can be confirmed.
func notConfigured(fs []finding.Finding) []finding.Finding {
	for k := range fs {
		if fs[k].Severity > finding.Note {
			fs[k].Severity = finding.Note
			fs[k].Message += "; not in the configured build (CMake's codemodel has no target " + fs[k].Subject.Target + "): could not decide for this configuration"
		}
	}
	return fs
}

// disagreeNote says that etlink's reading of the CMake and CMake's own
// codemodel differ on whether a target links libpython: the codemodel is
// what the build does; the reading is what a pre-configure lint would say.
func disagreeNote(r *Rule, t *cmake.Target, f *analyze.LinkFacts, mine bool) finding.Finding {
	say := map[bool]string{true: "links the embedding Python library", false: "does not link it"}
	fd := r.newFinding(finding.Note, finding.Subject{File: t.Def.File, Target: t.Name, Symbol: "codemodel-disagreement"},
		fmt.Sprintf("etlink's reading of the CMake says %s %s; CMake's codemodel says it %s: the codemodel wins", t.Name, say[mine], say[!mine]))
	fd.Location = &finding.Location{File: t.Def.File, Line: t.Def.Line}
	fd.Evidence = append(targetSteps(t), linkStep(f))
	return fd
}

// embedFindings judges one extension target's link items as they stand at
// the end of configuration: the items its creator linked (one finding for
// them all), each item the project wrote, and a note when a rewrite of the
// link properties took the creator's away.
func embedFindings(r *Rule, p *cmake.Project, t *cmake.Target) []finding.Finding {
	var out []finding.Finding
	var implicit []cmake.LinkItem
	nLinks := len(t.Links)
	said := map[[2]string]bool{} // written item and location: one finding per cause
	for k, li := range append(slices.Clip(t.Links), t.Options...) {
		fix, ok := embedItem(li)
		if !ok || li.Scope == "INTERFACE" {
			continue // an INTERFACE item is its consumers' link, not its own
		}
		if li.Implicit != "" {
			implicit = append(implicit, li)
			continue
		}
		written := writtenAs(li)
		at := changeAt(li)
		if key := [2]string{written, at.String()}; said[key] {
			continue
		} else {
			said[key] = true
		}
		f := r.newFinding(r.Severity, finding.Subject{File: at.File, Target: t.Name, Symbol: written},
			fmt.Sprintf("extension %s links %s: the embedding Python library", t.Name, written))
		f.Location = &finding.Location{File: at.File, Line: at.Line}
		f.Evidence = append(append(targetSteps(t), linkItemSteps(t, li, written)...), editSteps(t)...)
		f.Fix = fmt.Sprintf("link %s instead of %s", fix, itemOf(li))
		if k >= nLinks {
			f.Message = fmt.Sprintf("extension %s links with the option %s: the embedding Python library", t.Name, written)
			f.Fix = fmt.Sprintf("remove %s from its link options: the interpreter that imports the extension provides Python's symbols", written)
		}
		out = append(out, f)
	}
	creatorEmbeds := strings.EqualFold(t.Creator, "pybind11_add_module") && hasArg(t.CreatorArgs, "SHARED")
	switch {
	case len(implicit) > 0:
		var names []string
		for _, li := range implicit {
			names = append(names, li.Item)
		}
		f := r.newFinding(r.Severity, finding.Subject{File: t.Def.File, Target: t.Name, Symbol: "pybind11_add_module SHARED"},
			fmt.Sprintf("%s(%s %s ...) links the embedding Python library (%s) into the extension", t.Creator, t.Name, t.Kind, strings.Join(names, ", ")))
		f.Location = &finding.Location{File: t.Def.File, Line: t.Def.Line}
		f.Evidence = targetSteps(t)
		for _, li := range implicit {
			f.Evidence = append(f.Evidence, finding.Step{Text: li.Implicit, File: li.Loc.File, Line: li.Loc.Line})
		}
		f.Evidence = append(f.Evidence, editSteps(t)...)
		f.Fix = embedFix(p, t)
		out = append(out, f)
	case creatorEmbeds && len(t.LinkEdits) > 0:
		// The creator's embedding items are gone: say what took them.
		f := r.newFinding(finding.Note, finding.Subject{File: t.Def.File, Target: t.Name, Symbol: "pybind11_add_module SHARED"},
			fmt.Sprintf("%s(%s SHARED ...) links the embedding Python library, but LINK_LIBRARIES is rewritten without it: not linked", t.Creator, t.Name))
		f.Location = &finding.Location{File: t.Def.File, Line: t.Def.Line}
		f.Evidence = append(targetSteps(t), editSteps(t)...)
		switch {
		case unknownAfterEdit(t):
			f.Message = fmt.Sprintf("%s(%s SHARED ...) links the embedding Python library; LINK_LIBRARIES is rewritten from a value etlink could not evaluate: could not decide whether it still links it", t.Creator, t.Name)
		case editUndecided(t):
			f.Message = fmt.Sprintf("%s(%s SHARED ...) links the embedding Python library; LINK_LIBRARIES is rewritten without it under a condition etlink could not decide: could not decide whether it still links it (-D decides the condition)", t.Creator, t.Name)
		}
		out = append(out, f)
	}
	return out
}

// writtenAs names a link item as a person finds it: the item, and the
// argument it came from when that is a variable or a wrapper's parameter
// ("Python::Python (from ${LIBS})": dropping ${LIBS} would drop the
// project's own libraries with it).
func writtenAs(li cmake.LinkItem) string {
	switch {
	case li.Raw == "":
		return li.Item
	case li.Unknown || li.Raw == li.Item || !strings.Contains(li.Raw, "${"):
		return li.Raw
	}
	return fmt.Sprintf("%s (from %s)", li.Item, li.Raw)
}

// itemOf is the item a fix replaces: the value, where known.
func itemOf(li cmake.LinkItem) string {
	if li.Unknown || li.Item == "" {
		return li.Raw
	}
	return li.Item
}

// changeAt is where a person changes a link item: where it is written,
// or, for an item a wrapper function or macro links from what its caller
// passed (${ARGN}, a parameter), the outermost call in the project's own
// files; the wrapper's body is the same line for every caller.
func changeAt(li cmake.LinkItem) cmake.Location {
	if len(li.Loc.Via) == 0 || li.Raw == "" {
		return li.Loc
	}
	if _, literal := embedItem(cmake.LinkItem{Raw: li.Raw, Item: li.Raw}); literal {
		return li.Loc // the wrapper itself names the item
	}
	return li.Loc.Outermost()
}

// usageEmbeds follows t's links into the project's own targets and their
// usage requirements, as CMake does: an INTERFACE or PUBLIC item of a
// library t links (a helper INTERFACE library carrying
// ${Python_LIBRARIES}), transitively, and a static library's PRIVATE items,
// which CMake passes on as $<LINK_ONLY:...>. Each libpython item reached
// is a finding at the line that wrote it, with the chain of targets.
func usageEmbeds(r *Rule, p *cmake.Project, t *cmake.Target) []finding.Finding {
	var out []finding.Finding
	seen := map[*cmake.Target]bool{t: true}
	type hop struct {
		dep   *cmake.Target
		chain []finding.Step
	}
	var queue []hop
	push := func(from *cmake.Target, chain []finding.Step, li cmake.LinkItem) {
		dep := p.Target(li.Item)
		if dep == nil || seen[dep] || li.Implicit != "" {
			return
		}
		seen[dep] = true
		step := finding.Step{Text: fmt.Sprintf("%s links %s (%s)%s", from.Name, dep.Name, scopeOr(li.Scope), via(li.Loc)), File: li.Loc.File, Line: li.Loc.Line}
		queue = append(queue, hop{dep, append(slices.Clip(chain), step)})
	}
	for _, li := range t.Links {
		if li.Scope != "INTERFACE" {
			push(t, nil, li)
		}
	}
	for len(queue) > 0 && len(seen) < 1000 {
		h := queue[0]
		queue = queue[1:]
		for _, li := range h.dep.Links {
			passed := li.Scope != "PRIVATE" || h.dep.Kind == cmake.KindStatic
			if !passed {
				continue
			}
			fix, ok := embedItem(li)
			if !ok {
				push(h.dep, h.chain, li)
				continue
			}
			written := writtenAs(li)
			at := changeAt(li)
			f := r.newFinding(r.Severity, finding.Subject{File: at.File, Target: t.Name, Symbol: written},
				fmt.Sprintf("extension %s links %s through %s: the embedding Python library", t.Name, written, h.dep.Name))
			f.Location = &finding.Location{File: at.File, Line: at.Line}
			f.Evidence = append(append(targetSteps(t), h.chain...), finding.Step{
				Text: fmt.Sprintf("%s passes %s on to what links it (%s: its usage requirement)%s", h.dep.Name, written, scopeOr(li.Scope), via(li.Loc)),
				File: li.Loc.File, Line: li.Loc.Line})
			f.Fix = fmt.Sprintf("link %s instead of %s in %s (a library that extensions link must not carry libpython)", fix, itemOf(li), h.dep.Name)
			out = append(out, f)
		}
	}
	return out
}

// unknownAfterEdit reports whether a link property rewrite wrote items
// etlink could not evaluate (an item unknown before and passed through is
// no doubt the rewrite raised).
func unknownAfterEdit(t *cmake.Target) bool {
	for _, li := range t.Links {
		for _, e := range t.LinkEdits {
			if li.Unknown && li.Loc.File == e.Loc.File && li.Loc.Line == e.Loc.Line {
				return true
			}
		}
	}
	return false
}

// editUndecided reports whether a link property rewrite sits under an
// undecided condition the target itself is not under: the rewrite may not
// happen.
func editUndecided(t *cmake.Target) bool {
	for _, e := range t.LinkEdits {
		if len(underSteps(e.Loc.Under, t.Def.Under)) > 0 {
			return true
		}
	}
	return false
}

// editSteps name every command that set the target's link properties, and
// the undecided conditions it sits under.
func editSteps(t *cmake.Target) []finding.Step {
	var steps []finding.Step
	for _, e := range t.LinkEdits {
		steps = append(steps, finding.Step{Text: e.What + via(e.Loc), File: e.Loc.File, Line: e.Loc.Line})
		steps = append(steps, underSteps(e.Loc.Under, t.Def.Under)...)
	}
	return steps
}

// embedFix is the fix for a creator that links the embedding library: the
// MODULE form, unless other targets link the target (CMake refuses to link a
// MODULE): then its LINK_LIBRARIES without the embedding items.
func embedFix(p *cmake.Project, t *cmake.Target) string {
	var users []string
	for _, u := range p.Targets {
		for _, li := range u.Links {
			if u != t && li.Item == t.Name {
				users = append(users, u.Name)
				break
			}
		}
	}
	if len(users) == 0 {
		return fmt.Sprintf("%s(%s MODULE ...)", t.Creator, t.Name)
	}
	return fmt.Sprintf("%s cannot become a MODULE (%s link it): remove Python::Python / pybind11::embed from its LINK_LIBRARIES and link pybind11::module (get_target_property, list(FILTER ... EXCLUDE REGEX), set_target_properties)",
		t.Name, strings.Join(users, ", "))
}

func hasArg(args []cmake.Arg, word string) bool {
	for _, a := range args {
		if strings.EqualFold(a.Text, word) {
			return true
		}
	}
	return false
}

// targetSteps say why the target counts as an extension, where it is
// defined, and under which undecided conditions.
func targetSteps(t *cmake.Target) []finding.Step {
	steps := []finding.Step{{
		Text: fmt.Sprintf("%s is a Python extension (%s), created by %s%s", t.Name, t.ExtensionWhy, t.Creator, via(t.Def)),
		File: t.Def.File, Line: t.Def.Line,
	}}
	return append(steps, underSteps(t.Def.Under, nil)...)
}

// underSteps name the undecided conditions in under that are not in outer.
func underSteps(under, outer []cmake.Cond) []finding.Step {
	var steps []finding.Step
	for _, c := range under {
		if !slices.Contains(outer, c) {
			steps = append(steps, finding.Step{Text: fmt.Sprintf("under %s, which etlink could not decide", c.Text), File: c.File, Line: c.Line})
		}
	}
	return steps
}

// linkItemSteps say where the item was linked, and under which undecided
// conditions beyond those the target was created under.
func linkItemSteps(t *cmake.Target, li cmake.LinkItem, written string) []finding.Step {
	step := finding.Step{Text: fmt.Sprintf("links %s (%s)%s", written, scopeOr(li.Scope), via(li.Loc)), File: li.Loc.File, Line: li.Loc.Line}
	steps := append([]finding.Step{step}, underSteps(li.Loc.Under, t.Def.Under)...)
	for _, o := range li.Origins {
		steps = append(steps, finding.Step{Text: fmt.Sprintf("%s put %s into %s%s", o.Cmd, li.Item, li.Raw, via(o.Loc)), File: o.Loc.File, Line: o.Loc.Line})
	}
	return steps
}

func scopeOr(s string) string {
	if s == "" {
		return "no scope keyword"
	}
	return s
}

// via names the wrapper calls that led to a location.
func via(l cmake.Location) string {
	if len(l.Via) == 0 {
		return ""
	}
	var calls []string
	for _, f := range l.Via {
		calls = append(calls, fmt.Sprintf("%s() at %s:%d", f.Function, f.File, f.Line))
	}
	return ", through " + strings.Join(calls, " -> ")
}

// ET204 says what of the project's CMake etlink did not read.
var ET204 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET204",
		Name:     "cmake-not-read",
		Severity: finding.Note,
		Summary:  "part of the project's CMake was not read, or decided on a guess: a command no file read defines, a file outside the tree or absent, an evaluation bound, a condition on a value etlink took without knowing it",
		Why: `etlink reads CMake without running it, and judges only what it reads. A command
defined in a module or package configuration it did not read may link libpython into a
target (a project's own add_python_module() helper kept outside the repository); a file
outside it, a subdirectory the checkout lacks (a submodule not cloned), a command on a
target etlink does not know and an evaluation bound reached on a hostile tree hide what
they hold, and a condition decided on a guess (if(${S}) where S holds a word etlink takes
for an unset variable) may skip what a build reads. A lint that passed over them in
silence would say "no findings" of code it never saw. One note per command name (with
its count of calls), per file and per bound; CMake's own commands are never notes.`,
		Fix: `Lint the directory that holds the whole project (the repository root), so that the
files it includes are read; check out the submodules it adds. A command from a package
etlink does not model stays a note: check what it links by hand, or lint a configured
build directory, whose File API reply has CMake's own answer.`,
		Before: `include(../cmake/python_helpers.cmake)   # outside the linted directory
add_python_module(_core core.cpp)
$ etlink lint tools/python
note ET204 add_python_module() is neither CMake's nor defined in a file read (1 calls, the first here)`,
		After: `$ etlink lint .                  # the repository root: python_helpers.cmake is read
error ET202 extension _core links Python::Python: the embedding Python library`,
	},
	Check: checkCMakeNotRead,
}

// notReadKinds are the evaluation notes that say something was not read;
// the undecided conditions (every branch read) are not among them.
var notReadKinds = map[string]bool{cmake.NoteModule: true, cmake.NoteMissing: true, cmake.NoteCommand: true, cmake.NoteLimit: true,
	cmake.NoteGuessed: true, cmake.NoteTarget: true}

// noteSubject is what a note is about, as its message leads with it:
// include(CTest), add_subdirectory(gflags), check_include_file().
func noteSubject(msg string) string {
	if i := strings.Index(msg, " is neither"); i > 0 {
		return msg[:i]
	}
	if lead, _, ok := strings.Cut(msg, ": "); ok {
		return lead
	}
	return msg
}

func checkCMakeNotRead(r *Rule, ctx *Context) []finding.Finding {
	if ctx.CMake == nil {
		return nil
	}
	var out []finding.Finding
	for _, n := range ctx.CMake.Notes {
		if !notReadKinds[n.Kind] {
			continue
		}
		f := r.newFinding(r.Severity, finding.Subject{File: n.Loc.File, Symbol: noteSubject(n.Msg)}, n.Msg)
		f.Location = &finding.Location{File: n.Loc.File, Line: n.Loc.Line}
		out = append(out, f)
	}
	return out
}

package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/finding"
)

// ET202 finds CMake that links the embedding Python library into an extension.
var ET202 = &Rule{
	ID:       "ET202",
	Name:     "cmake-embed-python",
	Severity: finding.Error,
	Summary:  "CMake links Python::Python, ${PYTHON_LIBRARIES}, pybind11::embed or pybind11_add_module(... SHARED) into a Python extension",
	Why: `These name the embedding form of the Python library, for programs that start an
interpreter. Linked into an extension module they add DT_NEEDED libpython3.X.so, usually
by the build machine's absolute path (ET201 on the built file): the module then fails to
import where that file is missing and drags a second interpreter library into a python3
that is a different build. pybind11_add_module(name SHARED ...) goes through
Python_add_library(SHARED), which links Python::Python.`,
	Fix: `Link the module form: Python::Module / Python3::Module (FindPython 3.15+),
pybind11::module, or pybind11_add_module(name MODULE ...) (MODULE is the default).`,
	Before: `pybind11_add_module(_portable_lib SHARED pybindings.cpp)
target_link_libraries(_portable_lib PRIVATE Python3::Python)`,
	After: `pybind11_add_module(_portable_lib MODULE pybindings.cpp)
target_link_libraries(_portable_lib PRIVATE Python3::Module)`,
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
// ${TORCH_PYTHON_LIBRARY} (libtorch_python) are other libraries.
func embedItem(li cmake.LinkItem) (string, bool) {
	for _, s := range []string{strings.TrimSpace(li.Raw), li.Item} {
		if fix, ok := embedItems[s]; ok {
			return fix, true
		}
	}
	if IsLibpython(li.Item) || strings.HasPrefix(li.Item, "-lpython3") {
		return "Python3::Module", true
	}
	return "", false
}

func checkCMakeEmbed(r *Rule, ctx *Context) []finding.Finding {
	if ctx.CMake == nil {
		return nil
	}
	var out []finding.Finding
	for _, t := range ctx.CMake.Targets {
		if !t.Extension {
			continue
		}
		if strings.EqualFold(t.Creator, "pybind11_add_module") && hasArg(t.CreatorArgs, "SHARED") {
			f := r.newFinding(r.Severity, finding.Subject{File: t.Def.File, Target: t.Name, Symbol: "pybind11_add_module SHARED"},
				fmt.Sprintf("pybind11_add_module(%s SHARED ...) links the embedding Python library into the extension", t.Name))
			f.Location = &finding.Location{File: t.Def.File, Line: t.Def.Line}
			f.Evidence = append(targetSteps(t), finding.Step{Text: "pybind11_add_module(SHARED) calls Python_add_library(SHARED), which links Python::Python"})
			f.Fix = fmt.Sprintf("pybind11_add_module(%s MODULE ...)", t.Name)
			out = append(out, f)
		}
		for _, li := range t.Links {
			fix, ok := embedItem(li)
			if !ok || li.Implicit != "" {
				continue // an implicit embed item comes from the SHARED form above
			}
			written := li.Raw
			if written == "" {
				written = li.Item
			}
			f := r.newFinding(r.Severity, finding.Subject{File: li.Loc.File, Target: t.Name, Symbol: written},
				fmt.Sprintf("extension %s links %s: the embedding Python library", t.Name, written))
			f.Location = &finding.Location{File: li.Loc.File, Line: li.Loc.Line}
			f.Evidence = append(targetSteps(t), linkItemStep(li, written))
			f.Fix = fmt.Sprintf("link %s instead of %s", fix, written)
			out = append(out, f)
		}
	}
	return out
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
		Text: fmt.Sprintf("%s is a Python extension (%s), created by %s at %s%s", t.Name, t.ExtensionWhy, t.Creator, t.Def, via(t.Def)),
		File: t.Def.File, Line: t.Def.Line,
	}}
	for _, c := range t.Def.Under {
		steps = append(steps, finding.Step{Text: fmt.Sprintf("under %s at %s:%d, which etlink could not decide", c.Text, path.Base(c.File), c.Line), File: c.File, Line: c.Line})
	}
	return steps
}

func linkItemStep(li cmake.LinkItem, written string) finding.Step {
	return finding.Step{Text: fmt.Sprintf("links %s (%s) at %s%s", written, scopeOr(li.Scope), li.Loc, via(li.Loc)), File: li.Loc.File, Line: li.Loc.Line}
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
		calls = append(calls, fmt.Sprintf("%s() at %s:%d", f.Function, path.Base(f.File), f.Line))
	}
	return ", through " + strings.Join(calls, " -> ")
}

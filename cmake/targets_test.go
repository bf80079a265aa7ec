package cmake

import (
	"fmt"
	"strings"
	"testing"
)

// targetString renders a target for comparison:
// name KIND by creator [ext] [-> aliased].
func targetString(t *Target) string {
	s := fmt.Sprintf("%s %s by %s", t.Name, t.Kind, t.Creator)
	if t.Extension {
		s += " ext"
	}
	if t.Aliased != "" {
		s += " -> " + t.Aliased
	}
	return s
}

// linkString renders a link item: item scope form feature parts config
// flags @line.
func linkString(l LinkItem) string {
	s := l.Item
	for _, x := range []string{l.Scope, l.Form, l.Feature, l.Config} {
		if x != "" {
			s += " " + x
		}
	}
	if len(l.Parts) > 0 {
		s += " [" + strings.Join(l.Parts, ",") + "]"
	}
	if l.Unknown {
		s += " unknown"
	}
	if l.Implicit != "" {
		s += " implicit"
	}
	return fmt.Sprintf("%s @%d", s, l.Loc.Line)
}

func TestTargets(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		opt     Options
		targets []string
	}{
		{"add_library kinds", `add_library(a STATIC x.c)
add_library(b SHARED x.c)
add_library(c MODULE x.c)
add_library(d OBJECT x.c)
add_library(e INTERFACE)
add_library(f SHARED IMPORTED)
add_library(g UNKNOWN IMPORTED GLOBAL)
add_library(h ALIAS a)
add_library(i x.c)
add_library(j EXCLUDE_FROM_ALL SHARED x.c)
add_library(k ${TYPE} x.c)
add_library(l INTERFACE IMPORTED)
add_library(m ${SRCS})`, Options{}, []string{
			"a STATIC by add_library", "b SHARED by add_library", "c MODULE by add_library ext",
			"d OBJECT by add_library", "e INTERFACE by add_library", "f IMPORTED by add_library",
			"g IMPORTED by add_library", "h ALIAS by add_library -> a", "i STATIC by add_library",
			"j SHARED by add_library", "k UNKNOWN by add_library", "l IMPORTED by add_library", "m STATIC by add_library"}},
		{"BUILD_SHARED_LIBS from -D", "add_library(a x.c)", Options{Vars: map[string]string{"BUILD_SHARED_LIBS": "ON"}}, []string{"a SHARED by add_library"}},
		{"BUILD_SHARED_LIBS set", "set(BUILD_SHARED_LIBS ON)\nadd_library(a x.c)\nset(BUILD_SHARED_LIBS OFF)\nadd_library(b x.c)", Options{},
			[]string{"a SHARED by add_library", "b STATIC by add_library"}},
		{"BUILD_SHARED_LIBS option default", "option(BUILD_SHARED_LIBS \"\" ON)\nadd_library(a x.c)", Options{}, []string{"a SHARED by add_library"}},
		{"add_executable forms", "add_executable(a WIN32 main.c)\nadd_executable(b IMPORTED)\nadd_executable(c ALIAS a)\nAdd_Executable(d main.c)", Options{},
			[]string{"a EXECUTABLE by add_executable", "b IMPORTED by add_executable", "c ALIAS by add_executable -> a", "d EXECUTABLE by Add_Executable"}},
		{"pybind11_add_module forms", `pybind11_add_module(a a.cpp)
pybind11_add_module(b MODULE THIN_LTO b.cpp)
pybind11_add_module(c SHARED c.cpp)
pybind11_add_module(d STATIC d.cpp)
pybind11_add_module(e NO_EXTRAS OPT_SIZE SHARED e.cpp)`, Options{}, []string{
			"a MODULE by pybind11_add_module ext", "b MODULE by pybind11_add_module ext", "c SHARED by pybind11_add_module ext",
			"d STATIC by pybind11_add_module ext", "e SHARED by pybind11_add_module ext"}},
		{"FindPython and nanobind", `Python_add_library(a a.c)
Python3_add_library(b SHARED b.c)
python_add_library(c SHARED WITH_SOABI c.c)
Python2_add_library(d STATIC d.c)
nanobind_add_module(e NB_STATIC STABLE_ABI e.cpp)`, Options{}, []string{
			"a MODULE by Python_add_library ext", "b SHARED by Python3_add_library", "c SHARED by python_add_library ext",
			"d STATIC by Python2_add_library", "e MODULE by nanobind_add_module ext"}},
		{"extension by file name", `add_library(a SHARED a.c)
set_target_properties(a PROPERTIES PREFIX "" SUFFIX ".so")
add_library(b SHARED b.c)
set_target_properties(b PROPERTIES PREFIX "")
add_library(c SHARED c.c)
set_target_properties(c PROPERTIES PREFIX "" SUFFIX "${PYTHON_MODULE_EXTENSION}")
add_library(d SHARED d.c)
set_property(TARGET d PROPERTY PREFIX "")
set_property(TARGET d PROPERTY SUFFIX ".${Python3_SOABI}.so")
add_library(e SHARED e.c)
set_target_properties(e PROPERTIES PREFIX "" SUFFIX ".dylib")
add_library(f SHARED f.c)
pybind11_extension(f)
add_library(g SHARED g.c)
set_target_properties(g PROPERTIES SUFFIX ".pyd")
add_executable(h h.c)
set_target_properties(h PROPERTIES PREFIX "" SUFFIX ".so")`, Options{}, []string{
			"a SHARED by add_library ext", "b SHARED by add_library ext", "c SHARED by add_library ext", "d SHARED by add_library ext",
			"e SHARED by add_library", "f SHARED by add_library ext", "g SHARED by add_library", "h EXECUTABLE by add_executable"}},
		{"a vendored pybind11_add_module is modelled", "function(pybind11_add_module name)\n  add_library(${name} SHARED x.c)\nendfunction()\npybind11_add_module(a a.cpp)", Options{},
			[]string{"a MODULE by pybind11_add_module ext"}},
		{"an overridden add_library", "function(add_library name)\n  _add_library(${name} ${ARGN})\nendfunction()\nadd_library(x SHARED a.c)", Options{},
			[]string{"x SHARED by _add_library"}},
		{"targets in both branches of an undecided if", "if(NOPE)\n  add_library(a STATIC a.c)\nelse()\n  add_library(a SHARED a.c)\nendif()", Options{},
			[]string{"a STATIC by add_library", "a SHARED by add_library"}},
		{"foreach-generated targets", "foreach(b IN ITEMS x y)\n  add_library(lib_${b} STATIC ${b}.c)\nendforeach()", Options{},
			[]string{"lib_x STATIC by add_library", "lib_y STATIC by add_library"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := evalBytes([]byte(tc.src), tc.opt, nil)
			for _, err := range errs {
				t.Error(err)
			}
			var got []string
			for _, tg := range p.Targets {
				got = append(got, targetString(tg))
			}
			if strings.Join(got, "\n") != strings.Join(tc.targets, "\n") {
				t.Errorf("targets:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.targets, "\n     "))
			}
		})
	}
}

func TestLinkItems(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		links map[string][]string // target -> link items
	}{
		{"scopes and keywords", `add_library(t SHARED t.c)
target_link_libraries(t a PRIVATE b c
  PUBLIC d LINK_PRIVATE e LINK_PUBLIC f INTERFACE g
  debug dbg optimized opt general gen)`, map[string][]string{
			"t": {"a @2", "b PRIVATE @2", "c PRIVATE @2", "d PUBLIC @3", "e PRIVATE @3", "f PUBLIC @3", "g INTERFACE @3",
				"dbg INTERFACE debug @4", "opt INTERFACE optimized @4", "gen INTERFACE @4"}}},
		{"forms", `add_library(t SHARED t.c)
target_link_libraries(t PRIVATE
  -Wl,--no-as-needed
  -lpython3.11
  -framework
  LINKER:--whole-archive,-lfoo
  "SHELL:-Wl,--push-state foo"
  "$<LINK_LIBRARY:WHOLE_ARCHIVE,a,b>"
  $<LINK_GROUP:RESCAN,c,d>
  $<$<CONFIG:Debug>:dbg;x>
  "$<$<BOOL:${X}>:$<LINK_LIBRARY:WHOLE_ARCHIVE,e>>"
  /usr/lib/libz.so)`, map[string][]string{
			"t": {"-Wl,--no-as-needed PRIVATE flag @3", "-lpython3.11 PRIVATE @4", "-framework PRIVATE @5",
				"LINKER:--whole-archive,-lfoo PRIVATE LINKER [--whole-archive,-lfoo] @6",
				"SHELL:-Wl,--push-state foo PRIVATE SHELL [-Wl,--push-state,foo] @7",
				"$<LINK_LIBRARY:WHOLE_ARCHIVE,a,b> PRIVATE LINK_LIBRARY WHOLE_ARCHIVE [a,b] @8",
				"$<LINK_GROUP:RESCAN,c,d> PRIVATE LINK_GROUP RESCAN [c,d] @9",
				"$<$<CONFIG:Debug>:dbg;x> PRIVATE genex @10",
				"$<$<BOOL:${X}>:$<LINK_LIBRARY:WHOLE_ARCHIVE,e>> PRIVATE LINK_LIBRARY WHOLE_ARCHIVE [e] unknown @11",
				"/usr/lib/libz.so PRIVATE @12"}}},
		{"variables holding items", "set(LIBS a;b)\nset(EMPTY \"\")\nadd_library(t SHARED t.c)\ntarget_link_libraries(t PRIVATE ${LIBS} ${EMPTY} \"${EMPTY}\" ${PYTHON_LIBRARIES} ${${NAME}_LIBRARIES}\n  \"${LIBS}\")", map[string][]string{
			"t": {"a PRIVATE @4", "b PRIVATE @4", "${PYTHON_LIBRARIES} PRIVATE unknown @4", "${${NAME}_LIBRARIES} PRIVATE unknown @4", "a PRIVATE @5", "b PRIVATE @5"}}},
		{"implicit items", "pybind11_add_module(m m.cpp)\npybind11_add_module(s SHARED s.cpp)\nPython3_add_library(p p.c)\nPython_add_library(e SHARED e.c)\nnanobind_add_module(n n.cpp)", map[string][]string{
			"m": {"pybind11::module PRIVATE implicit @1"}, "s": {"Python3::Python PRIVATE implicit @2", "pybind11::embed PRIVATE implicit @2"},
			"p": {"Python3::Module PRIVATE implicit @3"}, "e": {"Python::Python PRIVATE implicit @4"},
			"n": {"Python::Module PRIVATE implicit @5"}}},
		{"link_libraries applies to later targets", "add_library(before STATIC a.c)\nlink_libraries(common)\nadd_library(after STATIC a.c)\nadd_library(imp SHARED IMPORTED)\nadd_executable(exe m.c)", map[string][]string{
			"before": nil, "after": {"common @2"}, "imp": nil, "exe": {"common @2"}}},
		{"link properties", "add_library(t SHARED t.c)\nset_property(TARGET t APPEND PROPERTY INTERFACE_LINK_LIBRARIES x y)\nset_target_properties(t PROPERTIES LINK_LIBRARIES \"z;w\")", map[string][]string{
			"t": {"x INTERFACE @2", "y INTERFACE @2", "z PRIVATE @3", "w PRIVATE @3"}}},
		{"both definitions get the links", "if(NOPE)\n  add_library(a STATIC a.c)\nelse()\n  add_library(a SHARED a.c)\nendif()\ntarget_link_libraries(a PRIVATE x)", map[string][]string{
			"a": {"x PRIVATE @6"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, errs := evalBytes([]byte(tc.src), Options{}, nil)
			for _, err := range errs {
				t.Error(err)
			}
			seen := map[string]bool{}
			for _, tg := range p.Targets {
				want, ok := tc.links[tg.Name]
				if !ok {
					t.Errorf("unexpected target %s", tg.Name)
					continue
				}
				seen[tg.Name] = true
				var got []string
				for _, l := range tg.Links {
					got = append(got, linkString(l))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s links:\n got %s\nwant %s", tg.Name, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
				}
			}
			for name := range tc.links {
				if !seen[name] {
					t.Errorf("no target %s", name)
				}
			}
		})
	}
}

// TestNotes checks what evaluation says it could not know.
func TestNotes(t *testing.T) {
	tests := []struct {
		name, src string
		notes     []string
	}{
		{"undecided if", "if(${FOO})\nendif()", []string{"CMakeLists.txt:1: cannot evaluate if(${FOO}) (${FOO} is not known): all branches read"}},
		{"undecided elseif", "if(OFF)\nelseif(BAR AND ON)\nendif()", []string{"CMakeLists.txt:2: cannot evaluate elseif(BAR AND ON) (variable BAR is not set in the tree): all branches read"}},
		{"option", "option(O \"\" OFF)\nif(NOT O)\nendif()", []string{`CMakeLists.txt:2: cannot evaluate if(NOT O) (O is only a default a user may override ("OFF")): all branches read`}},
		{"link to an unknown target", "target_link_libraries(nope PRIVATE x)", []string{"CMakeLists.txt:1: target_link_libraries(nope ...): no target nope is defined in the tree before this line; not recorded"}},
		{"link to an unknown target name", "target_link_libraries(${T} PRIVATE x)", []string{"CMakeLists.txt:1: target_link_libraries(${T} ...): the target name is not known; not recorded"}},
		{"unknown library type", "add_library(k ${TYPE} x.c)", []string{"CMakeLists.txt:1: cannot evaluate add_library(k ${TYPE} x.c): the library type ${TYPE} is not known"}},
		{"unknown sources are sources", "pybind11_add_module(m ${SRCS})\nadd_library(l ${SRCS})", nil},
		{"unknown pybind11 argument", "pybind11_add_module(m ${KIND} m.cpp)", []string{"CMakeLists.txt:1: pybind11_add_module(m ${KIND} m.cpp): an argument is not known (it could be SHARED); read as MODULE"}},
		{"vendored pybind11", "function(pybind11_add_module)\nendfunction()", []string{"CMakeLists.txt:1: pybind11_add_module() is defined in the tree; etlink reads calls to it with its own model"}},
		{"foreach over an unknown list", "foreach(x IN LISTS L)\nendforeach()", []string{"CMakeLists.txt:1: cannot evaluate foreach(x IN LISTS L): list L is not known; body read once with it"}},
		{"return under an undecided if", "function(f)\n  if(X)\n    return()\n  endif()\nendfunction()\nf()",
			[]string{"CMakeLists.txt:2: cannot evaluate if(X) (variable X is not set in the tree): all branches read",
				"CMakeLists.txt:3: return() under an undecided if(): what follows is read too"}},
		{"duplicate target", "add_library(a STATIC a.c)\nadd_library(a SHARED a.c)", []string{"CMakeLists.txt:2: add_library() defines target a again (also defined at CMakeLists.txt:1): both kept"}},
		{"too few arguments", "function(f a b)\nendfunction()\nf(x)", []string{"CMakeLists.txt:3: f() called with 1 arguments, it takes at least 2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := evalBytes([]byte(tc.src), Options{}, nil)
			var got []string
			for _, n := range p.Notes {
				got = append(got, n.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.notes, "\n") {
				t.Errorf("notes:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.notes, "\n     "))
			}
		})
	}
}

// TestLocations checks Via and Under through nested wrappers and
// undecided conditions, and CreatorArgs through a wrapper.
func TestLocations(t *testing.T) {
	src := `function(inner name kind)
  add_library(${name} ${kind} x.c)
  target_link_libraries(${name} PRIVATE ${ARGN})
endfunction()
macro(outer name)
  if(USE_X)
    inner(${name} SHARED ${ARGN})
  endif()
endmacro()
if(${TOP})
  outer(lib Python::Python)
endif()`
	p, errs := evalBytes([]byte(src), Options{}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(p.Targets) != 1 {
		t.Fatalf("targets: %v", p.Targets)
	}
	tg := p.Targets[0]
	const wantDef = "CMakeLists.txt:2 via [{outer CMakeLists.txt 11} {inner CMakeLists.txt 7}] under [{CMakeLists.txt 10 if(${TOP}) 10} {CMakeLists.txt 6 if(USE_X) 6}]"
	if got := fmt.Sprintf("%s via %v under %v", tg.Def, tg.Def.Via, tg.Def.Under); got != wantDef {
		t.Errorf("Def\n got %s\nwant %s", got, wantDef)
	}
	if got := tg.Def.Outermost().String(); got != "CMakeLists.txt:11" {
		t.Errorf("Outermost = %s", got)
	}
	if tg.Kind != KindShared {
		t.Errorf("Kind = %s", tg.Kind)
	}
	var args []string
	for _, a := range tg.CreatorArgs {
		args = append(args, argString(a))
	}
	if got, want := strings.Join(args, " "), "lib@2:15 SHARED@2:23 x.c@2:31"; got != want {
		t.Errorf("CreatorArgs = %s, want %s", got, want)
	}
	if len(tg.Links) != 1 {
		t.Fatalf("links: %v", tg.Links)
	}
	l := tg.Links[0]
	if got, want := fmt.Sprintf("%s %q %s:%d:%d via %d", l.Item, l.Raw, l.Loc.File, l.Loc.Line, l.Loc.Col, len(l.Loc.Via)), `Python::Python "${ARGN}" CMakeLists.txt:3:41 via 2`; got != want {
		t.Errorf("link\n got %s\nwant %s", got, want)
	}
}

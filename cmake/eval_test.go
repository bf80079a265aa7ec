package cmake

import (
	"strings"
	"testing"
)

// TestEvaluate runs small scripts and compares the expanded arguments of
// each show() call: one row per call, "|" between arguments. <?> marks
// what etlink does not know, <default> a default a build may override.
func TestEvaluate(t *testing.T) {
	tests := []struct {
		name string
		src  string
		opt  Options
		want []string
	}{
		{"set lists", "set(L a b;c)\nshow(${L} \"${L}\")", Options{}, []string{"a|b|c|a;b;c"}},
		{"unset", "set(X 1)\nunset(X)\nshow(${X} \"${X}\" end)", Options{}, []string{"|end"}},
		{"set to nothing unsets", "set(X 1)\nset(X)\nshow(${X} end)", Options{}, []string{"end"}},
		{"unknown variables stay as written", "show(${NOPE} \"x${NOPE}y\" $ENV{HOME} $CACHE{C})", Options{},
			[]string{"<?>${NOPE}|x<?>${NOPE}y|<?>$ENV{HOME}|<?>$CACHE{C}"}},
		{"nested references", "set(n A)\nset(A_LIBS foo bar)\nshow(${${n}_LIBS} ${${nope}_LIBS})", Options{},
			[]string{"foo|bar|<?>${${nope}_LIBS}"}},
		{"escaped references", "set(X 1)\nshow(\\${X} \"\\${X}\")", Options{}, []string{"${X}|${X}"}},
		{"-D definitions", "show(${V} $CACHE{V})", Options{Vars: map[string]string{"V": "a;b"}}, []string{"a|b|a|b"}},
		{"cache defaults", "set(C v CACHE STRING \"doc\")\nset(C w CACHE STRING \"doc\")\nshow(${C})", Options{}, []string{"<default>v"}},
		{"cache FORCE", "set(C v CACHE STRING \"doc\")\nset(C w CACHE STRING \"doc\" FORCE)\nshow(${C})", Options{}, []string{"w"}},
		{"normal variable shadows cache", "set(C v CACHE STRING \"\")\nset(C n)\nshow(${C} $CACHE{C})\nunset(C)\nshow(${C})", Options{},
			[]string{"n|<default>v", "<default>v"}},
		{"option", "option(O \"doc\" ON)\noption(P \"doc\")\nshow(${O} ${P})", Options{}, []string{"<default>ON|<default>OFF"}},
		{"option with -D", "option(O \"doc\" ON)\nshow(${O})", Options{Vars: map[string]string{"O": "OFF"}}, []string{"OFF"}},
		{"option trusted", "option(O \"doc\" ON)\nshow(${O})", Options{TrustDefaults: true}, []string{"ON"}},
		{"list APPEND to a new list", "list(APPEND L a b)\nlist(APPEND L c)\nshow(${L})", Options{}, []string{"a|b|c"}},
		{"list edits", "set(L a b c b)\nlist(PREPEND L z)\nlist(INSERT L 2 y)\nlist(REMOVE_ITEM L c)\nlist(REMOVE_DUPLICATES L)\nshow(${L})", Options{},
			[]string{"z|a|y|b"}},
		{"list queries", "set(L a b c)\nlist(LENGTH L n)\nlist(GET L 0 -1 g)\nlist(JOIN L - j)\nlist(FIND L c f)\nlist(FIND L x nf)\nshow(${n} ${g} ${j} ${f} ${nf})", Options{},
			[]string{"3|a|c|a-b-c|2|-1"}},
		{"list POP and REVERSE", "set(L a b c d)\nlist(POP_BACK L last)\nlist(POP_FRONT L first)\nlist(REVERSE L)\nshow(${last} ${first} ${L})", Options{},
			[]string{"d|a|c|b"}},
		{"list of an unknown list", "list(LENGTH NOPE n)\nlist(GET NOPE 0 g)\nshow(${n} ${g})", Options{}, []string{"<?>${n}|<?>${g}"}},
		{"list TRANSFORM", "set(L a b Bc)\nlist(TRANSFORM L PREPEND x)\nlist(TRANSFORM L TOUPPER REGEX b OUTPUT_VARIABLE U)\nlist(TRANSFORM L REPLACE \"x(.)\" \"\\\\1y\")\nshow(${L} ${U})", Options{},
			[]string{"ay|by|Byc|xa|XB|xBc"}},
		{"list TRANSFORM with an index selector is not evaluated", "set(L a b)\nlist(TRANSFORM L PREPEND x AT 0)\nshow(${L})", Options{}, []string{"<?>${L}"}},
		{"list FILTER", "set(L pybind11::embed a Python3::Python b ${NOPE})\nlist(FILTER L EXCLUDE REGEX \"(pybind11::embed|Python3?::Python)\")\nset(M a ab b)\nlist(FILTER M INCLUDE REGEX ^a)\nshow(${L} ${M})", Options{},
			[]string{"a|b|<?>${NOPE}|a|ab"}},
		{"string", "set(s \" Ab \")\nstring(STRIP \"${s}\" st)\nstring(TOUPPER ${st} up)\nstring(TOLOWER ${st} lo)\nstring(REPLACE b c r ${st})\nstring(APPEND st x y)\nstring(CONCAT cc a b)\nstring(JOIN - jj a b)\nstring(LENGTH ${st} len)\nshow(${up} ${lo} ${r} ${st} ${cc} ${jj} ${len})", Options{},
			[]string{"AB|ab|Ac|Abxy|ab|a-b|4"}},
		{"string REGEX", "string(REGEX REPLACE \"a(b)\" \"\\\\1x\" r abc)\nstring(REGEX MATCH \"[0-9]+\" m v12.3)\nstring(REGEX MATCHALL \"[0-9]+\" all v12.3)\nshow(${r} ${m} ${all})", Options{},
			[]string{"bxc|12|12|3"}},
		{"string REGEX of an unknown", "string(REGEX REPLACE a b r ${NOPE})\nshow(${r})", Options{}, []string{"<?>${r}"}},
		{"string of an unknown", "string(TOUPPER ${NOPE} up)\nshow(${up})", Options{}, []string{"<?>${up}"}},
		{"get_filename_component", "get_filename_component(d /a/b/c.tar.gz DIRECTORY)\nget_filename_component(n /a/b/c.tar.gz NAME_WE)\nget_filename_component(e /a/b/c.tar.gz EXT)\nget_filename_component(l /a/b/c.tar.gz LAST_EXT)\nshow(${d} ${n} ${e} ${l})", Options{},
			[]string{"/a/b|c|.tar.gz|.gz"}},
		{"commands etlink does not evaluate make their outputs unknown", "set(F x)\nfile(GLOB F *.cpp)\nfind_library(L foo)\nexecute_process(COMMAND x OUTPUT_VARIABLE O)\nmath(EXPR M \"1+1\")\nshow(${F} ${L} ${O} ${M})", Options{},
			[]string{"<?>${F}|<?>${L}|<?>${O}|<?>${M}"}},
		{"find_library keeps a value already set", "set(L /x/libfoo.so)\nfind_library(L foo)\nshow(${L})", Options{}, []string{"/x/libfoo.so"}},
		{"foreach items", "foreach(x a b;c)\n  show(${x})\nendforeach()\nshow(after ${x})", Options{}, []string{"a", "b", "c", "after|<?>${x}"}},
		{"foreach IN LISTS ITEMS", "set(L1 a b)\nset(L2 c)\nforeach(x IN LISTS L1 L2 ITEMS d e)\n  show(${x})\nendforeach()", Options{}, []string{"a", "b", "c", "d", "e"}},
		{"foreach RANGE", "foreach(x RANGE 2)\n  show(${x})\nendforeach()\nforeach(x RANGE 1 6 2)\n  show(${x})\nendforeach()", Options{}, []string{"0", "1", "2", "1", "3", "5"}},
		{"foreach over an unknown list", "foreach(x IN LISTS NOPE)\n  show(${x})\nendforeach()\nforeach(y ${NOPE2})\n  show(${y})\nendforeach()", Options{}, []string{"<?>${NOPE}", "<?>${NOPE2}"}},
		{"foreach RANGE unknown", "foreach(x RANGE ${N})\n  show(${x})\nendforeach()", Options{}, []string{"<?>${x}"}},
		{"foreach ZIP_LISTS", "set(A a1 a2)\nset(B b1)\nforeach(p IN ZIP_LISTS A B)\n  show(${p_0} ${p_1})\nendforeach()\nforeach(x y IN ZIP_LISTS A B)\n  show(${x} ${y})\nendforeach()", Options{},
			[]string{"a1|b1", "a2", "a1|b1", "a2"}},
		{"break and continue", "foreach(x a b c d)\n  if(x STREQUAL b)\n    continue()\n  endif()\n  if(x STREQUAL d)\n    break()\n  endif()\n  show(${x})\nendforeach()", Options{}, []string{"a", "c"}},
		{"while over a list", "set(L a b c)\nwhile(L)\n  list(POP_FRONT L x)\n  show(${x})\nendwhile()", Options{}, []string{"a", "b", "c"}},
		{"while undecided runs once", "while(NOPE)\n  show(body)\nendwhile()", Options{}, []string{"body"}},
		{"function arguments", "function(f a b)\n  show(${ARGC} ${ARGV} ${ARGN} ${ARGV0} ${ARGV2} ${a} ${b})\nendfunction()\nf(x y z w)", Options{},
			[]string{"4|x|y|z|w|z|w|x|z|x|y"}},
		{"function scope", "set(v outer)\nfunction(f)\n  show(${v})\n  set(v inner)\n  set(p up PARENT_SCOPE)\n  show(${v} ${p})\nendfunction()\nf()\nshow(${v} ${p})", Options{},
			[]string{"outer", "inner|<?>${p}", "outer|up"}},
		{"function names are case-insensitive", "function(My_Fn)\n  show(called)\nendfunction()\nmy_fn()\nMY_FN()", Options{}, []string{"called", "called"}},
		{"macro substitution", "macro(m a)\n  show(${a} ${ARGN} ${ARGC} ${ARGV1} \"${ARGV}\")\n  set(mv ${a})\nendmacro()\nm(x y z)\nshow(${mv} ${a})", Options{},
			[]string{"x|y|z|3|y|x;y;z", "x|<?>${a}"}},
		{"macro return returns from the caller", "function(f)\n  m()\n  show(not reached)\nendfunction()\nmacro(m)\n  return()\nendmacro()\nf()\nshow(after)", Options{},
			[]string{"after"}},
		{"return", "function(f)\n  show(1)\n  return()\n  show(2)\nendfunction()\nf()", Options{}, []string{"1"}},
		{"return under an undecided if reads on", "function(f)\n  if(NOPE)\n    return()\n  endif()\n  show(2)\nendfunction()\nf()", Options{}, []string{"2"}},
		{"return PROPAGATE", "function(f)\n  set(r val)\n  return(PROPAGATE r)\nendfunction()\nf()\nshow(${r})", Options{}, []string{"val"}},
		{"overridden command", "function(add_library name)\n  show(wrapper ${name})\n  _add_library(${name} ${ARGN})\nendfunction()\nadd_library(x STATIC a.c)", Options{}, []string{"wrapper|x"}},
		{"cmake_parse_arguments", "function(f)\n  cmake_parse_arguments(A \"OPT;NOT\" \"ONE;MISS\" \"MULTI\" ${ARGN})\n  show(${A_OPT} ${A_NOT} ${A_ONE} ${A_MULTI} ${A_UNPARSED_ARGUMENTS} ${A_KEYWORDS_MISSING_VALUES})\n  if(DEFINED A_MISS OR A_NOT)\n    show(wrong)\n  endif()\nendfunction()\nf(u1 ONE 1 OPT MULTI m1 m2 MISS)", Options{},
			[]string{"TRUE|FALSE|1|m1|m2|u1|MISS"}},
		{"cmake_parse_arguments PARSE_ARGV", "function(f name)\n  cmake_parse_arguments(PARSE_ARGV 1 A \"SHARED\" \"\" \"SRCS\")\n  show(${name} ${A_SHARED} ${A_SRCS})\nendfunction()\nf(t SRCS a.c \"b;c.c\" SHARED)", Options{},
			[]string{"t|TRUE|a.c|b|c.c"}},
		{"if decided", "set(A ON)\nif(NOT A)\n  show(1)\nelseif(A)\n  show(2)\nelse()\n  show(3)\nendif()", Options{}, []string{"2"}},
		{"if undecided reads all branches", "if(NOPE)\n  show(1)\nelse()\n  show(2)\nendif()", Options{}, []string{"1", "2"}},
		{"a decided elseif ends an undecided chain", "if(NOPE)\n  show(1)\nelseif(ON)\n  show(2)\nelse()\n  show(3)\nendif()", Options{}, []string{"1", "2"}},
		{"a false elseif is skipped in an undecided chain", "if(NOPE)\n  show(1)\nelseif(OFF)\n  show(2)\nelse()\n  show(3)\nendif()", Options{}, []string{"1", "3"}},
		{"if on an option default", "option(O \"\" OFF)\nif(O)\n  show(on)\nelse()\n  show(off)\nendif()", Options{}, []string{"on", "off"}},
		{"if on a trusted option", "option(O \"\" OFF)\nif(O)\n  show(on)\nelse()\n  show(off)\nendif()", Options{TrustDefaults: true}, []string{"off"}},
		{"if on a -D value", "option(O \"\" OFF)\nif(O)\n  show(on)\nelse()\n  show(off)\nendif()", Options{Vars: map[string]string{"O": "ON"}}, []string{"on"}},
		{"if AND with a false side is decided", "if(NOPE AND OFF)\n  show(1)\nendif()\nif(NOPE OR ON)\n  show(2)\nendif()", Options{}, []string{"2"}},
		{"if TARGET", "add_library(t STATIC a.c)\nif(TARGET t)\n  show(t)\nendif()\nif(TARGET Python::Module)\n  show(maybe)\nendif()", Options{}, []string{"t", "maybe"}},
		{"if TARGET of a modelled find_package", "find_package(Python COMPONENTS Development.Module)\nif(TARGET Python::Module)\n  show(module)\nelse()\n  show(old)\nendif()", Options{}, []string{"module"}},
		{"if TARGET of FindPython on an old CMake", "find_package(Python COMPONENTS Development.Module)\nif(TARGET Python::Module)\n  show(module)\nelse()\n  show(old)\nendif()", Options{CMakeVersion: "3.14", CMakeVersionFixed: true}, []string{"old"}},
		{"if on CMAKE_VERSION", "if(${CMAKE_VERSION} VERSION_LESS 3.14)\n  show(old)\nelse()\n  show(new)\nendif()", Options{}, []string{"new"}},
		{"if POLICY by the CMake release", "if(POLICY CMP0077)\n  show(77)\nendif()\nif(POLICY CMP0150)\n  show(150)\nendif()", Options{}, []string{"77"}},
		{"if POLICY beyond the table", "if(POLICY CMP0150)\n  show(150)\nendif()", Options{CMakeVersion: "3.30", CMakeVersionFixed: true}, []string{"150"}},
		{"if on the found Python's version", "find_package(Python3 COMPONENTS Development)\nif(Python3_VERSION VERSION_LESS 3.8)\n  show(old)\nendif()\nif(Python3_VERSION VERSION_LESS 3.12)\n  show(maybe)\nendif()", Options{}, []string{"maybe"}},
		{"what undecided branches leave different is undecided", "set(X ON)\nif(NOPE)\n  set(X OFF)\nendif()\nif(X)\n  show(x)\nendif()", Options{}, []string{"x"}},
		{"if COMMAND", "function(f)\nendfunction()\nif(COMMAND f AND COMMAND target_link_libraries)\n  show(yes)\nendif()\nif(COMMAND pybind11_add_module)\n  show(maybe)\nendif()", Options{}, []string{"yes", "maybe"}},
		// The platform is Linux, unless -D says otherwise.
		{"if on a platform variable", "if(WIN32 OR APPLE OR NOT UNIX)\n  show(win)\nelse()\n  show(${CMAKE_SYSTEM_NAME})\nendif()", Options{}, []string{"Linux"}},
		{"if on a platform variable set by -D", "if(WIN32)\n  show(win)\nelse()\n  show(other)\nendif()", Options{Vars: map[string]string{"WIN32": "1"}}, []string{"win"}},
		{"if comparing an expanded value", "set(T Release)\nif(${T} STREQUAL Release)\n  show(yes)\nendif()", Options{}, []string{"yes"}},
		{"block scope", "set(v 1)\nblock(PROPAGATE p)\n  set(v 2)\n  set(p 3)\nendblock()\nshow(${v} ${p})", Options{}, []string{"1|3"}},
		{"BUILDSYSTEM_TARGETS", "add_library(a STATIC a.c)\nadd_library(i INTERFACE)\nadd_library(m SHARED IMPORTED)\nadd_executable(e e.c)\nget_property(t DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)\nget_directory_property(d BUILDSYSTEM_TARGETS)\nget_property(o DIRECTORY PROPERTY OTHER)\nshow(${t} ${d} ${o})", Options{},
			[]string{"a|i|e|a|i|e|<?>${o}"}},
		{"project", "project(Demo VERSION 1.2)\nshow(${PROJECT_NAME} ${Demo_VERSION})", Options{}, []string{"Demo|1.2"}},
		{"cannot expand", "show(\"\\a\")", Options{}, []string{"<?>\\a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, row := range shown(t, tc.src, tc.opt) {
				got = append(got, strings.Join(row, "|"))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("source:\n%s\n got %q\nwant %q", tc.src, got, tc.want)
			}
		})
	}
}

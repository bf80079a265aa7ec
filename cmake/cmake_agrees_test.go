package cmake

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// argCases are show(...) invocations (with the set() lines they need) whose
// arguments etlink must read exactly as CMake does.
var argCases = []struct{ name, src string }{
	{"lists and brackets", `show(a b;c "d;e" [[f;g]] [==[h]=]i]==])`},
	{"quoted escapes", `show("q \" b \\ t\tn\nd \$ at \@ semi \; x")`},
	{"unquoted escapes", `show(a\ b c\;d e\"f \$\{x\})`},
	{"continuation", "show(\"line1\\\nline2\" after)"},
	{"nested parentheses", `show(a (b c) ((d)) e)`},
	{"legacy unquoted", `show(-Da="b c" $(MAKEVAR) x"y"z)`},
	{"variables", "set(X 1;2)\nset(Y X)\nset(Z_X zx)\nshow(${X} \"${X}\" ${${Y}} \\${X} ${Z_${Y}})"},
	{"bracket first newline", "show([[\nfoo\n]] [=[\n\nbar]=])"},
	{"comments between arguments", "show(a # comment )\n b #[[ bracket\ncomment ]] c)"},
	{"unicode", `show(héllo "wörld" [[日本語]] ünï\ cødé)`},
	{"empty arguments", "set(EMPTY \"\")\nshow(\"\" ${EMPTY} [[]] x)"},
	{"square brackets in lists", "set(L \"a[b;c]d;e\")\nshow(${L} \"${L}\")"},
	{"escaped semicolon in a value", "set(S \"x\\;y\")\nshow(${S} \"${S}\")"},
	{"lone brackets and equals", `show(x[y] [ a =b ] [=c)`},
	{"generator expressions", `show($<$<CONFIG:Debug>:a,b> "$<1:x;y>" $<TARGET_FILE:t>)`},
	{"command name case and space", "SHOW(a)\nShow (b)\n  show\t(c)"},
	{"CRLF", "set(A \"x\r\ny\")\r\nshow(${A} \"a\\\r\nb\"\r\n c)\r\n"},
	{"dollar not a reference", `show($ $x ${} a$ $<)`},
	{"nested references in quotes", "set(N 2)\nset(V2 \"two words\")\nshow(\"<${V${N}}>\" ${V${N}})"},
}

func TestCMakeAgrees(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	const prelude = `cmake_minimum_required(VERSION 3.20)
function(show)
  set(out "ARGC=${ARGC}")
  if(ARGC GREATER 0)
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE ${last})
      string(APPEND out "\n[${ARGV${i}}]")
    endforeach()
  endif()
  message("${out}")
endfunction()
`
	dir := t.TempDir()
	for _, tc := range argCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := runScript(t, cmake, filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".cmake"), prelude+tc.src+"\n")
			var mine strings.Builder
			for _, row := range shown(t, tc.src, Options{}) {
				fmt.Fprintf(&mine, "ARGC=%d\n", len(row))
				for _, a := range row {
					fmt.Fprintf(&mine, "[%s]\n", a)
				}
			}
			if got, want := mine.String(), string(out); got != want {
				t.Errorf("source:\n%s\netlink reads:\n%s\ncmake reads:\n%s", tc.src, got, want)
			}
		})
	}
}

// condCases are if() conditions over known values that etlink must decide
// as CMake does.
var condCases = []string{
	`A`, `B`, `NOT A`, `A AND B`, `A OR B`, `NOT (A AND B) OR B`,
	`(A)`, `((A OR B) AND (NOT B))`, `A AND NOT B`, `NOT A OR NOT B`,
	`S`, `"S"`, `U`, `DEFINED A`, `DEFINED U`, `NOT DEFINED U`, `DEFINED CACHE{C}`,
	`${A}`, `${B}`, `${S}`, `"${A}"`, `ON`, `0`, `"FALSE"`, `foo-NOTFOUND`, `2`, `0.0`, `""`, `Y`, `ignore`,
	`N EQUAL 5`, `N LESS 10`, `N GREATER 5`, `N GREATER_EQUAL 5 AND S STRGREATER a`, `N LESS_EQUAL 4`,
	`S STREQUAL "hello"`, `"${S}" STREQUAL hello`, `S STREQUAL S`, `"S" STREQUAL "S"`, `S STRLESS i`,
	`S MATCHES "^h.*o$"`, `S MATCHES "^x"`, `"b" IN_LIST L`, `d IN_LIST L`, `S IN_LIST L`,
	`1.2.3 VERSION_LESS 1.10`, `3 VERSION_EQUAL 3.0.0`, `V VERSION_GREATER_EQUAL 3.18`,
	`COMMAND set`, `COMMAND myfn`, `COMMAND MYFN`, `IS_ABSOLUTE /x`, `IS_ABSOLUTE x`,
	`A AND B OR A`, `A OR B AND B`, `A OR A AND B`, `B AND B OR A`, `NOT B AND B`, `NOT A OR A`, `NOT A AND B`, `(A OR B) AND NOT (B OR NOT A)`,
}

func TestCMakeAgreesOnConditions(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	const show = "cmake_minimum_required(VERSION 3.20)\nfunction(show)\n  message(\"${ARGV0}\")\nendfunction()\n"
	const prelude = "function(myfn)\nendfunction()\nset(A ON)\nset(B OFF)\nset(S hello)\nset(N 5)\nset(L \"a;b;c\")\nset(V 3.20.1)\nunset(U)\n" +
		"set(C 1 CACHE INTERNAL \"\")\n"
	dir := t.TempDir()
	for i, cond := range condCases {
		t.Run(cond, func(t *testing.T) {
			t.Parallel()
			src := fmt.Sprintf("if(%s)\n  show(T)\nelse()\n  show(F)\nendif()\n", cond)
			script := filepath.Join(dir, fmt.Sprintf("c%d.cmake", i))
			if err := os.WriteFile(script, []byte(show+prelude+src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(cmake, "-P", script).CombinedOutput()
			if err != nil {
				t.Fatalf("cmake -P: %v\n%s", err, out)
			}
			want := strings.TrimSpace(string(out))
			rows := shown(t, prelude+src, Options{TrustDefaults: true})
			var got []string
			for _, r := range rows {
				got = append(got, r[0])
			}
			if strings.Join(got, ",") != want {
				t.Errorf("if(%s): etlink reads %v, cmake %q", cond, got, want)
			}
		})
	}
}

// TestParseCMakeModules parses every list file shipped with CMake: a
// corpus of real, valid CMake that must parse without an error, and
// evaluate without a panic.
func TestParseCMakeModules(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	script := filepath.Join(t.TempDir(), "root.cmake")
	if err := os.WriteFile(script, []byte("message(\"${CMAKE_ROOT}\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cmake, "-P", script).CombinedOutput()
	if err != nil {
		t.Fatalf("cmake -P: %v\n%s", err, out)
	}
	modules := filepath.Join(strings.TrimSpace(string(out)), "Modules")
	n := 0
	err = filepath.WalkDir(modules, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".cmake") || d.Name() == "CMakeLists.txt") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if regexp.MustCompile(`(?m)^@\w+@`).Match(src) {
			return nil // a configure_file template, not CMake until configured
		}
		n++
		if _, err := parseFile(path, src); err != nil {
			t.Errorf("%v", err)
			return nil
		}
		evalBytes(src, Options{}, nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("only %d files under %s", n, modules)
	}
	t.Logf("%d files", n)
}

// valueCases compute values etlink must compute as CMake does: the list and
// string commands a project function uses to rewrite link items.
var valueCases = []struct{ name, src string }{
	{"list FILTER", `set(L "Python3::Python;pybind11::headers;pybind11::embed;helper;$<LINK_ONLY:Python::Python>")
list(FILTER L EXCLUDE REGEX "(pybind11::embed|Python3?::Python)")
show("${L}")
set(M "a;ab;b;ba")
list(FILTER M INCLUDE REGEX "^a")
show("${M}")`},
	{"list TRANSFORM", `set(L "a;b;Bc")
list(TRANSFORM L PREPEND x)
show("${L}")
list(TRANSFORM L TOUPPER REGEX b OUTPUT_VARIABLE U)
show("${U}")
list(TRANSFORM L REPLACE "x(.)" "\\1y")
show("${L}")
list(TRANSFORM L APPEND "-s")
list(TRANSFORM L STRIP)
show("${L}")`},
	{"string REGEX", `string(REGEX REPLACE "a(b)" "\\1x" r abcab)
show("${r}")
string(REGEX MATCH "[0-9]+" m v12.3)
show("${m}")
string(REGEX MATCHALL "[0-9]+" all v12.3)
show("${all}")`},
	{"foreach and MATCHES rebuild", `set(libs "Python3::Python;pybind11::headers;pybind11::embed;helper")
set(kept "")
foreach(l IN LISTS libs)
  if(NOT l MATCHES "(pybind11::embed|Python3?::Python)")
    list(APPEND kept "${l}")
  endif()
endforeach()
list(APPEND kept pybind11::module)
show("${kept}")`},
}

func TestCMakeAgreesOnValues(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	const show = "cmake_minimum_required(VERSION 3.20)\nfunction(show)\n  message(\"[${ARGV0}]\")\nendfunction()\n"
	dir := t.TempDir()
	for i, tc := range valueCases {
		t.Run(tc.name, func(t *testing.T) {
			out := runScript(t, cmake, filepath.Join(dir, fmt.Sprintf("v%d.cmake", i)), show+tc.src+"\n")
			var mine strings.Builder
			for _, row := range shown(t, tc.src, Options{}) {
				fmt.Fprintf(&mine, "[%s]\n", row[0])
			}
			if got, want := mine.String(), string(out); got != want {
				t.Errorf("source:\n%s\netlink computes:\n%s\ncmake computes:\n%s", tc.src, got, want)
			}
		})
	}
}

// linkPropertyProject is a project whose targets' link properties are set,
// extended, replaced and read back: CMake configures it and prints what
// get_target_property reads; etlink must read the same.
const linkPropertyProject = `add_library(dep INTERFACE)
add_library(a STATIC IMPORTED)
add_library(s SHARED IMPORTED)
add_library(x INTERFACE)
add_library(lib STATIC x.c)
target_link_libraries(lib PUBLIC dep PRIVATE a INTERFACE x)
add_library(mod MODULE x.c)
target_link_libraries(mod PRIVATE Python3::Python pybind11::embed helper_flag PUBLIC dep)
function(strip target)
  get_target_property(_libs ${target} LINK_LIBRARIES)
  if(_libs)
    list(FILTER _libs EXCLUDE REGEX "(pybind11::embed|Python3?::Python)")
    list(APPEND _libs pybind11::module)
    set_target_properties(${target} PROPERTIES LINK_LIBRARIES "${_libs}")
  endif()
endfunction()
strip(mod)
get_target_property(before lib INTERFACE_LINK_LIBRARIES)
show("lib before ${before}")
set_property(TARGET mod APPEND PROPERTY LINK_LIBRARIES late)
set_property(TARGET lib PROPERTY INTERFACE_LINK_LIBRARIES only_iface)
foreach(t lib mod)
  foreach(p LINK_LIBRARIES INTERFACE_LINK_LIBRARIES TYPE)
    get_target_property(v ${t} ${p})
    show("${t} ${p} ${v}")
  endforeach()
endforeach()
get_property(g TARGET mod PROPERTY LINK_LIBRARIES)
show("${g}")
target_link_options(mod BEFORE PRIVATE -lpython3.13 "LINKER:--as-needed" PUBLIC -pthread)
target_link_options(lib INTERFACE -Wl,-z,defs)
set_property(TARGET lib APPEND PROPERTY LINK_OPTIONS -g)
get_target_property(o mod LINK_OPTIONS)
list(FILTER o EXCLUDE REGEX "python")
set_target_properties(mod PROPERTIES LINK_OPTIONS "${o}")
foreach(t lib mod)
  foreach(p LINK_OPTIONS INTERFACE_LINK_OPTIONS)
    get_target_property(v ${t} ${p})
    show("${t} ${p} ${v}")
  endforeach()
endforeach()
`

// TestCMakeAgreesOnLinkProperties configures linkPropertyProject with CMake
// and evaluates it with etlink: every property read must agree.
func TestCMakeAgreesOnLinkProperties(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	src := t.TempDir()
	const head = "cmake_minimum_required(VERSION 3.20)\nproject(props LANGUAGES C)\nfunction(show)\n  message(\"[${ARGV0}]\")\nendfunction()\n"
	for name, content := range map[string]string{"CMakeLists.txt": head + linkPropertyProject, "x.c": "int x;\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Configuring is what matters; generating fails on purpose (the
	// link items name targets the project never defines).
	out, err := exec.Command(cmake, "-S", src, "-B", filepath.Join(t.TempDir(), "b")).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "-- Configuring done") {
		t.Fatalf("cmake: %v\n%s", err, out)
	}
	var want []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "[") {
			want = append(want, line)
		}
	}
	var got []string
	for _, row := range shown(t, linkPropertyProject, Options{}) {
		got = append(got, "["+row[0]+"]")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("etlink reads:\n%s\ncmake reads:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// runScript writes src to script and returns what cmake -P prints for it.
func runScript(t *testing.T, cmake, script, src string) []byte {
	t.Helper()
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(cmake, "-P", script).CombinedOutput()
	if err != nil {
		t.Fatalf("cmake -P: %v\n%s", err, out)
	}
	return out
}

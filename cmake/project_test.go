package cmake

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// loc renders a location relative to root: file:line, then each frame.
func relLoc(root string, l Location) string {
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	}
	s := fmt.Sprintf("%s:%d", rel(l.File), l.Line)
	for _, f := range l.Via {
		s += fmt.Sprintf(" <- %s@%s:%d", f.Function, rel(f.File), f.Line)
	}
	return s
}

// TestProject loads testdata/project and checks what the lint relies on:
// each target's kind and Extension verdict, and each link item with its
// exact place, through wrapper functions and macros.
func TestProject(t *testing.T) {
	const root = "testdata/project"
	p, errs := Load(root, Options{})
	for _, err := range errs {
		t.Errorf("Load: %v", err)
	}
	type want struct {
		def   string // file:line <- frames
		kind  string
		ext   bool
		links []string // item @ location [unknown] [implicit]
		under string   // the first undecided branch of Def, if any
	}
	wants := map[string][]want{
		"demo_registry": {{def: "runtime/CMakeLists.txt:1", kind: KindStatic}},
		"demo_runtime": {{def: "cmake/Utils.cmake:14 <- add_backend_library@runtime/CMakeLists.txt:2", kind: KindShared, links: []string{
			"demo_registry @ cmake/Utils.cmake:16 <- add_backend_library@runtime/CMakeLists.txt:2",
			"$<LINK_LIBRARY:WHOLE_ARCHIVE,demo_registry> @ cmake/Utils.cmake:17 <- add_backend_library@runtime/CMakeLists.txt:2",
		}}},
		"demo::runtime": {{def: "runtime/CMakeLists.txt:3", kind: KindAlias}},
		"torch_python":  {{def: "runtime/CMakeLists.txt:4", kind: KindImported}},
		"demo_backend_xnnpack": {{def: "cmake/Utils.cmake:14 <- add_backend_library@CMakeLists.txt:20", kind: KindStatic, links: []string{
			"demo_runtime @ cmake/Utils.cmake:16 <- add_backend_library@CMakeLists.txt:20",
			"$<LINK_LIBRARY:WHOLE_ARCHIVE,demo_registry> @ cmake/Utils.cmake:17 <- add_backend_library@CMakeLists.txt:20",
		}}},
		"demo_backend_coreml": {{def: "cmake/Utils.cmake:14 <- add_backend_library@CMakeLists.txt:20", kind: KindStatic, links: []string{
			"demo_runtime @ cmake/Utils.cmake:16 <- add_backend_library@CMakeLists.txt:20",
			"$<LINK_LIBRARY:WHOLE_ARCHIVE,demo_registry> @ cmake/Utils.cmake:17 <- add_backend_library@CMakeLists.txt:20",
		}}},
		"demo_backend_mps": {{def: "cmake/Utils.cmake:14 <- add_backend_library@CMakeLists.txt:20", kind: KindStatic, links: []string{
			"demo_runtime @ cmake/Utils.cmake:16 <- add_backend_library@CMakeLists.txt:20",
			"$<LINK_LIBRARY:WHOLE_ARCHIVE,demo_registry> @ cmake/Utils.cmake:17 <- add_backend_library@CMakeLists.txt:20",
		}}},
		"maybe_lib": {
			{def: "CMakeLists.txt:26", kind: KindStatic, under: "if(${DEMO_UNKNOWN_FLAG})", links: []string{"Python::Python @ CMakeLists.txt:27"}},
			{def: "CMakeLists.txt:29", kind: KindShared, under: "else()"},
		},
		"_ext_module": {{def: "extension/pybindings/CMakeLists.txt:4", kind: KindModule, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"Python::Module @ extension/pybindings/CMakeLists.txt:5",
			"demo::runtime @ extension/pybindings/CMakeLists.txt:5",
		}}},
		"_ext_embed": {{def: "extension/pybindings/CMakeLists.txt:8", kind: KindModule, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"demo::runtime @ extension/pybindings/CMakeLists.txt:11",
			"Python::Python @ extension/pybindings/CMakeLists.txt:12",
		}}},
		"_ext_pybind": {{def: "extension/pybindings/CMakeLists.txt:15", kind: KindModule, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"pybind11::module @ extension/pybindings/CMakeLists.txt:15 implicit",
			"demo_runtime @ extension/pybindings/CMakeLists.txt:16",
			"${TORCH_PYTHON_LIBRARY} @ extension/pybindings/CMakeLists.txt:16 unknown",
		}}},
		"_ext_pybind_shared": {{def: "extension/pybindings/CMakeLists.txt:19", kind: KindShared, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"Python3::Python @ extension/pybindings/CMakeLists.txt:19 implicit",
			"pybind11::embed @ extension/pybindings/CMakeLists.txt:19 implicit",
		}}},
		"_ext_suffix": {{def: "extension/pybindings/CMakeLists.txt:23", kind: KindShared, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"${PYTHON_LIBRARIES} @ cmake/Utils.cmake:21 <- demo_link_python@extension/pybindings/CMakeLists.txt:25 unknown",
		}}},
		"_ext_py3": {{def: "extension/pybindings/CMakeLists.txt:27", kind: KindModule, ext: true, under: "if(DEMO_BUILD_PYBIND)", links: []string{
			"Python3::Module @ extension/pybindings/CMakeLists.txt:27 implicit",
		}}},
		// Embeds the interpreter: linking libpython is right, and it is
		// not an extension.
		"demo_embed": {{def: "CMakeLists.txt:37", kind: KindExecutable, links: []string{
			"Python::Python @ CMakeLists.txt:38",
			"demo::runtime @ CMakeLists.txt:38",
		}}},
	}
	seen := map[string]int{}
	for _, tg := range p.Targets {
		ws, ok := wants[tg.Name]
		if !ok || seen[tg.Name] >= len(ws) {
			t.Errorf("unexpected target %s", tg.Name)
			continue
		}
		w := ws[seen[tg.Name]]
		seen[tg.Name]++
		if got := relLoc(root, tg.Def); got != w.def {
			t.Errorf("%s defined at %s, want %s", tg.Name, got, w.def)
		}
		if tg.Kind != w.kind || tg.Extension != w.ext {
			t.Errorf("%s: kind %s extension %v (%s), want %s %v", tg.Name, tg.Kind, tg.Extension, tg.ExtensionWhy, w.kind, w.ext)
		}
		under := ""
		if len(tg.Def.Under) > 0 {
			under = tg.Def.Under[0].Text
		}
		if under != w.under {
			t.Errorf("%s: under %q, want %q", tg.Name, under, w.under)
		}
		var links []string
		for _, l := range tg.Links {
			s := l.Item + " @ " + relLoc(root, l.Loc)
			if l.Unknown {
				s += " unknown"
			}
			if l.Implicit != "" {
				s += " implicit"
			}
			links = append(links, s)
		}
		if strings.Join(links, "\n") != strings.Join(w.links, "\n") {
			t.Errorf("%s links:\n got %s\nwant %s", tg.Name, strings.Join(links, "\n     "), strings.Join(w.links, "\n     "))
		}
	}
	for name, ws := range wants {
		if seen[name] != len(ws) {
			t.Errorf("%s: %d definitions, want %d", name, seen[name], len(ws))
		}
	}

	// The files read, each once, and the suppression comment kept.
	var files []string
	for _, f := range p.Files {
		files = append(files, relLoc(root, Location{File: f.Path}))
	}
	if got, want := strings.Join(files, " "), "CMakeLists.txt:0 cmake/Utils.cmake:0 runtime/CMakeLists.txt:0 extension/pybindings/CMakeLists.txt:0"; got != want {
		t.Errorf("files: %s, want %s", got, want)
	}
	found := false
	for _, c := range p.Files[len(p.Files)-1].Comments {
		if c.Line == 12 && strings.TrimSpace(c.Text) == "etlink: ignore ET202 kept for the fixture" {
			found = true
		}
	}
	if !found {
		t.Errorf("suppression comment not found")
	}

	golden := filepath.Join("testdata", "project.golden")
	got := dump(p)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantGolden, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmake -run TestProject -update)", err)
	}
	if got != string(wantGolden) {
		t.Errorf("dump differs from %s (go test ./cmake -run TestProject -update rewrites it):\n%s", golden, got)
	}
}

func TestLoadTree(t *testing.T) {
	t.Run("include and directory scopes", func(t *testing.T) {
		root := writeTree(t, map[string]string{
			"CMakeLists.txt": `project(top)
set(CMAKE_MODULE_PATH ${CMAKE_SOURCE_DIR}/cmake)
include(Helpers)
include(cmake/Helpers.cmake RESULT_VARIABLE r)
include(missing.cmake OPTIONAL RESULT_VARIABLE m)
set(from_top yes)
link_libraries(everywhere)
add_subdirectory(sub)
add_library(top_${from_sub}_${up}_${m} STATIC x.c)
helper(top_helper)
`,
			"cmake/Helpers.cmake": `include_guard()
function(helper name)
  add_library(${name}_${CMAKE_CURRENT_FUNCTION} STATIC x.c)
endfunction()
get_filename_component(d ${CMAKE_CURRENT_LIST_FILE} NAME)
add_library(from_${d} STATIC x.c)
`,
			"sub/CMakeLists.txt": `set(from_sub no)
set(up up PARENT_SCOPE)
get_filename_component(dir ${CMAKE_CURRENT_SOURCE_DIR} NAME)
add_library(sub_${from_top}_${dir} STATIC x.c)
helper(in_sub)
`,
		})
		p, errs := Load(root, Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var got []string
		for _, tg := range p.Targets {
			got = append(got, fmt.Sprintf("%s:%d", tg.Name, len(tg.Links)))
		}
		want := "from_Helpers.cmake:0 sub_yes_sub:1 in_sub_helper:1 top_${from_sub}_up_NOTFOUND:1 top_helper_helper:1"
		if strings.Join(got, " ") != want {
			t.Errorf("targets:\n got %s\nwant %s", strings.Join(got, " "), want)
		}
		if len(p.Files) != 3 {
			t.Errorf("%d files read, want 3", len(p.Files))
		}
	})
	t.Run("what is not read", func(t *testing.T) {
		root := writeTree(t, map[string]string{
			"CMakeLists.txt": `include(GNUInstallDirs)
include(/etlink/outside/x.cmake)
include(${NOPE}/x.cmake)
add_subdirectory(../outside)
add_subdirectory(${NOPE})
add_subdirectory(sub)
add_subdirectory(sub)
include(missing.cmake)
add_subdirectory(nodir)
add_subdirectory(bad)
add_library(after_errors STATIC x.c)
`,
			"sub/CMakeLists.txt": "add_library(sub STATIC x.c)\n",
			"bad/CMakeLists.txt": "add_library(bad STATIC x.c\n",
		})
		p, errs := Load(root, Options{})
		var gotErrs []string
		for _, err := range errs {
			gotErrs = append(gotErrs, strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
		}
		// A missing file or directory the tree names is a note (a
		// submodule not checked out); a file that cannot be parsed is
		// an error.
		wantErrs := []string{
			`bad/CMakeLists.txt:1:12: missing ")": the "(" of add_library opened here is not closed before the end of the file`,
		}
		if strings.Join(gotErrs, "\n") != strings.Join(wantErrs, "\n") {
			t.Errorf("errors:\n got %s\nwant %s", strings.Join(gotErrs, "\n     "), strings.Join(wantErrs, "\n     "))
		}
		var se *SyntaxError
		if !errors.As(errs[0], &se) || se.Line != 1 || se.Col != 12 {
			t.Errorf("%v: not a *SyntaxError at 1:12", errs[0])
		}
		var notes []string
		for _, n := range p.Notes {
			notes = append(notes, strings.ReplaceAll(n.String(), root+string(filepath.Separator), ""))
		}
		wantNotes := []string{
			"CMakeLists.txt:1: include(GNUInstallDirs): module not found in the tree (a CMake module or one installed elsewhere); not read",
			"CMakeLists.txt:2: include(/etlink/outside/x.cmake): outside the tree; not read",
			"CMakeLists.txt:3: cannot evaluate include(${NOPE}/x.cmake): the file is not known; not read",
			"CMakeLists.txt:4: add_subdirectory(../outside): outside the tree; not read",
			"CMakeLists.txt:5: cannot evaluate add_subdirectory(${NOPE}): the directory is not known; not read",
			"CMakeLists.txt:7: add_subdirectory(sub): directory already added; not read again",
			"CMakeLists.txt:8: include(missing.cmake): no such file in the tree (a submodule not checked out?); not read",
			"CMakeLists.txt:9: add_subdirectory(nodir): no CMakeLists.txt there (a submodule not checked out?); not read",
		}
		if strings.Join(notes, "\n") != strings.Join(wantNotes, "\n") {
			t.Errorf("notes:\n got %s\nwant %s", strings.Join(notes, "\n     "), strings.Join(wantNotes, "\n     "))
		}
		if len(p.Targets) != 2 || p.Target("after_errors") == nil || p.Target("sub") == nil {
			t.Errorf("targets: %v", p.Targets)
		}
	})
	t.Run("a list file as root", func(t *testing.T) {
		root := writeTree(t, map[string]string{"CMakeLists.txt": "add_library(a STATIC a.c)\n"})
		p, errs := Load(filepath.Join(root, "CMakeLists.txt"), Options{})
		if len(errs) > 0 || p.Target("a") == nil || p.Root != root {
			t.Errorf("errs %v, targets %v, root %s", errs, p.Targets, p.Root)
		}
		if got := p.Target("a").Def.File; got != filepath.Join(root, "CMakeLists.txt") {
			t.Errorf("Def.File = %s", got)
		}
	})
	t.Run("no such root", func(t *testing.T) {
		_, errs := Load(filepath.Join(t.TempDir(), "nope"), Options{})
		if len(errs) != 1 || !errors.Is(errs[0], fs.ErrNotExist) {
			t.Errorf("errs = %v", errs)
		}
	})
	t.Run("include recursion is bounded", func(t *testing.T) {
		root := writeTree(t, map[string]string{
			"CMakeLists.txt": "include(self.cmake)\n",
			"self.cmake":     "include(${CMAKE_CURRENT_LIST_FILE})\n",
		})
		p, errs := Load(root, Options{MaxDepth: 5})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if len(p.Notes) != 1 || !strings.Contains(p.Notes[0].Msg, "include() nested deeper than 5") {
			t.Errorf("notes: %v", p.Notes)
		}
	})
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
)

// lintProject writes a small CMake project: a pybind11-style extension that
// links Python3::Python, one that links the module form, and an embedding
// program (not an extension).
func lintProject(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.18)
project(p CXX)
add_subdirectory(ext)
add_executable(embedder main.cpp)
target_link_libraries(embedder PRIVATE Python3::Python)
`,
		"ext/CMakeLists.txt": `add_library(bad MODULE bad.cpp)
target_link_libraries(bad PRIVATE Python3::Python)
add_library(good MODULE good.cpp)
target_link_libraries(good PRIVATE Python3::Module ${TORCH_PYTHON_LIBRARY})
` + extra,
	}
	writeTree(t, dir, files)
	return dir
}

// gitRepo makes dir a git repository holding its files in one commit, and
// returns a function that runs git there.
func gitRepo(t *testing.T, dir string) func(args ...string) {
	t.Helper()
	gitRun := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
	return gitRun
}

func lintFindings(t *testing.T, args ...string) (int, []string, string) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"lint", "--format", "json", "-q"}, args...)...)
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		loc := ""
		if f.Location != nil {
			loc = filepath.Base(filepath.Dir(f.Location.File)) + "/" + filepath.Base(f.Location.File) + ":" + strconv.Itoa(f.Location.Line)
		}
		got = append(got, f.Rule+" "+loc)
	}
	return code, got, errs
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// TestLintBadCMake: syntax errors are located errors (exit 2), never panics.
func TestLintBadCMake(t *testing.T) {
	for name, src := range map[string]string{
		"unterminated bracket": "set(X [=[ never closed\n",
		"unbalanced parens":    "add_library(x MODULE (a.cpp)\n",
		"unterminated quote":   "set(X \"open\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "lint", dir, "-q")
		if code != exitError || !strings.Contains(errs, "CMakeLists.txt:1:") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and an error at CMakeLists.txt:1:COL", name, code, errs)
		}
		if strings.Contains(errs, "panic") {
			t.Errorf("%s: panic: %s", name, errs)
		}
	}
}

// TestLintChanged: with --changed only findings in files changed against
// the base revision remain.
func TestLintChanged(t *testing.T) {
	testenv.NeedTools(t, "git")
	dir := lintProject(t, "")
	gitRepo(t, dir)
	if _, got, _ := lintFindings(t, dir, "--changed"); len(got) != 0 {
		t.Errorf("nothing changed, yet --changed reports %v", got)
	}
	// Touch the top file only: the ET202 in ext/ is not in the change.
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("cmake_minimum_required(VERSION 3.18)\nproject(p CXX)\nadd_subdirectory(ext)\nadd_library(top MODULE t.cpp)\ntarget_link_libraries(top PRIVATE pybind11::embed)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, _ := lintFindings(t, dir, "--changed")
	if strings.Join(got, ",") != "ET202 "+filepath.Base(dir)+"/CMakeLists.txt:5" {
		t.Errorf("--changed: %v, want only the ET202 in the changed top CMakeLists.txt", got)
	}
}

// TestLintFixturesAgreeWithCMake runs etlink lint on the fixtures of
// testdata/lint (CMake reduced from ExecuTorch and pybind11 commits, each
// naming its provenance), which must give exactly the findings its EXPECT
// lists; then configures each with CMake itself (Debian's pybind11 and
// python3) and holds etlink's ET202 verdicts to the codemodel: an
// extension target CMake links libpython into is an error, one it does not
// is none, whatever rewrite of its link libraries the project does. The
// configured build directory must give the same verdicts from the
// codemodel.
func TestLintFixturesAgreeWithCMake(t *testing.T) {
	cmakeTool := testenv.Tool(t, "cmake")
	testenv.NeedTools(t, "g++")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/lib/cmake/pybind11/pybind11Config.cmake")
	dirs, err := filepath.Glob("../../testdata/lint/*/EXPECT")
	if err != nil || len(dirs) < 4 {
		t.Fatalf("%d fixtures: %v", len(dirs), err)
	}
	for _, expect := range dirs {
		src, _ := filepath.Abs(filepath.Dir(expect))
		t.Run(filepath.Base(src), func(t *testing.T) {
			data, err := os.ReadFile(expect)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(data)), "\n", " | "))
			errors := map[string]string{}
			got := lintVerdicts(t, src, src, errors)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("etlink lint: %v, EXPECT says %v", got, want)
			}

			build := t.TempDir()
			if err := os.MkdirAll(filepath.Join(build, ".cmake/api/v1/query"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(build, ".cmake/api/v1/query/codemodel-v2"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(cmakeTool, "-S", src, "-B", build, "-DPython3_EXECUTABLE=/usr/bin/python3")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("cmake: %v\n%s", err, out)
			}
			links := codemodelLibpython(t, build)
			for target, libpython := range links.extensions {
				if libpython != (errors[target] != "") {
					t.Errorf("%s: CMake links libpython: %v; etlink's ET202 error: %q", target, libpython, errors[target])
				}
			}
			// From the build directory the verdict is the codemodel's.
			fromBuild := map[string]string{}
			lintVerdicts(t, build, src, fromBuild)
			for target, libpython := range links.extensions {
				msg := fromBuild[target]
				if libpython != (msg != "") || libpython && !strings.Contains(msg, "CMake's codemodel") {
					t.Errorf("%s, linting the build directory: CMake links libpython: %v; ET202 error: %q", target, libpython, msg)
				}
			}
		})
	}
}

// lintVerdicts runs etlink lint on path and returns its findings as EXPECT
// spells them ("ET202 error CMakeLists.txt:10 target", paths relative to
// src); errors receives the targets with an ET202 error and its message.
func lintVerdicts(t *testing.T, path, src string, errors map[string]string) []string {
	t.Helper()
	code, out, errs := runCLI(t, "lint", path, "--format", "json", "-q")
	if code == exitError {
		t.Fatalf("lint %s: exit %d: %s", path, code, errs)
	}
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		where := ""
		if f.Location != nil {
			rel, _ := filepath.Rel(src, f.Location.File)
			where = fmt.Sprintf("%s:%d", rel, f.Location.Line)
		}
		if len(got) > 0 {
			got = append(got, "|")
		}
		got = append(got, f.Rule, f.Severity.String(), where, f.Subject.Target)
		if f.Rule == "ET202" && f.Severity == finding.Error {
			errors[f.Subject.Target] = f.Message
		}
	}
	return got
}

// codemodelLinks is what CMake's codemodel says of a build's targets.
type codemodelLinks struct {
	// extensions maps the targets a Python module helper made (their
	// backtrace passes through pybind11_add_module or Python*_add_library)
	// to whether their link names libpython.
	extensions map[string]bool
}

func codemodelLibpython(t *testing.T, build string) codemodelLinks {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(build, ".cmake/api/v1/reply/target-*.json"))
	links := codemodelLinks{extensions: map[string]bool{}}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tgt struct {
			Name string `json:"name"`
			Link *struct {
				CommandFragments []struct {
					Fragment string `json:"fragment"`
				} `json:"commandFragments"`
			} `json:"link"`
			BacktraceGraph struct {
				Commands []string `json:"commands"`
			} `json:"backtraceGraph"`
		}
		if err := json.Unmarshal(data, &tgt); err != nil {
			t.Fatal(err)
		}
		if tgt.Link == nil || !slices.Contains(tgt.BacktraceGraph.Commands, "pybind11_add_module") {
			continue
		}
		libpython := false
		for _, frag := range tgt.Link.CommandFragments {
			libpython = libpython || strings.Contains(frag.Fragment, "libpython3")
		}
		links.extensions[tgt.Name] = libpython
	}
	if len(links.extensions) == 0 {
		t.Fatalf("no pybind11 module in the codemodel of %s", build)
	}
	return links
}

// TestLintDefines: a link under an option the tree does not set is read
// (an error whose evidence names the undecided condition); -D decides the
// condition as cmake -D would, and a malformed -D is a usage error.
func TestLintDefines(t *testing.T) {
	dir := lintProject(t, "if(WITH_EMBED)\n  target_link_libraries(good PRIVATE Python3::Python)\nendif()\n")
	for _, tc := range []struct {
		define    string
		want      string
		undecided bool
	}{
		{"", "ET202 ext/CMakeLists.txt:2,ET202 ext/CMakeLists.txt:6", true},
		{"-DWITH_EMBED:BOOL=ON", "ET202 ext/CMakeLists.txt:2,ET202 ext/CMakeLists.txt:6", false},
		{"-DWITH_EMBED=OFF", "ET202 ext/CMakeLists.txt:2", false},
	} {
		args := []string{"lint", "--format", "json", "-q", dir}
		if tc.define != "" {
			args = append(args, tc.define)
		}
		code, out, errs := runCLI(t, args...)
		var got []string
		undecided := false
		for _, f := range decodeReport(t, out).Findings {
			got = append(got, fmt.Sprintf("%s %s/%s:%d", f.Rule, filepath.Base(filepath.Dir(f.Location.File)), filepath.Base(f.Location.File), f.Location.Line))
			for _, s := range f.Evidence {
				undecided = undecided || strings.Contains(s.Text, "if(WITH_EMBED)") && strings.Contains(s.Text, "could not decide")
			}
		}
		if code != exitFindings || strings.Join(sortedCopy(got), ",") != tc.want || undecided != tc.undecided {
			t.Errorf("lint %s: exit %d, findings %v, undecided %v; want exit 1, %s, undecided %v (stderr %s)", tc.define, code, got, undecided, tc.want, tc.undecided, errs)
		}
	}
	if code, _, errs := runCLI(t, "lint", dir, "-D", "WITH_EMBED"); code != exitError || !strings.Contains(errs, "NAME=VALUE") {
		t.Errorf("-D WITH_EMBED: exit %d, stderr %q; want exit 2 naming the NAME=VALUE form", code, errs)
	}
}

// TestLintUndecidedRewrite: a rewrite of LINK_LIBRARIES that drops the
// embedding items under a condition the tree does not decide may not
// happen: a note that says it could not decide; -D decides it either way.
func TestLintUndecidedRewrite(t *testing.T) {
	dir := t.TempDir()
	src := `cmake_minimum_required(VERSION 3.20)
project(p CXX)
pybind11_add_module(ext SHARED ext.cpp)
if(STRIP_PY)
  get_target_property(_libs ext LINK_LIBRARIES)
  list(FILTER _libs EXCLUDE REGEX "^(Python3?::Python|pybind11::embed)$")
  set_target_properties(ext PROPERTIES LINK_LIBRARIES "${_libs}")
endif()
`
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ define, want string }{
		{"", "note could not decide"},
		{"-DSTRIP_PY=ON", "note not linked"},
		{"-DSTRIP_PY=OFF", "error into the extension"},
	} {
		args := []string{"lint", "--format", "json", "-q", dir}
		if tc.define != "" {
			args = append(args, tc.define)
		}
		_, out, errs := runCLI(t, args...)
		fs := decodeReport(t, out).Findings
		sev, phrase, _ := strings.Cut(tc.want, " ")
		if len(fs) != 1 || fs[0].Severity.String() != sev || !strings.Contains(fs[0].Message, phrase) {
			t.Errorf("lint %s: %+v; want one %s saying %q (stderr %s)", tc.define, fs, sev, phrase, errs)
		}
	}
}

// TestLintLinkOptions: libpython passed as a link option is linked as
// surely as a library item; filtered out of LINK_OPTIONS, it is not.
func TestLintLinkOptions(t *testing.T) {
	dir := t.TempDir()
	src := `project(p CXX)
add_library(m MODULE m.cpp)
target_link_options(m PRIVATE -lpython3.13 "LINKER:--as-needed")
get_target_property(o m LINK_OPTIONS)
list(FILTER o EXCLUDE REGEX "python")
set_target_properties(m PROPERTIES LINK_OPTIONS "${o}")
add_library(n MODULE n.cpp)
set_property(TARGET n APPEND PROPERTY LINK_OPTIONS -lpython3.13)
`
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got, errs := lintFindings(t, dir)
	if want := "ET202 " + filepath.Base(dir) + "/CMakeLists.txt:8"; strings.Join(got, ",") != want {
		t.Errorf("lint: %v, want %s (stderr %s)", got, want, errs)
	}
}

// TestLintBuildLacksTarget: an extension the configured build did not
// create (its option off, as pybind11's test_cross_module_rtti_bindings is
// without Catch) is an error read from the source, and a note read from the
// build: CMake, which decides, made no such link in that configuration.
func TestLintBuildLacksTarget(t *testing.T) {
	cmakeTool := testenv.Tool(t, "cmake")
	testenv.NeedTools(t, "g++")
	testenv.NeedFiles(t, "/usr/bin/python3")
	src := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.18)
project(p CXX)
find_package(Python3 COMPONENTS Interpreter Development REQUIRED)
add_library(plain MODULE m.cpp)
if(WITH_EMBED)
  add_library(embedded MODULE m.cpp)
  target_link_libraries(embedded PRIVATE Python3::Python)
endif()
`,
		"m.cpp": "int m() { return 0; }\n",
	}
	build := configureWithQuery(t, cmakeTool, src, files)
	for path, want := range map[string]string{src: "error", build: "note"} {
		_, out, errs := runCLI(t, "lint", "--format", "json", "-q", path)
		fs := decodeReport(t, out).Findings
		if len(fs) != 1 || fs[0].Rule != "ET202" || fs[0].Subject.Target != "embedded" || fs[0].Severity.String() != want {
			t.Errorf("lint %s: %+v; want one ET202 %s on embedded (stderr %s)", path, fs, want, errs)
		}
	}
}

// TestLintPrefixlessShared: a SHARED library with PREFIX "" and no SUFFIX is
// NAME.so, which Python imports: linking libpython into it is ET202 in the
// source and in the configured build directory, where CMake's codemodel
// names the library (both said nothing before).
func TestLintPrefixlessShared(t *testing.T) {
	cmakeTool := testenv.Tool(t, "cmake")
	testenv.NeedTools(t, "g++")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/include/python3.11/Python.h")
	src := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.18)
project(p CXX)
find_package(Python3 COMPONENTS Interpreter Development REQUIRED)
add_library(_plain SHARED m.cpp)
set_target_properties(_plain PROPERTIES PREFIX "")
target_link_libraries(_plain PRIVATE ${Python3_LIBRARIES})
`,
		"m.cpp": "extern \"C\" void* PyInit__plain() { return 0; }\n",
	}
	build := configureWithQuery(t, cmakeTool, src, files)
	for _, path := range []string{src, build} {
		_, out, errs := runCLI(t, "lint", "--format", "json", "-q", path)
		fs := decodeReport(t, out).Findings
		if len(fs) != 1 || fs[0].Rule != "ET202" || fs[0].Subject.Target != "_plain" || fs[0].Severity.String() != "error" ||
			fs[0].Location == nil || fs[0].Location.Line != 6 {
			t.Errorf("lint %s: %+v; want one ET202 error on _plain at CMakeLists.txt:6 (stderr %s)", path, fs, errs)
		}
	}
}

// configureWithQuery writes files into src and configures it with CMake
// into a new build directory, with a File API codemodel query.
func configureWithQuery(t *testing.T, cmakeTool, src string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := t.TempDir()
	if err := os.MkdirAll(filepath.Join(build, ".cmake/api/v1/query"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(build, ".cmake/api/v1/query/codemodel-v2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cmakeTool, "-S", src, "-B", build, "-DPython3_EXECUTABLE=/usr/bin/python3").CombinedOutput(); err != nil {
		t.Fatalf("cmake: %v\n%s", err, out)
	}
	return build
}

// TestLintChangedRunsNothing: --changed asks git, and the repository's
// config names programs git would run (fsmonitor, pager, external diff,
// hooks); none of them may run.
func TestLintChangedRunsNothing(t *testing.T) {
	testenv.NeedTools(t, "git")
	dir := lintProject(t, "")
	marker := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evil.sh")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho \"$0 $*\" >> "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun := gitRepo(t, dir)
	for _, kv := range [][2]string{{"core.fsmonitor", evil}, {"core.pager", evil}, {"diff.external", evil}, {"core.hooksPath", filepath.Dir(evil)}} {
		gitRun("config", kv[0], kv[1])
	}
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("project(p CXX)\nadd_subdirectory(ext)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "lint", dir, "--changed", "-q"); code == exitError {
		t.Fatalf("lint --changed: exit %d: %s", code, errs)
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("lint --changed ran a program the repository's git config names: %s", data)
	}
	// The same config does run it when git is asked plainly: the test can fail.
	cmd := exec.Command("git", "-C", dir, "diff", "HEAD")
	cmd.Env = append(os.Environ(), "GIT_PAGER=")
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("plain git diff did not run the configured program either: the test proves nothing")
	}
}

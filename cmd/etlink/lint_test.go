package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

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
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
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

func TestLintEmbedAndSuppressions(t *testing.T) {
	dir := lintProject(t, "")
	code, got, errs := lintFindings(t, dir)
	if strings.Join(got, ",") != "ET202 ext/CMakeLists.txt:2" || code != exitFindings {
		t.Errorf("lint: exit %d, findings %v, want exactly ET202 at ext/CMakeLists.txt:2 (stderr %s)", code, got, errs)
	}

	// A directive with a reason silences it; one without is ET001; one that
	// silences nothing is ET002.
	dir = lintProject(t, "# etlink: ignore ET202\nadd_library(bad2 MODULE b.cpp)\ntarget_link_libraries(bad2 PRIVATE ${PYTHON_LIBRARIES})  # etlink: ignore ET202 shim for a test\n# etlink: ignore ET101 stale\n")
	_, got, _ = lintFindings(t, dir)
	want := "ET001 ext/CMakeLists.txt:5,ET002 ext/CMakeLists.txt:8,ET202 ext/CMakeLists.txt:2"
	if strings.Join(sortedCopy(got), ",") != want {
		t.Errorf("lint with directives: %v, want %s", sortedCopy(got), want)
	}
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
	gitRun := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q")
	gitRun("add", "-A")
	gitRun("commit", "-qm", "base")
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

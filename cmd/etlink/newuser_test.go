package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/rules"
)

// TestNewUserHour replays issue 31's new user: a pybind11 project
// (testdata/newuser) whose backend registers into the project's own
// registry and is dropped by --as-needed, built with the real cmake and
// g++, analysed from the project root, from build/ and from the parent
// directory, with no configuration, an etlink.toml and a pyproject.toml
// [tool.etlink] at the project root: the same findings from everywhere,
// and the configuration (or its absence) named. Then the CMakeLists.txt is
// edited without a re-configure (ET004, lines unverified), and a second
// build directory is configured and not built (why: not built yet).
func TestNewUserHour(t *testing.T) {
	testenv.NeedTools(t, "cmake", "ninja", "g++")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/lib/cmake/pybind11/pybind11Config.cmake")
	parent := t.TempDir()
	proj := filepath.Join(parent, "project")
	copyDir(t, "../../testdata/newuser", proj)
	if err := os.Mkdir(filepath.Join(proj, ".git"), 0o755); err != nil { // a checkout: the search stops here
		t.Fatal(err)
	}
	build := filepath.Join(proj, "build")
	configure(t, proj, build)
	runTool(t, "", "ninja", "-C", build)

	// The truth: the module imports and its registry is empty.
	imp := exec.Command("/usr/bin/python3", "-c", "import _core; print(_core.backends())")
	imp.Env = append(os.Environ(), "PYTHONPATH="+build)
	if out, err := imp.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Fatalf("the fixture's backend should be dropped (backends() == []): %v\n%s", err, out)
	}
	wantLine := lineWith(t, filepath.Join(proj, "CMakeLists.txt"), "target_link_libraries(_core")

	for _, cfg := range []struct {
		file, text, fix string
	}{
		{"", "", `"-Wl,--push-state,--no-as-needed" mybackend`},
		{"etlink.toml", "[retention]\nfix_as_needed = \"newuser_keep({library})\"\n", "newuser_keep(mybackend)"},
		{"pyproject.toml", "[project]\nname = \"newuser\"\n\n[tool.black]\nline-length = 100\n\n[tool.etlink.retention]\nfix_as_needed = \"py_keep({library})\"\n", "py_keep(mybackend)"},
	} {
		name := cfg.file
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			want := ""
			if cfg.file != "" {
				want = filepath.Join(proj, cfg.file)
				if err := os.WriteFile(want, []byte(cfg.text), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(want)
			}
			var first string
			for _, from := range []struct{ cwd, input string }{{proj, "build"}, {build, ""}, {parent, "project/build"}} {
				t.Chdir(from.cwd)
				args := []string{"retention", "--format", "json", "-v", "--fail-on", "none"}
				if from.input != "" {
					args = append(args, from.input)
				}
				code, out, errs := runCLI(t, args...)
				if code != exitOK {
					t.Fatalf("%v from %s: exit %d\n%s", args, from.cwd, code, errs)
				}
				r := decodeReport(t, out)
				checkConfigNamed(t, r.Config, errs, want)
				got := findingKeys(r.Findings)
				if !strings.Contains(got, fmt.Sprintf("ET101 error CMakeLists.txt:%d", wantLine)) || !strings.Contains(got, cfg.fix) {
					t.Errorf("from %s: want ET101 at CMakeLists.txt:%d with fix %s, got\n%s", from.cwd, wantLine, cfg.fix, got)
				}
				if first == "" {
					first = got
				} else if got != first {
					t.Errorf("from %s the findings differ:\n%s\nfrom %s:\n%s", from.cwd, got, proj, first)
				}
			}
		})
	}

	t.Run("stale", func(t *testing.T) { staleConfigure(t, proj, build, wantLine) })
	t.Run("unbuilt", func(t *testing.T) {
		fresh := filepath.Join(proj, "fresh")
		configure(t, proj, fresh)
		code, out, errs := runCLI(t, "why", "mybackend", fresh, "--format", "json")
		var w whyReport
		if err := json.Unmarshal([]byte(out), &w); err != nil {
			t.Fatalf("why's JSON: %v\n%s%s", err, out, errs)
		}
		var lib *rules.Chain
		for i, c := range w.Chains {
			if c.Subject == "libmybackend.so" {
				lib = &w.Chains[i]
			}
		}
		if code != exitFindings || lib == nil || !lib.NotBuilt || !strings.HasPrefix(lib.Verdict, "not built yet") || strings.Contains(lib.Verdict, "found no registration") {
			t.Errorf("why mybackend on a configured, unbuilt tree: exit %d, want 1 and libmybackend.so not built yet:\n%s", code, out)
		}
		if _, _, errs := runCLI(t, "retention", fresh); !strings.Contains(errs, "not built yet (") || !strings.Contains(errs, "libmybackend.so") {
			t.Errorf("retention on a configured, unbuilt tree does not say it is not built:\n%s", errs)
		}
	})
}

// staleConfigure edits CMakeLists.txt without a re-configure: the header
// comment removed, the line the reply gives for the link is past the end.
func staleConfigure(t *testing.T, proj, build string, line int) {
	cml := filepath.Join(proj, "CMakeLists.txt")
	data, err := os.ReadFile(cml)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			kept = append(kept, l)
		}
	}
	if len(kept) >= line {
		t.Fatalf("the edit leaves line %d inside the file (%d lines): the fixture's header comment is too short", line, len(kept))
	}
	if err := os.WriteFile(cml, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second) // after the reply, however coarse the clock
	if err := os.Chtimes(cml, later, later); err != nil {
		t.Fatal(err)
	}
	t.Chdir(proj)
	_, out, errs := runCLI(t, "retention", "build", "--format", "json", "--fail-on", "none")
	r := decodeReport(t, out)
	var stale, unverified bool
	for _, f := range r.Findings {
		switch {
		case f.Rule == "ET004":
			stale = f.Location != nil && f.Location.File == cml && strings.Contains(f.Message, "CMakeLists.txt changed")
		case f.Rule == "ET101":
			unverified = f.Location != nil && f.Location.Line == line && f.Location.Unverified
		}
	}
	if !stale || !unverified || !strings.Contains(errs, "older than the sources") {
		t.Errorf("stale reply: ET004 naming %s %v, ET101 line %d unverified %v; stderr:\n%s\n%s", cml, stale, line, unverified, errs, out)
	}
	if _, out, _ := runCLI(t, "why", "mybackend", "build"); !strings.Contains(out, "lines above are from a stale configure") {
		t.Errorf("why on a stale reply does not say its lines are unverified:\n%s", out)
	}
	at := fmt.Sprintf("CMakeLists.txt:%d", line)
	for format, want := range map[string]string{
		"text":   at + " (line from a stale configure)",
		"sarif":  at + ": line from a stale configure",
		"github": at + ": line from a stale configure",
	} {
		_, out, _ := runCLI(t, "retention", "build", "--format", format, "-v", "--fail-on", "none")
		if !strings.Contains(out, want) || !strings.Contains(out, "ET004") {
			t.Errorf("--format %s: want %q and ET004:\n%s", format, want, out)
		}
		if strings.Contains(out, fmt.Sprintf(`"startLine": %d`, line)) || strings.Contains(out, fmt.Sprintf("line=%d", line)) {
			t.Errorf("--format %s places line %d, past the end of the file:\n%s", format, line, out)
		}
	}
}

// checkConfigNamed checks that a run names the configuration it read:
// want, or none.
func checkConfigNamed(t *testing.T, got *finding.ConfigSource, stderr, want string) {
	t.Helper()
	switch {
	case got == nil:
		t.Errorf("the report has no config field")
	case want == "" && (got.FoundBy != "none" || got.Path != "" || !strings.Contains(stderr, "configuration: none")):
		t.Errorf("no configuration: got %+v, stderr:\n%s", got, stderr)
	case want != "" && (got.FoundBy != "search" || got.Path != want || !strings.Contains(stderr, "configuration: "+want)):
		t.Errorf("want %s found by search: got %+v, stderr:\n%s", want, got, stderr)
	}
}

// findingKeys are what a user compares between runs: rule, severity, the
// location's file name and line, the fix and the fingerprint.
func findingKeys(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		loc := ""
		if f.Location != nil {
			loc = fmt.Sprintf("%s:%d", filepath.Base(f.Location.File), f.Location.Line)
		}
		fmt.Fprintf(&b, "%s %s %s %s [%s] %s\n", f.Rule, f.Severity, loc, f.Subject.Symbol, f.Fix, f.Fingerprint)
	}
	return b.String()
}

func configure(t *testing.T, src, build string) {
	t.Helper()
	query := filepath.Join(build, ".cmake", "api", "v1", "query")
	if err := os.MkdirAll(query, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"codemodel-v2", "toolchains-v1", "cmakeFiles-v1"} {
		if err := os.WriteFile(filepath.Join(query, q), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runTool(t, "", "cmake", "-S", src, "-B", build, "-G", "Ninja", "-DPYTHON_EXECUTABLE=/usr/bin/python3")
}

func runTool(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// lineWith is the 1-based line of file that contains s.
func lineWith(t *testing.T, file, s string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line with %q", file, s)
	return 0
}

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfigSearch: a --with peer's configuration is never read; inputs
// that would each find another file are said, and the run reads the one
// of their common directory.
func TestConfigSearch(t *testing.T) {
	peer := t.TempDir()
	copyDir(t, "../../testdata/demo/torch/lib", peer)
	bogus := filepath.Join(peer, "etlink.toml")
	if err := os.WriteFile(bogus, []byte("bogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "conflicts", "../../testdata/demo/wheel", "--with", peer, "--format", "json", "--fail-on", "none")
	if code != exitOK || strings.Contains(errs, bogus) {
		t.Fatalf("conflicts --with a peer holding an etlink.toml: exit %d\n%s", code, errs)
	}
	if r := decodeReport(t, out); r.Config == nil || r.Config.FoundBy != "none" {
		t.Errorf("the demo wheel has no configuration up to the repository root: %+v", r.Config)
	}

	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		writeText(t, filepath.Join(d, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.18)\nproject(x CXX)\n")
	}
	own := filepath.Join(a, "etlink.toml")
	writeText(t, own, "[soname]\nversioned = true\n")
	_, out, errs = runCLI(t, "lint", a, b, "--format", "json", "-v")
	if r := decodeReport(t, out); r.Config == nil || r.Config.FoundBy != "none" || r.Config.Searched[0] != root {
		t.Errorf("lint a b: the configuration of their common directory %s (none), got %+v", root, r.Config)
	}
	if !strings.Contains(errs, a+" would read "+own+", the inputs together read no configuration") || strings.Contains(errs, b+" would read") {
		t.Errorf("lint a b: want a note that a alone would read %s, none for b:\n%s", own, errs)
	}
}

func writeText(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

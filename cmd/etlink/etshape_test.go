package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/rules"
)

// TestExecuTorchShape builds testdata/etshape (ExecuTorch's CMake shape at
// #21610: registration archives named twice by its link-option helpers,
// Release's -s, a versioned cmake --install tree, executor_runner loading
// the prim ops twice), runs every program, and holds etlink to what they
// do: retention by each reader of the build directory (File API,
// build.ninja, the build log), why and lint on it, and check, conflicts,
// tree and scan on the install tree, each in every spelling of the path.
func TestExecuTorchShape(t *testing.T) {
	testenv.NeedTools(t, "bash", "cmake", "ninja", "g++", "ldd")
	script, err := filepath.Abs("../../testdata/etshape/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	build, stage := filepath.Join(dir, "build"), filepath.Join(dir, "stage")
	sh(t, script, build, stage)

	// The truth: what each program registers, or that it aborts.
	want := shapeTruth(t, build)
	for _, reader := range []string{build, filepath.Join(build, "build.ninja"), filepath.Join(build, "build.log")} {
		_, out, errs := runCLI(t, "retention", reader, "--format", "json", "--fail-on", "none")
		got := shapeFindings(decodeReport(t, out).Findings)
		missing, extra := diff(want, got)
		for _, m := range missing {
			t.Errorf("retention %s: the program shows it, etlink found nothing: %s\n%s", reader, m, errs)
		}
		for _, e := range extra {
			t.Errorf("retention %s: etlink reports what the program does not show: %s", reader, e)
		}
	}
	// lint judges the same links.
	_, out, _ := runCLI(t, "lint", build, "--format", "json", "--fail-on", "none")
	if missing, extra := diff(want, shapeFindings(decodeReport(t, out).Findings)); len(missing)+len(extra) > 0 {
		t.Errorf("lint %s: missing %v, extra %v", build, missing, extra)
	}
	shapeConsumer(t, build+"-consumer")
	shapeWhy(t, build, want)
	shapeInstalled(t, stage)

	// Every spelling of each tree gives the same answers.
	if err := os.Symlink("build", filepath.Join(dir, "build-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("stage", filepath.Join(dir, "stage-link")); err != nil {
		t.Fatal(err)
	}
	for _, tree := range []struct {
		name, sub string
		commands  [][]string
	}{
		{"build", "CMakeFiles", [][]string{{"retention"}, {"lint"}, {"why", "xnnpack"}, {"why", "register_"}}},
		{"stage", "bin", [][]string{{"check"}, {"conflicts"}, {"tree"}, {"scan"}}},
	} {
		for _, command := range tree.commands {
			var first []string
			for i, sp := range spellings(dir, tree.name, tree.sub) {
				t.Chdir(sp.cwd)
				args := append(slices.Clone(command), sp.path, "--format", "json")
				if command[0] != "tree" && command[0] != "scan" && command[0] != "why" {
					args = append(args, "--fail-on", "none")
				}
				_, out, errs := runCLI(t, args...)
				typed := sp.path
				if !filepath.IsAbs(typed) {
					typed = filepath.Join(sp.cwd, typed)
				}
				got := normalized(t, command[0], out, typed)
				if len(got) == 0 {
					t.Errorf("%s %s: no answer to compare (stderr %s)", strings.Join(command, " "), sp.path, errs)
				}
				if i == 0 {
					first = got
					continue
				}
				if missing, extra := diff(first, got); len(missing)+len(extra) > 0 {
					t.Errorf("%s in %s, %s: differs from %s: lacks %v, adds %v", strings.Join(command, " "), sp.cwd, sp.path, tree.name, missing, extra)
				}
			}
		}
	}
}

// shapeLinks says which programs name the backend and the kernel library
// on their link (from project/CMakeLists.txt): a registration missing at
// run time from one of them is lost.
var shapeLinks = map[string]struct{ backend, kernels bool }{
	"executor_runner":      {true, true},
	"consumer_retained":    {true, true},
	"consumer_plain":       {true, false},
	"consumer_static_core": {false, true},
}

// shapeTruth runs each program and returns the findings its run calls for:
// ET104 where it aborts on a kernel registered twice, ET101 where the
// backend it links did not register, ET102 where its kernels did not.
func shapeTruth(t *testing.T, build string) []string {
	t.Helper()
	var want []string
	for prog, links := range shapeLinks {
		cmd := exec.Command(filepath.Join(build, prog))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit) && strings.Contains(stderr.String(), "already registered"):
			want = append(want, "ET104 error "+prog)
			continue
		default:
			t.Fatalf("%s: %v\n%s", prog, err, stderr.String())
		}
		listed := stdout.String()
		if !strings.Contains(listed, "kernel aten::sym_size.int") {
			t.Fatalf("%s lists no prim ops; every program links them:\n%s", prog, listed)
		}
		if links.backend && !strings.Contains(listed, "backend XnnpackBackend") {
			want = append(want, "ET101 error "+prog)
		}
		if links.kernels && !strings.Contains(listed, "kernel aten::add.out") {
			want = append(want, "ET102 error "+prog)
		}
	}
	sort.Strings(want)
	if len(want) != 3 {
		// The fixture is built to lose one of each kind; a toolchain that
		// does otherwise makes this test compare less than it should.
		t.Fatalf("the fixture's runs show %v; want one ET101, one ET102 and one ET104 case", want)
	}
	return want
}

// shapeConsumer holds retention to a program built against the install
// tree that names the backend's installed file plainly: the run lists no
// backend, so the dropped backend is an error, although the library is
// installed rather than built by the consumer's project (its registry is
// the libexecutorch.so the program uses).
func shapeConsumer(t *testing.T, build string) {
	t.Helper()
	out, err := exec.Command(filepath.Join(build, "installed_plain")).Output()
	if err != nil || strings.Contains(string(out), "backend XnnpackBackend") || !strings.Contains(string(out), "kernel aten::sym_size.int") {
		t.Fatalf("installed_plain: %v\n%s (the fixture drops the installed backend)", err, out)
	}
	_, js, errs := runCLI(t, "retention", build, "--format", "json", "--fail-on", "none")
	got := shapeFindings(decodeReport(t, js).Findings)
	if want := []string{"ET101 error installed_plain"}; !slices.Equal(got, want) {
		t.Errorf("retention %s: %v, want %v: the run lists no backend (stderr %s)", build, got, want, errs)
	}
}

// shapeFindings are the findings at warning or above as "RULE SEVERITY TARGET".
func shapeFindings(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Severity >= finding.Warning {
			out = append(out, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Subject.Target))
		}
	}
	sort.Strings(out)
	return out
}

// shapeWhy holds why to the runs: one chain per object and consumer, the
// backend kept exactly where it registered, the kernels' member extracted
// exactly where they registered, and the prim ops twice in the program
// that aborts.
func shapeWhy(t *testing.T, build string, want []string) {
	t.Helper()
	chains := func(name string) []rules.Chain {
		_, out, errs := runCLI(t, "why", name, build, "--format", "json")
		var r struct{ Chains []rules.Chain }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("why %s: %v\n%s", name, err, errs)
		}
		seen := map[string]bool{}
		for _, c := range r.Chains {
			key := c.Consumer + " " + realOrSelf(c.Subject)
			if seen[key] {
				t.Errorf("why %s: two answers for %s in %s", name, c.Subject, c.Consumer)
			}
			seen[key] = true
		}
		return r.Chains
	}
	lost := func(rule, prog string) bool { return slices.Contains(want, rule+" error "+prog) }
	for _, c := range chains("libexecutorch_backend_xnnpack") {
		if links, ok := shapeLinks[c.Consumer]; ok && links.backend && c.Kept == lost("ET101", c.Consumer) {
			t.Errorf("why: the backend in %s: kept=%v, but the run shows it %s: %s", c.Consumer, c.Kept, map[bool]string{true: "lost", false: "registered"}[lost("ET101", c.Consumer)], c.Verdict)
		}
	}
	for _, c := range chains("register_kernels.cpp") {
		if links, ok := shapeLinks[c.Consumer]; ok && links.kernels && c.Kept == lost("ET102", c.Consumer) {
			t.Errorf("why: the kernels in %s: kept=%v against the run: %s", c.Consumer, c.Kept, c.Verdict)
		}
	}
	twice := 0
	for _, c := range chains("register_prim_ops") {
		if c.Twice != lost("ET104", c.Consumer) {
			t.Errorf("why: the prim ops in %s: twice=%v against the run: %s", c.Consumer, c.Twice, c.Verdict)
		}
		if c.Twice {
			twice++
		}
	}
	if twice == 0 {
		t.Errorf("why names no copy of the prim ops that registers twice")
	}
}

// shapeInstalled holds check and conflicts on the install tree to the
// loader: every library found in the tree (ldd), no error, and the
// duplicate the loader binds across copies (LD_DEBUG=bindings) reported.
func shapeInstalled(t *testing.T, stage string) {
	t.Helper()
	prog := filepath.Join(stage, "bin", "consumer_retained")
	ldd, err := exec.Command("ldd", prog).CombinedOutput()
	if err != nil || strings.Contains(string(ldd), "not found") {
		t.Fatalf("ldd %s: %v\n%s", prog, err, ldd)
	}
	cmd := exec.Command(prog)
	cmd.Env = append(os.Environ(), "LD_DEBUG=bindings", "LD_BIND_NOW=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
	// The library's reference to the registry binds to the program's copy.
	crossed := strings.Contains(string(out), "libexecutorch.so.1 [0] to "+prog+" [0]: normal symbol `_ZN2et16register_backendERKNS_7BackendE'")
	for _, command := range []string{"check", "conflicts"} {
		_, js, errs := runCLI(t, command, stage, "--format", "json", "--fail-on", "none")
		var dup bool
		for _, f := range decodeReport(t, js).Findings {
			if f.Severity == finding.Error {
				t.Errorf("%s %s: %s %s: the loader finds the tree and the program runs (stderr %s)", command, stage, f.Rule, f.Message, errs)
			}
			dup = dup || f.Rule == "ET302" && f.Severity == finding.Warning && strings.Contains(f.Message, "register_backend")
		}
		if dup != crossed {
			t.Errorf("%s %s: ET302 warning for register_backend %v, the loader binds across copies %v", command, stage, dup, crossed)
		}
	}
}

// spelling is one way to name a tree: a path typed in a directory.
type spelling struct{ cwd, path string }

// spellings are the ways a user types the path of dir/name (sub is one
// of its directories).
func spellings(dir, name, sub string) []spelling {
	return []spelling{
		{dir, name},
		{dir, "./" + name},
		{dir, name + "/../" + name},
		{dir, filepath.Join(dir, name)},
		{dir, name + "-link"},
		{filepath.Join(dir, name), "."},
		{filepath.Join(dir, name, sub), "../"},
	}
}

// normalized reduces a command's JSON answer to what must not depend on
// the spelling: findings (rule, severity, target, symbol, member, and the
// subject's real file relative to the tree), why's chains, tree's
// resolutions and scan's rows, each with paths made relative to the tree
// (tree is the typed path made absolute; a relative path printed is
// relative to the directory the command ran in, the working directory).
func normalized(t *testing.T, command, out, tree string) []string {
	t.Helper()
	root := realOrSelf(tree)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if r, err := filepath.Rel(root, realOrSelf(p)); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	var got []string
	switch command {
	case "why":
		var r struct{ Chains []rules.Chain }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("why: %v\n%s", err, out)
		}
		for _, c := range r.Chains {
			subject := c.Subject // a link argument or archive(member) as written
			if filepath.IsAbs(subject) {
				subject = rel(subject) // a file as read
			}
			got = append(got, fmt.Sprintf("%s %s kept=%v twice=%v", c.Consumer, subject, c.Kept, c.Twice))
		}
	case "tree":
		var r struct{ Trees []treeNode }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("tree: %v\n%s", err, out)
		}
		var walk func(from string, n *treeNode)
		walk = func(from string, n *treeNode) {
			for _, d := range n.Needed {
				got = append(got, fmt.Sprintf("%s needs %s => %s [%s %s]", from, d.Name, rel(d.Path), d.Via, d.Dir))
				walk(rel(d.Path), d)
			}
		}
		for i := range r.Trees {
			walk(rel(r.Trees[i].Path), &r.Trees[i])
		}
	case "scan":
		var r struct {
			Objects []struct {
				Path    string
				Needed  []string
				Runpath []string
				Soname  string
			}
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("scan: %v\n%s", err, out)
		}
		for _, o := range r.Objects {
			got = append(got, fmt.Sprintf("%s soname=%s needed=%v runpath=%v", rel(o.Path), o.Soname, o.Needed, o.Runpath))
		}
	default:
		for _, f := range decodeReport(t, out).Findings {
			s := f.Subject
			got = append(got, fmt.Sprintf("%s %s %s %s %s %s", f.Rule, f.Severity, rel(s.File), s.Member, s.Target, s.Symbol))
		}
	}
	sort.Strings(got)
	return got
}

func realOrSelf(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

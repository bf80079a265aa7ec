package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	demoWheel = "../../testdata/demo/wheel"
	demoTorch = "../../testdata/demo/torch"
	broken    = "../../testdata/broken"
)

// TestBrokenInputsDoNotStopTheOthers: every broken file gets an error line
// naming it, the exit code is 2, and the demo's findings are all still there.
func TestBrokenInputsDoNotStopTheOthers(t *testing.T) {
	_, clean, _ := runCLI(t, "conflicts", demoWheel, "--with", demoTorch, "--format", "json", "-q")
	want := decodeReport(t, clean)

	code, out, errs := runCLI(t, "conflicts", demoWheel, broken, broken+"/libfake.so", broken+"/empty.so",
		"--with", demoTorch, "--format", "json", "-q")
	if code != exitError {
		t.Errorf("exit code %d, want %d", code, exitError)
	}
	for _, name := range []string{"bad.whl", "evil.whl!../../evil.so", "huge-dynsym.so", "shoff-past-eof.so",
		"truncated-100.so", "truncated-3000.so", "libfake.so", "empty.so"} {
		if !strings.Contains(errs, "etlink: ") || !strings.Contains(errs, name+": ") {
			t.Errorf("no error line naming %s in:\n%s", name, errs)
		}
	}
	if strings.Contains(errs+out, "goroutine ") || strings.Contains(errs+out, "panic:") {
		t.Errorf("a panic reached the user:\n%s", errs)
	}
	got := decodeReport(t, out)
	if len(got.Findings) != len(want.Findings) || len(want.Findings) == 0 {
		t.Errorf("%d findings with broken inputs beside the demo, %d without", len(got.Findings), len(want.Findings))
	}
	failed := 0
	for _, in := range got.Inputs {
		if in.Error != "" {
			failed++
		}
	}
	if failed < 8 {
		t.Errorf("JSON marks %d failed inputs, want at least 8: %+v", failed, got.Inputs)
	}
}

func TestExitCodesAndFailOn(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"conflicts", demoWheel, "--with", demoTorch, "-q"}, exitFindings},
		// Imported RTLD_LOCAL, each side keeps its own cpuinfo state: a
		// warning; torch opened RTLD_GLOBAL interposes it: an error.
		{[]string{"conflicts", demoWheel, "--with", demoTorch, "-q", "--fail-on", "error"}, exitOK},
		{[]string{"conflicts", demoWheel, "--with", demoTorch, "-q", "--fail-on", "error", "--load-order", "torch:global,wheel"}, exitFindings},
		{[]string{"conflicts", demoWheel, "--with", demoTorch, "-q", "--fail-on", "none"}, exitOK},
		{[]string{"conflicts", demoWheel, "-q"}, exitOK}, // no peer: only ET302, and the demo wheel has no duplicates
		{[]string{"conflicts"}, exitError},
		{[]string{"conflicts", demoWheel, "--format", "xml"}, exitError},
		{[]string{"conflicts", demoWheel, "--load-order", "numpy"}, exitError},
		{[]string{"conflicts", "--bogus"}, exitError},
		{[]string{"frobnicate"}, exitError},
		{[]string{"scan", demoWheel}, exitOK},
		{[]string{"scan", "/nonexistent/lib.so"}, exitError},
		{[]string{"explain", "ET301"}, exitOK},
		{[]string{"explain", "ET999"}, exitError},
		{[]string{"rules"}, exitOK},
		{[]string{"conflicts", "--help"}, exitOK},
	} {
		if code, _, errs := runCLI(t, tc.args...); code != tc.want {
			t.Errorf("etlink %s: exit %d, want %d (stderr: %s)", strings.Join(tc.args, " "), code, tc.want, errs)
		}
	}
}

// TestHelpHasExamples: --help prints usage and examples on stdout only,
// offers only the flags the command honours, and a format the command
// cannot write is a usage error.
func TestHelpHasExamples(t *testing.T) {
	for _, c := range commands {
		code, out, errs := runCLI(t, c.name, "--help")
		if code != exitOK || !strings.Contains(out, "Usage: etlink "+c.name) || errs != "" {
			t.Errorf("%s --help: exit %d, stderr %q, stdout:\n%s", c.name, code, errs, out)
		}
		if c.name != "version" && !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no examples", c.name)
		}
	}
}

func TestFlagsPerCommand(t *testing.T) {
	_, scanHelp, _ := runCLI(t, "scan", "--help")
	_, checkHelp, _ := runCLI(t, "check", "--help")
	for _, flag := range []string{"--fail-on", "--baseline", "--write-baseline", "--srcroot", "--config", "--verbose"} {
		if strings.Contains(scanHelp, flag) {
			t.Errorf("scan --help offers %s, which scan ignores", flag)
		}
		if !strings.Contains(checkHelp, flag) {
			t.Errorf("check --help lacks %s", flag)
		}
	}
	for _, args := range [][]string{{"scan", "--format", "sarif", demoWheel}, {"why", "x", "--format", "github"}, {"scan", "--fail-on", "error", demoWheel}} {
		if code, out, errs := runCLI(t, args...); code != exitError || out != "" || !strings.Contains(errs, "--help") {
			t.Errorf("etlink %s: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, a pointer to --help", strings.Join(args, " "), code, out, errs)
		}
	}
}

// TestMissingInputSaysNoFindings: an input that cannot be read is an
// error, and the report does not say "no findings" of it.
func TestMissingInputSaysNoFindings(t *testing.T) {
	code, out, errs := runCLI(t, "check", "/nonexistent", "-q")
	if code != exitError || strings.Contains(out, "no findings") || !strings.Contains(errs, "/nonexistent") {
		t.Errorf("check /nonexistent: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestBaselineWhereverUnpacked: a baseline written for a directory holds
// for the same package under another parent, and writing it exits 0.
func TestBaselineWhereverUnpacked(t *testing.T) {
	dir := t.TempDir()
	for _, parent := range []string{"a", "b/c"} {
		if err := os.CopyFS(filepath.Join(dir, parent, "wheel"), os.DirFS(demoWheel)); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(dir, "baseline.json")
	code, _, errs := runCLI(t, "conflicts", filepath.Join(dir, "a", "wheel"), "--with", demoTorch, "-q", "--write-baseline", base)
	if code != exitOK {
		t.Fatalf("--write-baseline: exit %d (%s), want 0: the findings are accepted", code, errs)
	}
	code, out, _ := runCLI(t, "conflicts", filepath.Join(dir, "b", "c", "wheel"), "--with", demoTorch, "-q", "--baseline", base, "--format", "json")
	if r := decodeReport(t, out); code != exitOK || len(r.Findings) != 0 {
		t.Errorf("the same package elsewhere: exit %d, %d findings not in the baseline", code, len(r.Findings))
	}
}

func TestScanTableAndJSON(t *testing.T) {
	_, out, _ := runCLI(t, "scan", demoWheel)
	for _, want := range []string{"libexecutorch_threadpool.so.1", "$ORIGIN/../../lib", "4 objects"} {
		if !strings.Contains(out, want) {
			t.Errorf("scan table lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runCLI(t, "scan", "--format", "json", "../../testdata/elf/x86_64/libversioned.so.1")
	for _, want := range []string{`"schema_version": 1`, `"soname": "libversioned.so.1"`, `"machine": "x86_64"`,
		`"name": "foo"`, `"version": "V1"`, `"hidden_version": true`, `"binding": "UNIQUE"`, `"visibility": "PROTECTED"`} {
		if !strings.Contains(out, want) {
			t.Errorf("scan JSON lacks %s", want)
		}
	}
}

// TestConflictsTextGolden pins the text a person reads for the demo
// corpus, by default and with -v (go test ./cmd/etlink -update rewrites
// testdata/demo/conflicts*.txt; review the diff): the warning with its
// symbol and fix first, the notes counted by component; -v lists every
// note with its evidence.
func TestConflictsTextGolden(t *testing.T) {
	for _, tc := range []struct{ file, flag string }{{"conflicts.txt", "-q"}, {"conflicts-verbose.txt", "-v"}} {
		_, out, _ := runCLI(t, "conflicts", demoWheel, "--with", demoTorch, "-q", tc.flag)
		path := filepath.Join("../../testdata/demo", tc.file)
		if *update {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("etlink conflicts %s differs from %s (-update rewrites it):\n%s", tc.flag, path, out)
		}
	}
	_, out, _ := runCLI(t, "conflicts", demoWheel, "--with", demoTorch, "-q", "-v")
	for _, want := range []string{"cpuinfo_is_initialized", "both copies are live", "fix:", "unsigned int flatbuffers::ReadScalar<unsigned int>(void const*)"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("-v text lacks %q", want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the golden text under testdata/demo")

// TestRetentionBadInputs: malformed maps, link lines and response-file loops
// are errors naming the file (exit 2), never panics, and the good inputs
// beside them are still analysed.
func TestRetentionBadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	loopLog := write("loop.log", "g++ -o prog main.o @a.rsp\n")
	write("a.rsp", "-lfoo @b.rsp\n")
	write("b.rsp", "-lbar @a.rsp\n")
	quoteLog := write("quote.log", "g++ -o prog 'main.o -lfoo\n")
	garbage := write("garbage.map", "\x00\x01\x02 not a map at all \xff\xfe\n")
	truncated := write("truncated.map", "Archive member included to satisfy reference by file (symbol)\n\nlibfoo.a(foo.o)\n")
	good := write("good.log", "g++ -o prog main.o -Wl,--as-needed -lm\n")
	for _, tc := range []struct {
		path, want string
	}{
		{loopLog, "a.rsp"},
		{quoteLog, "quote.log"},
		{garbage, "garbage.map"},
		{truncated, "truncated.map"},
	} {
		code, out, errs := runCLI(t, "retention", tc.path, good, "--format", "json", "-q")
		if code != exitError {
			t.Errorf("%s: exit %d, want %d (stderr %q)", filepath.Base(tc.path), code, exitError, errs)
		}
		if !strings.Contains(errs, "etlink: ") || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: no error line naming %s: %q", filepath.Base(tc.path), tc.want, errs)
		}
		if strings.Contains(errs+out, "panic") || strings.Contains(errs+out, "goroutine ") {
			t.Errorf("%s: a panic reached the user: %s", filepath.Base(tc.path), errs)
		}
		if r := decodeReport(t, out); r.SchemaVersion != 1 {
			t.Errorf("%s: no report for the good input beside it", filepath.Base(tc.path))
		}
	}
}

// fakeTorchPrefix makes an interpreter prefix whose site-packages holds a
// torch directory (where a guess from the prefix would look) with the
// files of the demo's torch when withLibs, and an interpreter there (a
// script: etlink must start it) that answers "where is torch" with answer.
func fakeTorchPrefix(t *testing.T, withLibs bool, answer func(guessed string) string) (python, guessed string) {
	t.Helper()
	prefix := t.TempDir()
	guessed = filepath.Join(prefix, "lib", "python3.11", "site-packages", "torch")
	files := map[string]string{filepath.Join(guessed, "__init__.py"): ""}
	if withLibs {
		for _, rel := range []string{"lib/libtorch_cpu.so", "_C.cpython-311-x86_64-linux-gnu.so"} {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "torch", rel))
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(guessed, rel)] = string(data)
		}
	} else {
		files[filepath.Join(guessed, "lib", "README")] = "no libraries here"
	}
	python = filepath.Join(prefix, "bin", "python3")
	files[python] = "#!/bin/sh\necho " + answer(guessed) + "\n"
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return python, guessed
}

// TestWithTorchReadAhead checks that etlink reads torch where Python names
// it, not where the interpreter's prefix suggests: a torch without
// libraries in the prefix's site-packages must not change the findings,
// and Python naming that one must give those of --with DIR.
func TestWithTorchReadAhead(t *testing.T) {
	demoTorch, err := filepath.Abs(filepath.Join("..", "..", "testdata", "demo", "torch"))
	if err != nil {
		t.Fatal(err)
	}
	wheel := filepath.Join("..", "..", "testdata", "demo", "wheel")
	_, want, _ := runCLI(t, "conflicts", wheel, "--with", demoTorch, "--format", "json", "--fail-on", "none")
	wantFindings := len(decodeReport(t, want).Findings)
	if wantFindings == 0 {
		t.Fatal("the demo corpus has no conflicts")
	}
	for _, c := range []struct {
		name     string
		withLibs bool
		answer   func(guessed string) string
	}{
		{"torch elsewhere", false, func(string) string { return demoTorch }},
		{"the prefix's torch", true, func(g string) string { return g }},
	} {
		t.Run(c.name, func(t *testing.T) {
			python, _ := fakeTorchPrefix(t, c.withLibs, c.answer)
			code, out, errs := runCLI(t, "conflicts", wheel, "--with", "torch", "--python", python, "--format", "json", "--fail-on", "none")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if got := len(decodeReport(t, out).Findings); got != wantFindings {
				t.Errorf("%d findings, want %d as with --with %s\n%s", got, wantFindings, demoTorch, errs)
			}
		})
	}
}

// TestWriteBaselineAndEmptyPaths: --write-baseline replaces only a new
// file or an old baseline, never an input or another file; an empty path
// argument is an error, not the current directory.
func TestWriteBaselineAndEmptyPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "wheel"), os.DirFS(demoWheel)); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "wheel", "executorch", "lib", "libexecutorch_threadpool.so.1")
	before, _ := os.ReadFile(lib)
	base := filepath.Join(dir, "base.json")
	for _, tc := range []struct {
		target string
		code   int
	}{{lib, exitError}, {filepath.Join(dir, "notes.txt"), exitError}, {base, exitOK}, {base, exitOK}} {
		if tc.target == filepath.Join(dir, "notes.txt") {
			if err := os.WriteFile(tc.target, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if code, _, errs := runCLI(t, "conflicts", filepath.Join(dir, "wheel"), "--with", demoTorch, "-q", "--write-baseline", tc.target); code != tc.code {
			t.Errorf("--write-baseline %s: exit %d, want %d (%s)", tc.target, code, tc.code, errs)
		}
	}
	if after, _ := os.ReadFile(lib); !bytes.Equal(before, after) {
		t.Error("--write-baseline overwrote an input")
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "mine" {
		t.Error("--write-baseline overwrote a file that is no baseline")
	}
	if code, _, errs := runCLI(t, "scan", ""); code != exitError || !strings.Contains(errs, "empty path") {
		t.Errorf(`scan "": exit %d, stderr %q`, code, errs)
	}
}

package main

import (
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
		{[]string{"conflicts", demoWheel, "--with", demoTorch, "-q", "--fail-on", "error"}, exitFindings},
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

func TestHelpHasExamples(t *testing.T) {
	for _, c := range commands {
		_, out, _ := runCLI(t, c.name, "--help")
		if !strings.Contains(out, "Usage: etlink "+c.name) {
			t.Errorf("%s --help has no usage line:\n%s", c.name, out)
		}
		if c.name != "version" && !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help has no examples", c.name)
		}
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

func TestConflictsTextShowsComponentsAndFix(t *testing.T) {
	_, out, _ := runCLI(t, "conflicts", demoWheel, "--with", demoTorch, "-q")
	for _, want := range []string{"ET301 defined-by-peer", "pthreadpool", "cpuinfo_is_initialized", "error",
		"both copies are live", "fix:", "unsigned int flatbuffers::ReadScalar<unsigned int>(void const*)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

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

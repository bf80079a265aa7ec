package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./report -update rewrites it): %s", path, firstDiff(want, got))
	}
}

// firstDiff shows the first line where got departs from want.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return "same lines, different bytes"
}

// fixtureBase is the workspace the fixture's paths live in. It need not
// exist: paths are mapped lexically.
const fixtureBase = "/ws"

// fixtureRules is a catalogue with one rule whose example holds a code fence.
func fixtureRules() []finding.RuleDoc {
	return []finding.RuleDoc{
		{ID: "ET102", Name: "unextracted-registration-archive", Severity: finding.Error,
			Summary: "an archive member with a registration initializer is not extracted",
			Why:     "The linker extracts an archive member only to resolve an undefined symbol;\na member that only registers itself is dropped.",
			Fix:     "Wrap the archive in --whole-archive, or $<LINK_LIBRARY:WHOLE_ARCHIVE,...>.",
			Before:  "target_link_libraries(_C PRIVATE backend)",
			After:   "target_link_libraries(_C PRIVATE \"$<LINK_LIBRARY:WHOLE_ARCHIVE,backend>\")\n# ``` fences inside an example stay inside"},
		{ID: "ET202", Name: "cmake-embed-python", Severity: finding.Error,
			Summary: "CMake links the Python library into an extension",
			Why:     "An extension that links libpython loads a second interpreter's symbols.",
			Fix:     "Link Python::Module instead of Python::Python.",
			Before:  "target_link_libraries(_C PRIVATE Python::Python)",
			After:   "target_link_libraries(_C PRIVATE Python::Module)"},
		{ID: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
			Summary: "a symbol the wheel exports is also exported by the peer"},
		{ID: "ET403", Name: "soname-mismatch", Severity: finding.Note,
			Summary: "a shipped library's SONAME differs from its file name"},
	}
}

// fixtureReport covers the shapes renderers must place: a CMake line, a
// wheel entry, an archive member (both spellings), a file outside the
// workspace with characters URIs and workflow commands must escape, a
// finding with no file at all, a rule missing from the catalogue, and
// unreadable inputs.
func fixtureReport() *finding.Report {
	fs := []finding.Finding{
		{Rule: "ET202", Name: "cmake-embed-python", Severity: finding.Error,
			Subject: finding.Subject{File: "/ws/build/_C.cpython-312-x86_64-linux-gnu.so", Target: "_C"},
			Message: "target _C links Python::Python",
			Evidence: []finding.Step{
				{Text: "target_link_libraries(_C PRIVATE Python::Python)", File: "/ws/src/CMakeLists.txt", Line: 12},
				{Text: "DT_NEEDED of _C.cpython-312-x86_64-linux-gnu.so has libpython3.12.so.1.0", File: "/ws/build/_C.cpython-312-x86_64-linux-gnu.so"},
			},
			Fix:      "Link Python::Module.",
			Location: &finding.Location{File: "/ws/src/CMakeLists.txt", Line: 12}},
		{Rule: "ET102", Name: "unextracted-registration-archive", Severity: finding.Error,
			Subject:  finding.Subject{File: "/ws/build/libbackend.a", Member: "register.o", Target: "_C", Symbol: "_ZN9executorch7runtime16register_backendERKNS0_7BackendE", Demangled: "executorch::runtime::register_backend(executorch::runtime::Backend const&)", Component: "executorch"},
			Message:  "libbackend.a(register.o) registers a backend but is not extracted into _C",
			Evidence: []finding.Step{{Text: "map /ws/build/_C.map (lld) does not load libbackend.a(register.o)", File: "/ws/build/_C.map", Line: 40}, {Text: "no undefined reference resolves to register.o"}},
			Location: &finding.Location{File: "/ws/build/CMakeFiles/_C.dir/link.txt", Line: 1}},
		{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
			Subject: finding.Subject{File: "/ws/dist/pkg-1.0-cp312-cp312-linux_x86_64.whl!pkg/lib/libthreadpool.so", Symbol: "pthreadpool_create", Component: "pthreadpool"},
			Message: "pthreadpool_create is also exported by libtorch_cpu.so (torch)",
			Evidence: []finding.Step{
				{Text: "wheel: libthreadpool.so exports pthreadpool_create (FUNC GLOBAL)", File: "/ws/dist/pkg-1.0-cp312-cp312-linux_x86_64.whl!pkg/lib/libthreadpool.so", Symbol: "pthreadpool_create"},
				{Text: "torch: libtorch_cpu.so exports pthreadpool_create (FUNC GLOBAL)", File: "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so", Symbol: "pthreadpool_create"},
				{Text: "wheel: libthreadpool.so exports pthreadpool_create (FUNC GLOBAL)", File: "/ws/dist/pkg-1.0-cp312-cp312-linux_x86_64.whl!pkg/lib/libthreadpool.so", Symbol: "pthreadpool_create"},
			},
			Details: map[string]any{"peer": "torch"}},
		{Rule: "ET102", Name: "unextracted-registration-archive", Severity: finding.Warning,
			Subject: finding.Subject{File: "/ws/build/libkernels.a(op,add:1.o)", Target: "_C", Symbol: "register_add"},
			Message: "an operator registration is not extracted"},
		{Rule: "ET403", Name: "soname-mismatch", Severity: finding.Note,
			Subject: finding.Subject{File: "/opt/odd dir/lib100%!(x).so"},
			Message: "SONAME libodd.so.1 differs from file name\nlib100%!(x).so, and a reviewer: needs, commas"},
		{Rule: "ET999", Name: "from-the-future", Severity: finding.Note,
			Subject: finding.Subject{Symbol: "answer"},
			Message: "a rule this catalogue does not know"},
		{Rule: "ET403", Name: "soname-mismatch", Severity: finding.Note,
			Subject: finding.Subject{File: "/ws/dist/pkg-1.0-py3-none-any.whl!pkg/libplain.so"},
			Message: "libplain.so has no SONAME"},
	}
	for i := range fs {
		fs[i].Fingerprint = finding.Fingerprint(fs[i].Rule, fs[i].Subject)
	}
	// One hand-made finding without a fingerprint: renderers compute it.
	fs[len(fs)-1].Fingerprint = ""
	return &finding.Report{
		SchemaVersion: finding.SchemaVersion,
		Tool:          finding.Tool{Name: "etlink", Version: "0.1.0-test"},
		Command:       "check",
		Inputs: []finding.Input{
			{Path: "/ws/dist/pkg-1.0-cp312-cp312-linux_x86_64.whl"},
			{Path: "/ws/dist/broken.whl", Error: "zip: not a valid zip file"},
			{Path: "/ws/dist/pkg-1.0-cp312-cp312-linux_x86_64.whl!pkg/lib/libbad.so", Error: "bad ELF header"},
			{Path: "/elsewhere/lib,odd.so", Error: "permission denied"},
		},
		Findings: fs,
		Summary:  finding.Summarize(fs),
	}
}

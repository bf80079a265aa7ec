package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestPythonExtensions builds testdata/pyext (one pybind11 extension four
// ways, and an embedding program) with CMake and checks ET201 against the
// DT_NEEDED readelf reads from each output: from the files (etlink check)
// and from the link lines, located at the CMakeLists.txt line (etlink
// retention).
func TestPythonExtensions(t *testing.T) {
	testenv.NeedTools(t, "cmake", "ninja", "g++", "readelf")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/include/python3.11/Python.h", "/usr/lib/cmake/pybind11/pybind11Config.cmake")
	src, err := filepath.Abs("../../testdata/pyext")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	query := filepath.Join(dir, ".cmake", "api", "v1", "query")
	if err := os.MkdirAll(query, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"codemodel-v2", "toolchains-v1"} {
		if err := os.WriteFile(filepath.Join(query, q), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) string {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("cmake", "-S", src, "-B", dir, "-G", "Ninja", "-DPython3_EXECUTABLE=/usr/bin/python3")
	run("ninja", "-C", dir)

	// The truth: which extensions readelf says need libpython.
	exts, _ := filepath.Glob(filepath.Join(dir, "*.cpython-*.so"))
	if len(exts) != 4 {
		t.Fatalf("built %d extensions, want 4: %v", len(exts), exts)
	}
	var want []string
	for _, e := range exts {
		if strings.Contains(run("readelf", "-dW", e), "[libpython3") {
			want = append(want, strings.SplitN(filepath.Base(e), ".", 2)[0])
		}
	}
	sort.Strings(want)
	if strings.Join(want, " ") != "ext_embed ext_pb_shared" {
		t.Fatalf("readelf: extensions needing libpython %v; the fixture expects Python3::Python and pybind11_add_module(SHARED) to", want)
	}

	_, out, _ := runCLI(t, "check", dir, "--format", "json", "-q")
	var fromFiles []string
	for _, f := range decodeReport(t, out).Findings {
		if f.Rule == "ET201" {
			fromFiles = append(fromFiles, strings.SplitN(filepath.Base(f.Subject.File), ".", 2)[0])
		}
	}
	sort.Strings(fromFiles)
	if strings.Join(fromFiles, " ") != strings.Join(want, " ") {
		t.Errorf("etlink check: ET201 on %v, readelf says %v", fromFiles, want)
	}

	_, out, _ = runCLI(t, "retention", dir, "--format", "json", "-q")
	var fromLinks []string
	for _, f := range decodeReport(t, out).Findings {
		if f.Rule != "ET201" {
			continue
		}
		fromLinks = append(fromLinks, f.Subject.Target)
		if f.Location == nil || f.Location.File != filepath.Join(src, "CMakeLists.txt") || f.Location.Line == 0 {
			t.Errorf("%s: ET201 located at %+v, want a line of %s", f.Subject.Target, f.Location, filepath.Join(src, "CMakeLists.txt"))
		}
	}
	sort.Strings(fromLinks)
	if strings.Join(fromLinks, " ") != strings.Join(want, " ") {
		t.Errorf("etlink retention: ET201 on links of %v, readelf says %v (the embedding program must not count)", fromLinks, want)
	}
}

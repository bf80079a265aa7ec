package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeWheel assembles a wheel from files on disk: entry name -> (source, mode).
func writeWheel(t *testing.T, path string, entries map[string]wheelFile) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		data, err := os.ReadFile(e.src)
		if err != nil {
			t.Fatal(err)
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type wheelFile struct {
	src  string
	mode os.FileMode
}

func rulesFound(t *testing.T, out string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, f := range decodeReport(t, out).Findings {
		got[f.Rule] = append(got[f.Rule], f.Subject.File+" "+f.Subject.Symbol+" "+f.Subject.Target)
	}
	return got
}

// TestCheckWheels: a wheel assembled with bad entries trips ET203, ET401,
// ET402, ET403, ET404 and ET405; its good twin (the demo wheel, correctly tagged,
// sane modes) trips nothing.
func TestCheckWheels(t *testing.T) {
	dir := t.TempDir()
	demo := "../../testdata/demo/wheel/executorch/"
	elf := "../../testdata/elf/x86_64/"
	good := map[string]wheelFile{
		"executorch/lib/libexecutorch.so.1":                                             {demo + "lib/libexecutorch.so.1", 0o755},
		"executorch/lib/libexecutorch_threadpool.so.1":                                  {demo + "lib/libexecutorch_threadpool.so.1", 0o755},
		"executorch/lib/libexecutorch_backend_xnnpack.so.1":                             {demo + "lib/libexecutorch_backend_xnnpack.so.1", 0o755},
		"executorch/extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so": {demo + "extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so", 0o755},
		"executorch-1.0.dist-info/RECORD":                                               {"../../testdata/demo/EXPECTED-CONFLICTS.txt", 0o644},
	}
	goodWheel := filepath.Join(dir, "executorch-1.0-cp311-cp311-manylinux_2_28_x86_64.whl")
	writeWheel(t, goodWheel, good)
	code, out, errs := runCLI(t, "check", goodWheel, "--format", "json", "-q")
	if got := rulesFound(t, out); len(got) != 0 || code != exitOK {
		t.Errorf("good wheel: exit %d, findings %v (stderr %s)", code, got, errs)
	}

	bad := map[string]wheelFile{
		// The extension without the libraries it needs: ET402 (x3); the
		// three symbols it takes from them cannot be checked: one ET401
		// note says so (the missing libraries are the error).
		"executorch/extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so": {demo + "extension/pybindings/_portable_lib.cpython-311-x86_64-linux-gnu.so", 0o755},
		// RPATH $ORIGIN:/opt/old/lib (ET203), no SONAME (an ET403 note).
		"executorch/lib/librpath.so":      {elf + "librpath.so", 0o777},                          // ET405 too
		"executorch-1.0.dist-info/RECORD": {"../../testdata/demo/EXPECTED-CONFLICTS.txt", 0o666}, // ET405
	}
	badWheel := filepath.Join(dir, "executorch-1.0-cp311-cp311-manylinux_2_28_aarch64.whl") // x86_64 code: ET404
	writeWheel(t, badWheel, bad)
	code, out, errs = runCLI(t, "check", badWheel, "--format", "json", "-q")
	got := rulesFound(t, out)
	if code != exitFindings {
		t.Errorf("bad wheel: exit %d, want %d (stderr %s)", code, exitFindings, errs)
	}
	for rule, n := range map[string]int{"ET203": 1, "ET401": 1, "ET402": 3, "ET403": 1, "ET404": 2, "ET405": 2} {
		if len(got[rule]) != n {
			t.Errorf("bad wheel: %s found %d times, want %d: %v", rule, len(got[rule]), n, got[rule])
		}
	}
	for rule := range got {
		if !strings.Contains("ET203 ET401 ET402 ET403 ET404 ET405", rule) {
			t.Errorf("bad wheel: unexpected %s: %v", rule, got[rule])
		}
	}
}

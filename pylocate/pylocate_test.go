package pylocate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakePython writes an executable that answers like an interpreter would.
func fakePython(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindReportsEveryAttempt(t *testing.T) {
	broken := fakePython(t, `echo "ModuleNotFoundError: No module named 'torch'" >&2; exit 1`)
	good := fakePython(t, `echo "noise printed on import"; echo /opt/site/torch; echo 2.1.0`)
	res, err := Find("torch", "/nonexistent/python3", broken, good)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dir != "/opt/site/torch" || res.Version != "2.1.0" || res.Python != good {
		t.Errorf("Find = %+v", res)
	}
	if len(res.Skipped) != 2 || res.Skipped[0].Err != "not found" || !strings.Contains(res.Skipped[1].Err, "No module named") {
		t.Errorf("skipped attempts %+v", res.Skipped)
	}

	_, err = Find("torch", "/nonexistent/python3", broken)
	var nf *NotFound
	if !errors.As(err, &nf) || len(nf.Attempts) != 2 || !strings.Contains(err.Error(), broken) || !strings.Contains(err.Error(), "--python") {
		t.Errorf("error %v does not list what was tried", err)
	}
}

func TestFindWithRealPython(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	res, err := Find("json", "/usr/bin/python3")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "__init__.py")); err != nil {
		t.Errorf("json located at %s, which holds no __init__.py", res.Dir)
	}
}

func TestPackageFiles(t *testing.T) {
	files, err := PackageFiles("../testdata/demo/torch")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"../testdata/demo/torch/lib", "../testdata/demo/torch/_C.cpython-311-x86_64-linux-gnu.so"}
	if strings.Join(files, " ") != strings.Join(want, " ") {
		t.Errorf("PackageFiles = %v, want %v", files, want)
	}
	if _, err := PackageFiles(t.TempDir()); err == nil {
		t.Error("an empty directory gave no error")
	}
}

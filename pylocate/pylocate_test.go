package pylocate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
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
	// It answers the version question (importlib.metadata) too: there is
	// no metadata beside /opt/site/torch.
	good := fakePython(t, `case "$2" in *metadata*) echo 2.1.0;; *) echo "noise printed on import"; echo /opt/site/torch;; esac`)
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

// TestVersionFromMetadata reads versions from the metadata beside a package,
// as importlib.metadata finds it, and declines when Python must decide.
func TestVersionFromMetadata(t *testing.T) {
	site := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(site, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("torch/__init__.py", "")
	write("torch-2.5.1+cpu.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cpu\n\nVersion: not a header\n")
	write("my_pkg/__init__.py", "")
	write("My.Pkg-0.3.egg-info/PKG-INFO", "Name: My.Pkg\r\nVersion: 0.3\r\n")
	write("eggfile/__init__.py", "")
	write("eggfile-1.0.egg-info", "Version: 1.0\n")
	write("twice/__init__.py", "")
	write("twice-1.0.dist-info/METADATA", "Version: 1.0\n")
	write("twice-2.0.dist-info/METADATA", "Version: 2.0\n")
	write("bare/__init__.py", "")
	for _, c := range []struct {
		pkg, want string
		ok        bool
	}{
		{"torch", "2.5.1+cpu", true},
		{"my_pkg", "0.3", true},
		{"eggfile", "1.0", true},
		{"twice", "", false}, // which one Python reads depends on sys.path
		{"bare", "", false},
	} {
		got, ok := Version(filepath.Join(site, c.pkg), c.pkg)
		if got != c.want || ok != c.ok {
			t.Errorf("Version(%s) = %q, %v; want %q, %v", c.pkg, got, ok, c.want, c.ok)
		}
	}
}

// TestVersionAgreesWithPython compares Version with importlib.metadata on
// Debian's torch, whose metadata is an .egg-info directory.
func TestVersionAgreesWithPython(t *testing.T) {
	const dir = "/usr/lib/python3/dist-packages/torch"
	testenv.NeedFiles(t, dir, "/usr/bin/python3")
	want, err := ask("/usr/bin/python3", versionScript, "torch")
	if err != nil || want == "" {
		t.Fatalf("importlib.metadata: %q, %v", want, err)
	}
	if got, ok := Version(dir, "torch"); got != want || !ok {
		t.Errorf("Version = %q, %v; importlib.metadata says %q", got, ok, want)
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
	// An extension-like name in __pycache__ is never imported.
	dir := t.TempDir()
	for _, rel := range []string{"sub/_ext.abi3.so", "__pycache__/_old.cpython-311-x86_64-linux-gnu.so", "sub/__pycache__/x.abi3.so"} {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err = PackageFiles(dir)
	if err != nil || len(files) != 1 || files[0] != filepath.Join(dir, "sub/_ext.abi3.so") {
		t.Errorf("PackageFiles = %v, %v; want only sub/_ext.abi3.so", files, err)
	}
}

func TestExtensionTag(t *testing.T) {
	for name, want := range map[string]string{
		"_pygit2.cpython-310-x86_64-linux-gnu.so":   "310",
		"_C.cpython-311-x86_64-linux-gnu.so":        "311",
		"_d.cpython-311d-x86_64-linux-gnu.so":       "311d",
		"_libgit2.abi3.so":                          "",
		"libtorch_cpu.so":                           "",
		"notes.cpython-311-x86_64-linux-gnu.so.txt": "",
	} {
		if got := ExtensionTag(name); got != want {
			t.Errorf("ExtensionTag(%q) = %q, want %q", name, got, want)
		}
	}
}

package pylocate

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// systemPython is Debian's interpreter, which the layouts are built from.
func systemPython(t *testing.T) string {
	t.Helper()
	testenv.NeedFiles(t, "/usr/bin/python3")
	return "/usr/bin/python3"
}

// pythonSays is the oracle: the interpreter itself, run in the test's
// environment and working directory, importing nothing but the import
// system's search (the same question fromFiles answers; importing the
// package would run its code).
func pythonSays(t *testing.T, python, pkg string) string {
	t.Helper()
	out, err := exec.Command(python, "-c", `import importlib.util, os, sys
spec = importlib.util.find_spec(sys.argv[1])
print("" if spec is None or spec.origin is None else os.path.dirname(os.path.abspath(spec.origin)))`, pkg).Output()
	if err != nil {
		t.Fatalf("%s: %v", python, err)
	}
	return strings.TrimSpace(string(out))
}

// agrees checks that the answer read from files is the interpreter's.
func agrees(t *testing.T, python, pkg string) {
	t.Helper()
	dir, _, _, err := fromFiles(python, pkg)
	if err != nil {
		t.Fatalf("%s, %s: not read from files: %v", python, pkg, err)
	}
	if want := pythonSays(t, python, pkg); dir != want {
		t.Errorf("%s, %s: read %q from files, the interpreter finds %q", python, pkg, dir, want)
	}
}

// declines checks that the files cannot answer, and why.
func declines(t *testing.T, python, pkg, why string) {
	t.Helper()
	_, _, _, err := fromFiles(python, pkg)
	var u *unreadable
	if !errors.As(err, &u) || !strings.Contains(u.reason, why) {
		t.Errorf("%s, %s: want a reason to run the interpreter mentioning %q, got %v", python, pkg, why, err)
	}
}

// probe writes a package called name into dir.
func probe(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// venv makes a virtual environment with the system interpreter.
func venv(t *testing.T, args ...string) (python, site string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(systemPython(t), append([]string{"-m", "venv"}, append(args, dir)...)...).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv (python3-venv): %v\n%s", err, out)
	}
	sites, _ := filepath.Glob(filepath.Join(dir, "lib", "python3.*", "site-packages"))
	if len(sites) != 1 {
		t.Fatalf("venv %s: site-packages %v", dir, sites)
	}
	return filepath.Join(dir, "bin", "python3"), sites[0]
}

// quietEnv leaves out what the machine running the tests adds.
func quietEnv(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, v := range []string{"PYTHONPATH", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "PYTHONSAFEPATH", "PYTHONHOME"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	t.Chdir(t.TempDir())
}

// TestLayoutsReadFromFiles compares the answer read from files with the
// interpreter's on each layout a user has: the system interpreter, venvs
// with and without the system's site-packages, the user's site, PYTHONPATH,
// the working directory, .pth files with paths and import lines, and an
// editable install.
func TestLayoutsReadFromFiles(t *testing.T) {
	py := systemPython(t)
	t.Run("system", func(t *testing.T) {
		quietEnv(t)
		for _, pkg := range []string{"torch", "json", "email", "etlinkprobe", "numpy"} {
			agrees(t, py, pkg)
		}
	})
	t.Run("working directory", func(t *testing.T) {
		quietEnv(t)
		wd, _ := os.Getwd()
		probe(t, wd, "torch") // shadows the system's torch, as in Python
		agrees(t, py, "torch")
		// sys.path[0] comes after site has run: a sitecustomize here is
		// not imported.
		writeFile(t, filepath.Join(wd, "sitecustomize.py"), "import sys\nsys.path.insert(0, '/nonexistent')\n")
		agrees(t, py, "torch")
		t.Setenv("PYTHONSAFEPATH", "1")
		agrees(t, py, "torch")
	})
	t.Run("venv", func(t *testing.T) {
		quietEnv(t)
		vpy, site := venv(t, "--without-pip")
		probe(t, site, "etlinkprobe")
		for _, pkg := range []string{"etlinkprobe", "torch", "json"} {
			agrees(t, vpy, pkg)
		}
		// The user's site is not read in a venv without the system's.
		probe(t, filepath.Join(os.Getenv("HOME"), ".local/lib", filepath.Base(filepath.Dir(site)), "site-packages"), "userprobe")
		agrees(t, vpy, "userprobe")
	})
	t.Run("venv with system site-packages", func(t *testing.T) {
		quietEnv(t)
		vpy, site := venv(t, "--without-pip", "--system-site-packages")
		probe(t, site, "etlinkprobe")
		probe(t, filepath.Join(os.Getenv("HOME"), ".local/lib", filepath.Base(filepath.Dir(site)), "site-packages"), "userprobe")
		for _, pkg := range []string{"etlinkprobe", "torch", "userprobe", "json"} {
			agrees(t, vpy, pkg)
		}
	})
	t.Run("user site", func(t *testing.T) {
		quietEnv(t)
		user := filepath.Join(os.Getenv("HOME"), ".local/lib", filepath.Base(stdlibOf(t, py)), "site-packages")
		probe(t, user, "torch") // the user's site comes before the system's
		agrees(t, py, "torch")
		t.Setenv("PYTHONNOUSERSITE", "1")
		agrees(t, py, "torch")
		os.Unsetenv("PYTHONNOUSERSITE")
		base := t.TempDir()
		t.Setenv("PYTHONUSERBASE", base)
		probe(t, filepath.Join(base, "lib", filepath.Base(stdlibOf(t, py)), "site-packages"), "etlinkprobe")
		agrees(t, py, "etlinkprobe")
		agrees(t, py, "torch")
	})
	t.Run("PYTHONPATH", func(t *testing.T) {
		quietEnv(t)
		a, b := t.TempDir(), t.TempDir()
		probe(t, b, "torch")
		probe(t, a, "etlinkprobe")
		t.Setenv("PYTHONPATH", a+":"+b+"::/nonexistent")
		agrees(t, py, "torch")
		agrees(t, py, "etlinkprobe")
	})
	t.Run("pth", func(t *testing.T) {
		quietEnv(t)
		vpy, site := venv(t, "--without-pip", "--system-site-packages")
		extra := t.TempDir()
		probe(t, extra, "etlinkprobe")
		probe(t, extra, "torch")
		// A path line, and import lines that do not touch the search
		// (as setuptools' distutils-precedence.pth and namespace .pth
		// files are), in a file read before the path's.
		writeFile(t, filepath.Join(site, "a-inert.pth"), "# comment\nimport os; os.environ.get('X')\nimport etlinkhelper; etlinkhelper.setup()\n")
		writeFile(t, filepath.Join(site, "etlinkhelper.py"), "import sys\ndef setup():\n    sys.meta_path.append(object())\n")
		writeFile(t, filepath.Join(site, "b-paths.pth"), extra+"\n/nonexistent\n")
		agrees(t, vpy, "etlinkprobe")
		agrees(t, vpy, "torch")
		// An import line that moves the search: only Python can say.
		writeFile(t, filepath.Join(site, "c-moves.pth"), "import sys; sys.path.insert(0, '"+t.TempDir()+"')\n")
		declines(t, vpy, "torch", "c-moves.pth line 1 changes the import path")
		os.Remove(filepath.Join(site, "c-moves.pth"))
		writeFile(t, filepath.Join(site, "etlinkhelper.py"), "import sys\ndef setup():\n    sys.modules.setdefault('torch', None)\n")
		declines(t, vpy, "torch", "etlinkhelper.py (")
		os.Remove(filepath.Join(site, "a-inert.pth"))
		agrees(t, vpy, "torch")
		// usercustomize (and sitecustomize, which Debian's standard
		// library holds first on the path), imported after the site
		// directories, by the same rule.
		writeFile(t, filepath.Join(site, "usercustomize.py"), "import sys\nsys.path[:0] = ['"+t.TempDir()+"']\n")
		declines(t, vpy, "torch", "usercustomize.py (site imports it at start-up) changes the import path")
	})
	t.Run("editable install", func(t *testing.T) {
		quietEnv(t)
		vpy, site := venv(t, "--system-site-packages")
		proj := t.TempDir()
		probe(t, proj, "etlinkedit")
		writeFile(t, filepath.Join(proj, "pyproject.toml"), "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = \"setuptools.build_meta\"\n[project]\nname = \"etlinkedit\"\nversion = \"0.1\"\n")
		pip := exec.Command(filepath.Join(filepath.Dir(vpy), "pip"), "install", "-q", "--no-index", "--no-build-isolation", "-e", proj)
		if out, err := pip.CombinedOutput(); err != nil {
			t.Fatalf("pip install -e (offline, the system's setuptools): %v\n%s", err, out)
		}
		finders, _ := filepath.Glob(filepath.Join(site, "__editable__*"))
		if len(finders) == 0 {
			t.Fatalf("pip -e wrote no __editable__ files in %s", site)
		}
		agrees(t, vpy, "torch") // another project's finder does not decide torch
		if _, _, _, err := fromFiles(vpy, "etlinkedit"); err == nil {
			agrees(t, vpy, "etlinkedit") // setuptools chose a path .pth
		} else {
			declines(t, vpy, "etlinkedit", "editable install's finder for etlinkedit")
		}
	})
}

// stdlibOf is the interpreter's python3.X directory.
func stdlibOf(t *testing.T, python string) string {
	t.Helper()
	l, err := newReading().readLayout(python)
	if err != nil {
		t.Fatal(err)
	}
	return l.stdlib()
}

// TestPyenvShim reads a pyenv shim's choice as the real pyenv makes it:
// the version in .python-version, PYENV_VERSION, and "system".
func TestPyenvShim(t *testing.T) {
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".pyenv")
	}
	shim := filepath.Join(root, "shims", "python3")
	if _, err := os.Stat(shim); err != nil {
		t.Skip("pyenv is not installed (it is not a Debian package; the test runs where it is)")
	}
	versions, _ := filepath.Glob(filepath.Join(root, "versions", "3.*"))
	if len(versions) == 0 {
		t.Skip("pyenv has no Python 3 version")
	}
	t.Setenv("PYENV_VERSION", "")
	os.Unsetenv("PYENV_VERSION")
	quietEnv(t)
	wd, _ := os.Getwd()
	for _, v := range []string{filepath.Base(versions[len(versions)-1]), "system"} {
		writeFile(t, filepath.Join(wd, ".python-version"), v+"\n")
		agrees(t, shim, "json")
		agrees(t, shim, "torch")
	}
	t.Setenv("PYENV_VERSION", filepath.Base(versions[0]))
	agrees(t, shim, "json")
	t.Setenv("PYENV_VERSION", "3") // a prefix: pyenv resolves it, etlink runs the shim
	declines(t, shim, "json", "may resolve it as a prefix")
}

// TestDistPackagesAgree: every top-level name in Debian's dist-packages
// (and a few of the standard library's), located from files as the system
// interpreter's import system locates it, or declined with a reason; and
// most answered from files (a model that declines everything would pass
// the first test and start Python every run).
func TestDistPackagesAgree(t *testing.T) {
	py := systemPython(t)
	quietEnv(t)
	ents, err := os.ReadDir("/usr/lib/python3/dist-packages")
	if err != nil {
		testenv.Missing(t, "Debian's dist-packages: %v", err)
	}
	names := []string{"json", "email", "sqlite3", "etlinknothere"}
	for _, e := range ents {
		n := strings.TrimSuffix(e.Name(), ".py")
		if i := strings.IndexAny(n, ".-"); i >= 0 {
			n = n[:i]
		}
		if n != "" && !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	out, err := exec.Command(py, append([]string{"-c", `import importlib.util, os, sys
for n in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(n)
    except Exception:
        spec = None
    print("" if spec is None or spec.origin is None else os.path.dirname(os.path.abspath(spec.origin)))`}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	read := 0
	for i, n := range names {
		dir, _, _, err := fromFiles(py, n)
		var u *unreadable
		switch {
		case errors.As(err, &u):
			t.Logf("%s: declined: %s", n, u.reason)
		case err != nil:
			t.Errorf("%s: %v", n, err)
		case dir != want[i]:
			t.Errorf("%s: read %q from files, the interpreter finds %q", n, dir, want[i])
		default:
			read++
		}
	}
	if read < len(names)*8/10 {
		t.Errorf("%d of %d names answered from files, want most", read, len(names))
	}
	t.Logf("%d of %d names answered from files, each as the interpreter answers", read, len(names))
}

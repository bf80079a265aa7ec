package pylocate

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// fromFiles is a fresh reading's answer (nothing remembered).
func fromFiles(path, pkg string) (dir, exe, version string, err error) {
	return newReading().fromFiles(path, pkg)
}

// siteUpstream is site.py's getsitepackages in CPython's form, as
// siteFlavour reads it.
const siteUpstream = `import os, sys

def getsitepackages(prefixes=None):
    sitepackages = []
    for prefix in prefixes:
        sitepackages.append(os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages"))
    return sitepackages

def main():
    pass
`

// fakePrefix lays out an interpreter's prefix under root as its start-up
// reads it (an ELF program, the standard library's landmark and site.py)
// and returns its program and its site-packages; no Python runs.
func fakePrefix(t *testing.T, root string) (python, site string) {
	t.Helper()
	python = filepath.Join(root, "bin", "python3.11")
	writeFile(t, python, "\x7fELF not a program")
	if err := os.Chmod(python, 0o755); err != nil { // found on PATH as a program
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "lib/python3.11/os.py"), "")
	writeFile(t, filepath.Join(root, "lib/python3.11/site.py"), siteUpstream)
	site = filepath.Join(root, "lib/python3.11/site-packages")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	return python, site
}

// fakeVenv is a virtual environment of base's program, with or without
// the system's site-packages.
func fakeVenv(t *testing.T, base string, system bool) (python, cfg string) {
	t.Helper()
	dir := t.TempDir()
	python, cfg = filepath.Join(dir, "bin", "python3"), filepath.Join(dir, "pyvenv.cfg")
	writeFile(t, cfg, venvCfg(base, system))
	for _, d := range []string{"bin", "lib/python3.11/site-packages"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(base, python); err != nil {
		t.Fatal(err)
	}
	return python, cfg
}

func venvCfg(base string, system bool) string {
	flag := "false"
	if system {
		flag = "true"
	}
	return "home = " + filepath.Dir(base) + "\ninclude-system-site-packages = " + flag + "\nversion = 3.11.2\n"
}

// retarget points the link at p to target as `ln -sf` does: a new link
// renamed over the old.
func retarget(t *testing.T, p, target string) {
	t.Helper()
	tmp := p + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// TestReadingRemembered: for each kind of input the reading depends on, an
// answer read from files is remembered and given again while nothing
// changed, and once that input changes it is read again, equal to a fresh
// reading and different from the answer before.
func TestReadingRemembered(t *testing.T) {
	cacheIn(t)
	quietEnv(t)
	withTorch := func() string { d := t.TempDir(); probe(t, d, "torch"); return d }
	type kind struct {
		name   string
		python string
		home   string // the kind's own HOME, when its change is in it
		change func(t *testing.T)
	}
	var kinds []kind
	{
		py, site := fakePrefix(t, t.TempDir())
		extra := withTorch()
		kinds = append(kinds, kind{"a .pth path line added", py, "", func(t *testing.T) {
			writeFile(t, filepath.Join(site, "extra.pth"), extra+"\n")
		}})
	}
	{
		py, site := fakePrefix(t, t.TempDir())
		writeFile(t, filepath.Join(site, "extra.pth"), withTorch()+"\n")
		kinds = append(kinds, kind{"a .pth removed", py, "", func(t *testing.T) {
			os.Remove(filepath.Join(site, "extra.pth"))
		}})
	}
	{
		py, _ := fakePrefix(t, t.TempDir())
		extra := withTorch()
		kinds = append(kinds, kind{"PYTHONPATH", py, "", func(t *testing.T) { t.Setenv("PYTHONPATH", extra) }})
	}
	{
		py, _ := fakePrefix(t, t.TempDir())
		other := withTorch()
		kinds = append(kinds, kind{"the working directory", py, "", func(t *testing.T) { t.Chdir(other) }})
	}
	{
		base, site := fakePrefix(t, t.TempDir())
		probe(t, site, "torch")
		py, cfg := fakeVenv(t, base, false)
		kinds = append(kinds, kind{"include-system-site-packages", py, "", func(t *testing.T) {
			writeFile(t, cfg, venvCfg(base, true))
		}})
	}
	{
		// A directory without __init__ is a namespace portion: "not
		// found"; only its listing shows an __init__ added.
		py, site := fakePrefix(t, t.TempDir())
		if err := os.Mkdir(filepath.Join(site, "torch"), 0o755); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, kind{"a namespace directory made a package", py, "", func(t *testing.T) {
			writeFile(t, filepath.Join(site, "torch", "__init__.py"), "")
		}})
	}
	{
		py, site := fakePrefix(t, t.TempDir())
		probe(t, site, "torch")
		kinds = append(kinds, kind{"the package removed", py, "", func(t *testing.T) {
			os.RemoveAll(filepath.Join(site, "torch"))
		}})
	}
	{
		py, site := fakePrefix(t, t.TempDir())
		probe(t, site, "torch")
		home := t.TempDir()
		kinds = append(kinds, kind{"installed into the user site", py, home, func(t *testing.T) {
			probe(t, filepath.Join(home, ".local/lib/python3.11/site-packages"), "torch")
		}})
	}
	{
		py, _ := fakePrefix(t, t.TempDir())
		kinds = append(kinds, kind{"HOME", py, "", func(t *testing.T) {
			other := t.TempDir()
			probe(t, filepath.Join(other, ".local/lib/python3.11/site-packages"), "torch")
			t.Setenv("HOME", other)
		}})
	}
	{
		// The second program is a hard link of the first: the same file
		// to stat, another prefix; only the link itself tells them apart.
		first, site := fakePrefix(t, t.TempDir())
		probe(t, site, "torch")
		other := t.TempDir()
		second, _ := fakePrefix(t, other)
		os.Remove(second)
		if err := os.Link(first, second); err != nil {
			t.Fatal(err)
		}
		py := filepath.Join(t.TempDir(), "python3")
		if err := os.Symlink(first, py); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, kind{"a symlinked interpreter retargeted", py, "", func(t *testing.T) { retarget(t, py, second) }})
	}
	findPy, findSite := fakePrefix(t, t.TempDir())
	probe(t, findSite, "torch")
	time.Sleep(2100 * time.Millisecond) // past keepfile.Racy: the layouts can be witnesses

	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if k.home != "" {
				t.Setenv("HOME", k.home)
			}
			before := readsAsFresh(t, k.python, false)
			if again := readsAsFresh(t, k.python, true); again != before {
				t.Fatalf("remembered %+v, read %+v", again, before)
			}
			k.change(t)
			if after := readsAsFresh(t, k.python, false); after == before {
				t.Errorf("the change left the answer %+v: the test tests nothing", after)
			}
		})
	}
	t.Run("by Find", func(t *testing.T) { rememberedByFind(t, findPy, findSite) })
}

// readsAsFresh is readRemembered's answer, checked to be remembered or
// not as want says, and equal to a fresh reading's.
func readsAsFresh(t *testing.T, python string, remembered bool) readAnswer {
	t.Helper()
	got, rem, err := readRemembered(python, python, "torch")
	dir, exe, version, ferr := fromFiles(python, "torch")
	if err != nil || ferr != nil {
		t.Fatalf("remembered reading: %v; fresh reading: %v", err, ferr)
	}
	if want := (readAnswer{Dir: dir, Exe: exe, Version: version}); got != want {
		t.Fatalf("readRemembered = %+v, a fresh reading %+v", got, want)
	}
	if rem != remembered {
		t.Fatalf("readRemembered(%s) remembered = %v, want %v", python, rem, remembered)
	}
	return got
}

// rememberedByFind: Find gives a remembered reading as read from files,
// writing nothing to the cache; code run at start-up that appears since
// (a sitecustomize moving the path) makes it start Python instead; a
// damaged record is no answer, and with no cache directory nothing is
// remembered. py is site's interpreter, with torch there.
func rememberedByFind(t *testing.T, py, site string) {
	cacheIn(t)
	first, err := Find("torch", py)
	if err != nil || !first.Read || first.Remembered || first.Dir != filepath.Join(site, "torch") {
		t.Fatalf("first Find = %+v, %v", first, err)
	}
	written := cacheFiles(t)
	if len(written) != 1 || written[0].name == "" {
		t.Fatalf("cache holds %v, want the one answer read", written)
	}
	second, err := Find("torch", py)
	if err != nil || !second.Read || !second.Remembered || second.Dir != first.Dir || second.Executable != first.Executable {
		t.Errorf("second Find = %+v, %v; want the first's answer, remembered", second, err)
	}
	if now := cacheFiles(t); !slices.Equal(now, written) {
		t.Errorf("a remembered answer rewrote the cache: %v, then %v", written, now)
	}

	if err := os.WriteFile(filepath.Join(CacheDir, written[0].name), []byte("{\"key\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, rem, err := readRemembered(py, py, "torch"); rem || err != nil {
		t.Errorf("over a damaged record: remembered %v, %v", rem, err)
	}

	writeFile(t, filepath.Join(site, "sitecustomize.py"), "import sys\nsys.path.insert(0, '/elsewhere')\n")
	var why *unreadable
	if _, rem, err := readRemembered(py, py, "torch"); rem || !errors.As(err, &why) {
		t.Errorf("with a sitecustomize that moves the path: remembered %v, %v; want a reason to start Python", rem, err)
	}

	os.Remove(filepath.Join(site, "sitecustomize.py"))
	CacheDir = ""
	for range 2 {
		if _, rem, err := readRemembered(py, py, "torch"); rem || err != nil {
			t.Errorf("with no cache: remembered %v, %v", rem, err)
		}
	}
}

type cacheFile struct {
	name        string
	size, mtime int64
}

// cacheFiles are the cache directory's files, each with its size and
// modification time.
func cacheFiles(t *testing.T) []cacheFile {
	t.Helper()
	ents, err := os.ReadDir(CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []cacheFile
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cacheFile{e.Name(), fi.Size(), fi.ModTime().UnixNano()})
	}
	return out
}

// TestResolveWitnessesLinks: the reading resolves a path as
// filepath.EvalSymlinks does (links relative and absolute, chained, a
// directory's, ".." after one) and witnesses each link it met by itself.
func TestResolveWitnessesLinks(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "real/bin/python3.11"), "")
	link := func(target, p string) {
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "v/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("python", "v/bin/python3")
	link(filepath.Join(root, "alias/python3.11"), "v/bin/python")
	link("real/bin", "alias")
	link("../real/bin/python3.11", "v/up")
	link("bin/../../real", "v/dotdot")
	for _, c := range []struct {
		path  string
		links []string
	}{
		{"v/bin/python3", []string{"alias", "v/bin/python", "v/bin/python3"}},
		{"v/up", []string{"v/up"}},
		{"v/dotdot/bin/python3.11", []string{"v/dotdot"}},
		{"real/bin/python3.11", nil},
		{"v/missing", nil},
	} {
		p := filepath.Join(root, c.path)
		want, err := filepath.EvalSymlinks(p)
		if err != nil {
			want = p
		}
		r := newReading()
		if got := r.resolve(p); got != want {
			t.Errorf("resolve(%s) = %s, EvalSymlinks %s", c.path, got, want)
		}
		_, links := r.witnesses()
		for i, l := range links {
			links[i], _ = filepath.Rel(root, l)
		}
		if slices.Sort(links); !slices.Equal(links, c.links) {
			t.Errorf("resolve(%s) witnessed links %v, want %v", c.path, links, c.links)
		}
	}
}

// TestReadingSeesEveryAccess: the from-files path (layout.go, syspath.go,
// spec.go, pyenv.go) reaches the file system and the environment through
// the reading only, so that what an answer depends on is witnessed, and
// every environment variable it consults is in the answer's key.
func TestReadingSeesEveryAccess(t *testing.T) {
	direct := map[string]bool{
		"os.Stat": true, "os.Lstat": true, "os.Open": true, "os.ReadDir": true, "os.ReadFile": true, "os.Readlink": true,
		"os.Getenv": true, "os.LookupEnv": true, "os.Environ": true, "datafile.ReadFile": true, "datafile.Open": true,
		"filepath.Glob": true, "filepath.EvalSymlinks": true, "filepath.WalkDir": true, "exec.LookPath": true, "elfobj.IsELFFile": true,
	}
	fset := token.NewFileSet()
	for _, file := range []string{"layout.go", "syspath.go", "spec.go", "pyenv.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && direct[pkg.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: %s.%s: not through the reading, so not witnessed", fset.Position(call.Pos()), pkg.Name, sel.Sel.Name)
			}
			if sel.Sel.Name == "getenv" && len(call.Args) == 1 {
				name := "a name not written out"
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					name, _ = strconv.Unquote(lit.Value)
				}
				if !keyed(name) {
					t.Errorf("%s: getenv of %s, which the key does not hold", fset.Position(call.Pos()), name)
				}
			}
			return true
		})
	}
}

package pylocate

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/etlink/etlink/internal/memo"
)

// walkByWalkDir is walkPackage as filepath.WalkDir does it: the
// definition walkPackage is held to.
func walkByWalkDir(dir string) (out, walked []string, err error) {
	lib := filepath.Join(dir, "lib")
	if fi, err := os.Stat(lib); err == nil && fi.IsDir() {
		out = append(out, lib)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == lib || d.Name() == "__pycache__") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			walked = append(walked, p)
		} else if IsExtensionName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: no lib/ directory and no extension modules", dir)
	}
	return out, walked, nil
}

func sameWalk(t *testing.T, dir string) {
	t.Helper()
	out, witnesses, err := walkPackage(dir)
	var walked []string
	for _, w := range witnesses {
		walked = append(walked, w.Path)
		if now := memo.WitnessOf(w.Path); w != now {
			t.Errorf("%s: witness %+v, stat'd now %+v", w.Path, w, now)
		}
	}
	wantOut, wantWalked, wantErr := walkByWalkDir(dir)
	got := fmt.Sprintf("%q\n%q\n%v", out, walked, err)
	if want := fmt.Sprintf("%q\n%q\n%v", wantOut, wantWalked, wantErr); got != want {
		t.Errorf("%s:\n%s\nfilepath.WalkDir:\n%s", dir, got, want)
	}
}

// TestWalkPackageIsWalkDir: walkPackage visits what filepath.WalkDir
// visits, in its order, with its errors, each directory's witness as
// memo.WitnessOf takes it: on a tree of every kind of entry and on each
// package of dist-packages.
func TestWalkPackageIsWalkDir(t *testing.T) {
	dir := t.TempDir()
	for _, rel := range []string{"a/_x.abi3.so", "b/__pycache__/_y.abi3.so", "b/c/_z.cpython-311-x86_64-linux-gnu.so",
		"lib/libfoo.so", "B/_u.abi3.so", "_w.cpython-311-x86_64-linux-gnu.so", "d/notes.so", "__pycache__/_v.abi3.so", "e/f/g/h.abi3.so"} {
		p := filepath.Join(dir, "pkg", rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg := filepath.Join(dir, "pkg")
	for link, target := range map[string]string{"pkg/linked.abi3.so": "a/_x.abi3.so", "pkg/dirlink": "b", "pkg/dirlink.abi3.so": "b",
		"pkg/dangling.abi3.so": "gone", "linkpkg": "pkg", "pkg2/lib": "../pkg/lib"} {
		p := filepath.Join(dir, link)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(pkg, "fifo.abi3.so"), 0o644); err != nil {
		t.Fatal(err)
	}
	closed := filepath.Join(dir, "closed")
	os.MkdirAll(filepath.Join(closed, "sub"), 0o755)
	os.WriteFile(filepath.Join(closed, "_a.abi3.so"), nil, 0o644)
	if err := os.Chmod(filepath.Join(closed, "sub"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(closed, "sub"), 0o755) })
	for _, d := range []string{pkg, pkg + "/", dir + "/./pkg", filepath.Join(dir, "linkpkg"), filepath.Join(dir, "pkg2"), closed,
		filepath.Join(dir, "absent"), filepath.Join(pkg, "a/_x.abi3.so"), filepath.Join(pkg, "__pycache__"), filepath.Join(pkg, "lib")} {
		sameWalk(t, d)
	}
	const dist = "/usr/lib/python3/dist-packages"
	entries, _ := os.ReadDir(dist)
	n := 0
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(e.Name(), ".") {
			sameWalk(t, filepath.Join(dist, e.Name()))
			n++
		}
	}
	t.Logf("%d packages of %s", n, dist)
}

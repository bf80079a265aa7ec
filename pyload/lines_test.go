package pyload

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// dump prints a statement tree, building every body put off.
func dump(b *strings.Builder, stmts []*stmt, depth int) {
	for _, s := range stmts {
		fmt.Fprintf(b, "%*s%d %s %q\n", depth, "", s.line, s.kw, s.toks)
		dump(b, s.block(), depth+1)
	}
}

// same reports whether two statement trees are equal, building every
// body put off.
func same(a, b []*stmt) bool {
	return slices.EqualFunc(a, b, func(s, t *stmt) bool {
		return s.line == t.line && s.kw == t.kw && slices.Equal(s.toks, t.toks) && same(s.block(), t.block())
	})
}

// sameTree checks that the bodies parse puts off, once built, are what
// building them at once gives.
func sameTree(t *testing.T, name, src string) {
	lazy, eager := parse(src), newParser(newLexer(src), 0).block(-1, 0)
	if !same(lazy, eager) {
		var l, e strings.Builder
		dump(&l, lazy, 0)
		dump(&e, eager, 0)
		t.Errorf("%s: the tree with bodies put off differs:\n%s\nbuilt at once:\n%s", name, l.String(), e.String())
	}
}

var treeSeeds = []string{
	"def f(): return 1\nx = 2\n",
	"def f():\n    a\n  ;\n    b\nc\n",
	"class C:\n  def m(self):\n    pass\n  x = 1\n y = 2\nz\n",
	"def f(x,\n      y):\n    '''doc\n\n  string'''\n    return (x +\n y)\n  w\nv\n",
	"if x:\n    def f():\n\tpass\n        g()\n    h()\n",
	"async def f():\n    await x\n@dec\ndef g(): a; b\n\ndef h():\n    if a: b\n    else: c\n",
	"def f():\\\n  pass\n  x\n",
	"def f():\n    s = '''\nnot indented'''\n    t = (1,\n2)\n# comment\n\n    u\nv\n",
	"def f():\n" + strings.Repeat(" ", 3) + "x\n" + strings.Repeat(" ", 2) + "def g():\n   y\n",
	"def f():\n    x = (\n",
	"def f():\n" + deepBlocks(150),
}

func TestLazyBodies(t *testing.T) {
	for i, src := range treeSeeds {
		sameTree(t, fmt.Sprint("seed ", i), src)
	}
}

// TestLazyBodiesTorch: the same over every file of Debian's torch.
func TestLazyBodiesTorch(t *testing.T) {
	testenv.NeedFiles(t, distPackages+"/torch/__init__.py")
	fsys := os.DirFS(distPackages)
	n := 0
	fs.WalkDir(fsys, "torch", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".py") {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, p, string(data))
			n++
		}
		return nil
	})
	t.Logf("%d files", n)
}

func FuzzLazyBodies(f *testing.F) {
	for _, s := range treeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) { sameTree(t, "fuzzed", src) })
}

// mattersByDefinition is matters as its comment states it: a trigger word
// (or "exec(") anywhere, or an unopened native module's name as a whole
// word.
func mattersByDefinition(r *reader, src []byte) bool {
	for _, t := range triggers {
		if strings.Contains(string(src), t) {
			return true
		}
	}
	for _, n := range r.natives {
		if !r.isOpened(n) && Mentions(src, n.module) {
			return true
		}
	}
	return false
}

func testReader(natives ...string) *reader {
	r := &reader{opened: map[string]bool{"pkg/done.so\x00\x00": true}}
	for _, n := range natives {
		r.natives = append(r.natives, native{path: "pkg/" + n + ".so", module: n})
	}
	r.names = indexNatives(r.natives)
	return r
}

var mattersSeeds = []string{"import os\nx = 1\n", "from . import _C\n", "torch._C.foo", "_Cx = 1", "x_C = 1", "ctypes.CDLL(p)",
	"myexec(x)", "exec (x)", "exec(x)", "import done", "lib-1 = 2", "lib-12", "_load_library_x", "é_C", "_Cé",
	"CDLLL", "cdcdll", "exexec(", "libbar", "libbarb", "blibbar", "x.libbar()", "LL", "LLL", "xLL", "libbar=load_library"}

// TestMatters: matters says what its definition says, also once a native
// module is imported (its name then matters no more).
func TestMatters(t *testing.T) {
	r := testReader("_C", "done", "lib-1", "libtorch_global_deps", "", "libbar", "LL")
	srcs := slices.Clone(mattersSeeds)
	// Each word at each offset of a block of eight, at the end, in a name.
	for _, w := range append([]string{"_C", "libbar", "cdll", "exec("}, triggers...) {
		for pad := range 18 {
			for _, around := range []string{" ", "x"} {
				srcs = append(srcs, strings.Repeat(around, pad)+w, strings.Repeat(" ", pad)+w+around+"\n# a comment")
			}
		}
	}
	for _, opened := range []string{"", "pkg/_C.so", "pkg/libbar.so"} {
		r.opened[opened+"\x00\x00"] = true
		for _, src := range srcs {
			if got, want := r.matters([]byte(src)), mattersByDefinition(r, []byte(src)); got != want {
				t.Errorf("%s opened: matters(%q) = %v, want %v", opened, src, got, want)
			}
		}
	}
}

// TestMattersTorch: the same over every file of Debian's torch, with the
// names of its shared objects.
func TestMattersTorch(t *testing.T) {
	testenv.NeedFiles(t, distPackages+"/torch/__init__.py")
	fsys := os.DirFS(distPackages)
	natives := []string{"_dl"}
	fs.WalkDir(fsys, "torch", func(p string, d fs.DirEntry, err error) error {
		if name, ok := strings.CutSuffix(p, ".so"); ok && err == nil {
			base, _, _ := strings.Cut(path.Base(name), ".")
			natives = append(natives, base)
		}
		return nil
	})
	if len(natives) < 4 {
		t.Fatalf("natives: %q", natives)
	}
	r := testReader(natives...)
	yes := 0
	fs.WalkDir(fsys, "torch", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".py") {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				t.Fatal(err)
			}
			got, want := r.matters(data), mattersByDefinition(r, data)
			if got != want {
				t.Errorf("%s: matters %v, want %v", p, got, want)
			}
			if got {
				yes++
			}
		}
		return nil
	})
	t.Logf("%d files matter", yes)
}

func FuzzMatters(f *testing.F) {
	for _, s := range mattersSeeds {
		f.Add(s)
	}
	r := testReader("_C", "done", "lib-1", "x", "libbar", "LL")
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := r.matters([]byte(src)), mattersByDefinition(r, []byte(src)); got != want {
			t.Errorf("matters(%q) = %v, want %v", src, got, want)
		}
	})
}

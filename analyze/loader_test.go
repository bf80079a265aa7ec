package analyze

import (
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/elfobj"
)

// TestOpenInputsOneObjectPerFile: while OpenInputs reads a side's files,
// the closure search of the roots reaches one of them under another name
// (a symlink). It must find the input being read, not read the file a
// second time: one Object per file, under the name the caller listed.
// Each round races the two; without the claim on the listed files the
// search reads the library itself about half the time.
func TestOpenInputsOneObjectPerFile(t *testing.T) {
	dir := t.TempDir()
	cpu, err := os.ReadFile(filepath.Join(demo, "torch/lib/libtorch_cpu.so"))
	if err != nil {
		t.Fatal(err)
	}
	// other/libtorch_cpu.so is the file; torch/lib/libtorch_cpu.so, where
	// _C's RUNPATH ($ORIGIN/lib) leads, a symlink to it.
	for _, d := range []string{"other", "torch/lib"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real := filepath.Join(dir, "other/libtorch_cpu.so")
	if err := os.WriteFile(real, cpu, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../other/libtorch_cpu.so", filepath.Join(dir, "torch/lib/libtorch_cpu.so")); err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(dir, "torch/_C.cpython-311-x86_64-linux-gnu.so")
	c, err := os.ReadFile(filepath.Join(demo, "torch/_C.cpython-311-x86_64-linux-gnu.so"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ext, c, 0o644); err != nil {
		t.Fatal(err)
	}
	roots, errs := elfobj.Open([]string{ext}, elfobj.Options{})
	if len(errs) > 0 || len(roots) != 1 {
		t.Fatal(roots, errs)
	}
	want, errs := elfobj.Open([]string{filepath.Join(dir, "other")}, elfobj.Options{})
	if len(errs) > 0 || len(want) != 1 {
		t.Fatal(want, errs)
	}
	for round := range 200 {
		l := NewLoader(nil, roots)
		objs, errs := l.OpenInputs([]string{filepath.Join(dir, "other")}, roots, nil)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		paths := func(os []*elfobj.Object) []string {
			var p []string
			for _, o := range os {
				p = append(p, o.Path+" "+o.Real)
			}
			return p
		}
		if !slices.Equal(paths(objs), paths(want)) {
			t.Fatalf("OpenInputs read %v, Open %v", paths(objs), paths(want))
		}
		res := l.Resolve(roots[0], nil, "libtorch_cpu.so")
		if res.Object != objs[0] {
			t.Fatalf("round %d: the search found %s, not the input %s being read: the file became two Objects", round, res.Object.Path, objs[0].Path)
		}
	}
}

// TestOpenInputsErrors: a file that cannot be read is an input error, as
// with elfobj.Open, and does not stop the closure read.
func TestOpenInputsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "libbad.so")
	if err := os.WriteFile(bad, []byte("\x7fELF\x02\x01\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	roots, _ := elfobj.Open([]string{filepath.Join(demo, "wheel")}, elfobj.Options{})
	l := NewLoader(nil, roots)
	objs, errs := l.OpenInputs([]string{bad, filepath.Join(demo, "torch/lib")}, roots, nil)
	if len(objs) != 1 || len(errs) != 1 {
		t.Fatalf("objects %v, errors %v: want libtorch_cpu.so and one error", objs, errs)
	}
	if res := l.Resolve(byBase(roots, "libexecutorch_backend_xnnpack.so.1"), nil, "libexecutorch.so.1"); res.Object == nil {
		t.Error("the roots' closure was not read")
	}
}

// TestExpandAsAReplacer: expand replaces ld.so's tokens as a
// strings.Replacer of every spelling does, in one pass (a directory that
// holds "$LIB" is not expanded again), a lone '$' kept.
func TestExpandAsAReplacer(t *testing.T) {
	o := &elfobj.Object{Dir: "/opt/$LIB/x", Machine: elf.EM_X86_64, Class: elf.ELFCLASS64}
	r := strings.NewReplacer("${ORIGIN}", o.Dir, "$ORIGIN", o.Dir, "${LIB}", libToken(o), "$LIB", libToken(o),
		"${PLATFORM}", o.MachineName(), "$PLATFORM", o.MachineName())
	for _, s := range []string{"", "/usr/lib", "$ORIGIN", "${ORIGIN}/../lib", "$ORIGIN/$LIB:${PLATFORM}$", "$$ORIGINS$",
		"a$", "$ORIGIN$ORIGIN", "${ORIGIN", "$PLATFORMx/${LIB}y"} {
		if got, want := expand(s, o), r.Replace(s); got != want {
			t.Errorf("expand(%q) = %q, want %q", s, got, want)
		}
	}
}

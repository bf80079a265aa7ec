package analyze

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/elfobj"
)

const demo = "../testdata/demo"

// demoBuild loads the demo corpus: a wheel whose threadpool library bundles
// pthreadpool and cpuinfo, and a torch whose libtorch_cpu.so bundles them too.
func demoBuild(t *testing.T, order string) *Build {
	t.Helper()
	wheelObjs, errs := elfobj.Open([]string{filepath.Join(demo, "wheel")}, elfobj.Options{})
	torchObjs, errs2 := elfobj.Open([]string{filepath.Join(demo, "torch")}, elfobj.Options{})
	if len(errs)+len(errs2) > 0 {
		t.Fatalf("reading the demo corpus: %v %v", errs, errs2)
	}
	steps, err := ParseLoadOrder(order)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLoader(nil, append(append([]*elfobj.Object(nil), wheelObjs...), torchObjs...))
	return NewBuild(l, nil, NewSide("wheel", wheelObjs, PythonPlan{}), NewSide("torch", torchObjs, PythonPlan{}), steps)
}

func byBase(objs []*elfobj.Object, base string) *elfobj.Object {
	for _, o := range objs {
		if filepath.Base(o.Path) == base {
			return o
		}
	}
	return nil
}

func TestDemoClosureResolvesThroughOrigin(t *testing.T) {
	b := demoBuild(t, "torch,wheel")
	ext := byBase(b.Wheel.Inputs, "_portable_lib.cpython-311-x86_64-linux-gnu.so")
	if ext == nil {
		t.Fatal("no extension module in the demo wheel")
	}
	if len(b.Wheel.Roots) == 0 || b.Wheel.Roots[0].Object != ext {
		t.Fatalf("the wheel's first root is not its extension module: %+v", b.Wheel.Roots)
	}
	for _, need := range ext.Needed {
		if strings.HasPrefix(need, "libexecutorch") && byBase(b.Wheel.Closure, need) == nil {
			t.Errorf("%s: DT_NEEDED %s not resolved through RUNPATH %v", ext.Path, need, ext.Runpath)
		}
	}
	if b.Peer.Has(byBase(b.Wheel.Inputs, "libexecutorch_threadpool.so.1")) {
		t.Error("the wheel's own threadpool library counted in torch's closure")
	}
}

func TestDemoConflictsAndBindings(t *testing.T) {
	for _, tc := range []struct {
		order string
		// where the extension's reference to pthreadpool_create binds
		wheelBindsTo string
	}{
		{"torch,wheel", "libexecutorch_threadpool.so.1"},
		{"wheel,torch", "libexecutorch_threadpool.so.1"},
		{"torch:global,wheel", "libtorch_cpu.so"},
	} {
		t.Run(tc.order, func(t *testing.T) {
			b := demoBuild(t, tc.order)
			var c *Conflict
			for _, x := range b.Conflicts(nil) {
				if x.Name == "pthreadpool_create" {
					x := x
					c = &x
				}
			}
			if c == nil {
				t.Fatal("pthreadpool_create, exported by both sides, not reported")
			}
			if len(c.Wheel) != 1 || filepath.Base(c.Wheel[0].Object.Path) != "libexecutorch_threadpool.so.1" {
				t.Errorf("wheel definitions %v", c.Wheel)
			}
			found := false
			for _, bd := range c.Bindings {
				if bd.Side != "wheel" || bd.Defines {
					continue
				}
				found = true
				if bd.To == nil || filepath.Base(bd.To.Path) != tc.wheelBindsTo {
					t.Errorf("reference from %s binds to %v, want %s", bd.From.Path, bd.To, tc.wheelBindsTo)
				}
			}
			if !found {
				t.Error("no wheel-side reference to pthreadpool_create recorded")
			}
		})
	}
}

func TestJoinDirStaysInsideWheel(t *testing.T) {
	for _, tc := range []struct{ dir, name, want string }{
		{"w.whl!pkg/ext", "libx.so", "w.whl!pkg/ext/libx.so"},
		{"w.whl!pkg/ext/../../pkg.libs", "libx.so", "w.whl!pkg.libs/libx.so"},
		{"w.whl!pkg/../..", "libx.so", ""},
		{"/usr/lib", "libx.so", "/usr/lib/libx.so"},
	} {
		if got := joinDir(tc.dir, tc.name); got != tc.want {
			t.Errorf("joinDir(%q, %q) = %q, want %q", tc.dir, tc.name, got, tc.want)
		}
	}
}

func TestParseLoadOrder(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
		bad        bool
	}{
		{"torch,wheel", "torch,wheel", false},
		{"wheel", "torch,wheel", false},
		{"wheel,peer:global", "wheel,torch:global", false},
		{"torch,torch", "", true},
		{"numpy", "", true},
		{"torch:lazy", "", true},
	} {
		steps, err := ParseLoadOrder(tc.spec)
		if (err != nil) != tc.bad {
			t.Errorf("ParseLoadOrder(%q) error %v, want error %v", tc.spec, err, tc.bad)
			continue
		}
		var parts []string
		for _, s := range steps {
			p := s.Side
			if s.Global {
				p += ":global"
			}
			parts = append(parts, p)
		}
		if got := strings.Join(parts, ","); !tc.bad && got != tc.want {
			t.Errorf("ParseLoadOrder(%q) = %s, want %s", tc.spec, got, tc.want)
		}
	}
}

// TestConflictNamesKeepTheAnswer reads the peer and everything the loader
// finds with only ConflictNames kept, and expects the same conflicts, the
// same definitions and the same bindings as from full reads, in every load
// order.
func TestConflictNamesKeepTheAnswer(t *testing.T) {
	for _, order := range []string{"torch,wheel", "wheel,torch", "torch:global,wheel"} {
		full := demoBuild(t, order)
		wheelObjs, errs := elfobj.Open([]string{filepath.Join(demo, "wheel")}, elfobj.Options{})
		only := elfobj.Options{Only: ConflictNames(wheelObjs)}
		torchObjs, errs2 := elfobj.Open([]string{filepath.Join(demo, "torch")}, only)
		if len(errs)+len(errs2) > 0 {
			t.Fatal(errs, errs2)
		}
		steps, _ := ParseLoadOrder(order)
		l := NewLoader(nil, append(append([]*elfobj.Object(nil), wheelObjs...), torchObjs...))
		l.Read = only
		part := NewBuild(l, nil, NewSide("wheel", wheelObjs, PythonPlan{}), NewSide("torch", torchObjs, PythonPlan{}), steps)
		want, got := describeConflicts(full.Conflicts(nil)), describeConflicts(part.Conflicts(nil))
		if len(want) == 0 {
			t.Fatal("the demo corpus has no conflicts")
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: with ConflictNames:\n%s\nfull reads:\n%s", order, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// describeConflicts spells out every conflict, definition and binding.
func describeConflicts(cs []Conflict) []string {
	var out []string
	for _, c := range cs {
		line := c.Name + ":"
		for _, d := range append(append([]Def(nil), c.Wheel...), c.Peer...) {
			line += " def " + filepath.Base(d.Object.Path) + " " + d.Symbol.Versioned() + " " + d.Symbol.TypeName()
		}
		for _, b := range c.Bindings {
			to := "nothing"
			if b.To != nil {
				to = filepath.Base(b.To.Path)
			}
			line += fmt.Sprintf(" | %s %s -> %s (defines %v)", b.Side, filepath.Base(b.From.Path), to, b.Defines)
		}
		out = append(out, line)
	}
	return out
}

// TestForPython: python3.11 never imports a module tagged cpython-310, or
// a debug build's cpython-311d (Debian's pyodbc ships one), so neither is a
// root of the Python process; abi3 and untagged files stay.
func TestForPython(t *testing.T) {
	obj := func(p string) *elfobj.Object { return &elfobj.Object{Path: p, Type: elf.ET_DYN} }
	s := &Side{Roots: []Root{
		{Object: obj("/x/_m.cpython-310-x86_64-linux-gnu.so")},
		{Object: obj("/x/_m.cpython-311-x86_64-linux-gnu.so")},
		{Object: obj("/x/pyodbc.cpython-311d-x86_64-linux-gnu.so")},
		{Object: obj("/x/_cffi.abi3.so")},
		{Object: obj("/x/libhelper.so")},
	}}
	interp := &elfobj.Object{Path: "/usr/bin/python3.11"}
	if v := InterpreterVersion(interp); v != "311" {
		t.Fatalf("InterpreterVersion(%s) = %q, want 311", interp.Path, v)
	}
	if v := InterpreterVersion(&elfobj.Object{Path: "/opt/py/bin/python3", Needed: []string{"libpython3.12.so.1.0"}}); v != "312" {
		t.Errorf("InterpreterVersion from libpython = %q, want 312", v)
	}
	s.forPython(InterpreterVersion(interp))
	var kept []string
	for _, r := range s.Roots {
		kept = append(kept, filepath.Base(r.Object.Path))
	}
	if strings.Join(kept, " ") != "_m.cpython-311-x86_64-linux-gnu.so _cffi.abi3.so libhelper.so" || len(s.OtherPython) != 2 {
		t.Errorf("roots kept %v, other Python %v", kept, s.OtherPython)
	}
}

package analyze

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/ldoracle"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/ldcache"
	"github.com/etlink/etlink/symset"
)

// The scenario the process model is held to: a runtime library and a
// bundled copy of it, each used by one extension module, a module that
// takes libm from the interpreter, and state of every binding the model
// distinguishes: a strong variable, a function, a protected function, a
// template's static (STB_GNU_UNIQUE), a weak inline function, a function
// the library calls only directly.
const agreeRuntime = `
#include <cmath>
template <class T> struct Registry { static int count; };
template <class T> int Registry<T>::count;
inline int inline_counter() { static int n; return ++n; }
extern "C" {
int runtime_state = 1;
int runtime_fn(void) { return ++runtime_state; }
__attribute__((visibility("protected"))) int runtime_protected(void) { return runtime_state; }
int runtime_direct(void) { return 7; }
int runtime_register(void) { return ++Registry<int>::count + inline_counter() + runtime_protected(); }
}
`

const agreeModule = `
extern "C" int runtime_fn(void);
extern "C" int runtime_register(void);
extern "C" int runtime_state;
template <class T> struct Registry { static int count; };
template <class T> int Registry<T>::count;
inline int inline_counter() { static int n; return ++n; }
extern "C" int PyInit_%[1]s(void) { return runtime_fn() + runtime_register() + runtime_state + ++Registry<int>::count + inline_counter(); }
`

const agreeLibm = `
#include <math.h>
double PyInit__m(double x) { return hypot(x, x); }
`

// TestProcessAgreesWithLoader builds the scenario with the real compiler
// (with a module whose own libruntime.so the loader never maps, as it
// already holds one of that SONAME), loads it in python3 with
// LD_DEBUG=bindings in several orders (modules RTLD_LOCAL as Python imports
// them; one RTLD_GLOBAL, first or after the copy), and compares every
// binding the loader logs for the scenario's objects with where the model
// binds the same reference, and the references themselves.
func TestProcessAgreesWithLoader(t *testing.T) {
	testenv.NeedTools(t, "g++", "gcc")
	testenv.NeedFiles(t, "/usr/bin/python3")
	dir := t.TempDir()
	build := func(out string, args ...string) {
		t.Helper()
		cmd := exec.Command(args[0], append(args[1:], "-o", filepath.Join(dir, out))...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
	}
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("runtime.cc", agreeRuntime)
	write("a.cc", fmt.Sprintf(agreeModule, "_a"))
	write("b.cc", fmt.Sprintf(agreeModule, "_b"))
	write("m.c", agreeLibm)
	flags := []string{"-O1", "-fPIC", "-shared", "-fno-builtin"}
	build("libruntime.so", append(append([]string{"g++"}, flags...), "runtime.cc", "-Wl,-soname,libruntime.so")...)
	// The bundled copy: the same code under another name, as a wheel
	// that links the runtime statically into a library of its own.
	build("libcopy.so", append(append([]string{"g++"}, flags...), "runtime.cc", "-Wl,-soname,libcopy.so")...)
	build("_a.cpython-311-x86_64-linux-gnu.so", append(append([]string{"g++"}, flags...), "a.cc", "-L.", "-lruntime", "-Wl,-rpath,$ORIGIN")...)
	build("_b.cpython-311-x86_64-linux-gnu.so", append(append([]string{"g++"}, flags...), "b.cc", "-L.", "-lcopy", "-Wl,-rpath,$ORIGIN")...)
	build("_m.cpython-311-x86_64-linux-gnu.so", append(append([]string{"gcc"}, flags...), "m.c")...)
	// A module shipping its own file of the runtime's SONAME: once
	// libruntime.so is loaded, the loader reuses it and never maps this one.
	if err := os.Mkdir(filepath.Join(dir, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("c.cc", fmt.Sprintf(agreeModule, "_c"))
	build("other/libruntime.so", append(append([]string{"g++"}, flags...), "runtime.cc", "-Wl,-soname,libruntime.so")...)
	build("other/_c.cpython-311-x86_64-linux-gnu.so", append(append([]string{"g++"}, flags...), "c.cc", "-Lother", "-lruntime", "-Wl,-rpath,$ORIGIN")...)

	ext := func(n string) string { return filepath.Join(dir, n+".cpython-311-x86_64-linux-gnu.so") }
	for _, tc := range []struct {
		name  string
		steps []ldoracle.Step
	}{
		{"local", []ldoracle.Step{{Path: ext("_a")}, {Path: ext("_b")}, {Path: ext("_m")}}},
		{"same soname", []ldoracle.Step{{Path: ext("_a")}, {Path: ext("other/_c")}, {Path: ext("_b")}}},
		{"global first", []ldoracle.Step{{Path: ext("_a"), Global: true}, {Path: ext("_b")}, {Path: ext("_m")}}},
		{"copy first", []ldoracle.Step{{Path: ext("_b")}, {Path: ext("_a"), Global: true}, {Path: ext("_m")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			compareWithLoader(t, dir, tc.steps)
		})
	}
}

func compareWithLoader(t *testing.T, dir string, steps []ldoracle.Step) {
	objs, errs := elfobj.Open([]string{dir}, elfobj.Options{References: true})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cache, _ := ldcache.Load("/etc/ld.so.cache")
	l := NewLoader(cache, objs)
	python, err := elfobj.OpenFile(ldoracle.Real("/usr/bin/python3"), "", elfobj.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := NewProcess(l)
	p.Exec(python)
	byPath := map[string]*elfobj.Object{}
	for _, o := range objs {
		byPath[ldoracle.Real(o.Path)] = o
	}
	for _, s := range steps {
		p.Dlopen(byPath[ldoracle.Real(s.Path)], s.Global)
	}
	// Every name the scenario's objects refer to.
	var names symset.Set
	watch := map[string]bool{}
	for _, o := range objs {
		for i := range o.Symbols {
			if s := &o.Symbols[i]; s.Name != "" {
				names.Add(s.Name)
				watch[s.Name] = true
			}
		}
	}
	run, err := ldoracle.Python("/usr/bin/python3", steps, watch)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range run.Errors {
		if e != "" {
			t.Fatalf("step %d (%s) failed: %s", i, steps[i].Path, e)
		}
	}
	defs := Index(p.Order, &names)
	// What the model says, for every reference of the scenario's objects.
	model := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(watch)) {
		for _, r := range defs.Refs(name) {
			if _, ours := byPath[ldoracle.Real(r.Object.Path)]; !ours {
				continue
			}
			to := p.Bind(defs, r.Object, name, r.Version)
			key := filepath.Base(r.Object.Path) + " " + name
			if to == nil {
				model[key] = "(unbound)"
			} else {
				model[key] = ldoracle.Real(to.Path)
			}
		}
	}
	// What the loader did.
	loader := map[string]string{}
	for name, bs := range run.Bindings {
		for _, b := range bs {
			if _, ours := byPath[b.From]; ours {
				loader[filepath.Base(b.From)+" "+name] = b.To
			}
		}
	}
	var diffs []string
	for k, to := range loader {
		if model[k] != to {
			diffs = append(diffs, fmt.Sprintf("%s: loader binds to %s, model to %q", k, to, model[k]))
		}
	}
	for k, to := range model {
		// A weak reference nothing defines is left at zero without a
		// lookup the loader logs.
		if _, ok := loader[k]; !ok && to != "(unbound)" {
			diffs = append(diffs, fmt.Sprintf("%s: model binds to %s, the loader logs no such reference", k, to))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%d bindings differ:\n  %s", len(diffs), strings.Join(diffs, "\n  "))
	}
	if len(loader) < 10 {
		t.Errorf("the loader logged %d bindings of the scenario: the scenario is broken", len(loader))
	}
}

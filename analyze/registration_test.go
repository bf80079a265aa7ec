package analyze

import (
	"path/filepath"
	"testing"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/testenv"
)

func TestQualifiedName(t *testing.T) {
	for in, want := range map[string]string{
		"executorch::runtime::register_backend(executorch::runtime::Backend const&)": "executorch::runtime::register_backend",
		"void std::vector<int, std::allocator<int> >::push_back(int&&)":              "std::vector<int, std::allocator<int> >::push_back",
		"c10::RegisterOperators::RegisterOperators()":                                "c10::RegisterOperators::RegisterOperators",
		"register_backend": "register_backend",
	} {
		if got := QualifiedName(in); got != want {
			t.Errorf("QualifiedName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPatternsMatch(t *testing.T) {
	p := DefaultPatterns()
	for sym, want := range map[string]bool{
		"_ZN10executorch7runtime16register_backendERKNS0_7BackendE": true,
		"_ZN10executorch6extras16register_kernelsEv":                true, // another executorch:: namespace
		"_ZN3c1017RegisterOperatorsC1Ev":                            true,
		"_ZN10executorch7runtime11get_backendEPKc":                  false,
		"pthreadpool_create":                                        false,
		"_ZN5torch7LibraryC1ENS0_4KindENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEN3c108optionalINS8_11DispatchKeyEEEPKcj": true,
	} {
		if got := p.Match(sym); got != want {
			t.Errorf("Match(%s) = %v, want %v", sym, got, want)
		}
	}
	if err := p.Add("mylib::[bad"); err == nil {
		t.Error("a malformed glob was accepted")
	}
}

// TestPatternsWordsOnlySkipDemangling holds Match's shortcut (a name that
// spells none of the globs' last words is not demangled) to Match without
// it, over every dynamic symbol of Debian's libtorch_cpu, libtorch_python
// and libc10 (C++ with std:: abbreviations, constructors, templates,
// lambdas) and of the fixtures, for the default patterns and custom ones
// ending in a constructor, an abbreviated std class, a wildcard and a word
// after a wildcard.
func TestPatternsWordsOnlySkipDemangling(t *testing.T) {
	libs := []string{"/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13", "/usr/lib/x86_64-linux-gnu/libtorch_python.so.1.13", "/usr/lib/x86_64-linux-gnu/libc10.so.1.13"}
	testenv.NeedFiles(t, libs...)
	libs = append(libs, "../testdata/demo/wheel/executorch/lib/libexecutorch_backend_xnnpack.so.1", "../testdata/elf/x86_64/reg.o")
	sets := [][]string{nil, {"std::*::allocator", "c10::*::~intrusive_ptr_target"}, {"at::native::*"}, {"*Registerer", "*::*_impl"}}
	var names []string
	for _, l := range libs {
		o, err := elfobj.OpenFile(l, "", elfobj.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range o.Symbols {
			names = append(names, s.Name)
		}
	}
	for _, set := range sets {
		p := DefaultPatterns()
		if err := p.Add(set...); err != nil {
			t.Fatal(err)
		}
		every := *p
		every.words = nil
		if set == nil && len(p.words) != len(p.globs) {
			t.Errorf("default patterns: words %q, want one per glob", p.words)
		}
		matched := 0
		for _, n := range names {
			got, want := p.Match(n), every.Match(n)
			if got != want {
				t.Errorf("patterns %q: Match(%s) = %v, demangling every name: %v", set, n, got, want)
			}
			if want {
				matched++
			}
		}
		if matched == 0 {
			t.Errorf("patterns %q matched none of %d names: the comparison tested nothing", set, len(names))
		}
	}
}

// TestRegistrationsInFixtures reads the committed fixtures of both machines:
// reg.o registers a backend from .init_array (relocations), and the demo
// backend library does from DT_INIT_ARRAY (disassembly).
func TestRegistrationsInFixtures(t *testing.T) {
	for _, p := range []string{
		"../testdata/elf/x86_64/reg.o",
		"../testdata/elf/aarch64/reg.o",
		"../testdata/demo/wheel/executorch/lib/libexecutorch_backend_xnnpack.so.1",
	} {
		o, err := elfobj.OpenFile(p, "", elfobj.Options{Initializers: true})
		if err != nil {
			t.Fatal(err)
		}
		regs := DefaultPatterns().Matches(o)
		if len(regs) != 1 || regs[0].Call != "_ZN10executorch7runtime16register_backendERKNS0_7BackendE" {
			t.Errorf("%s: registrations %+v, want one call to register_backend", filepath.Base(p), regs)
		}
	}
	o, err := elfobj.OpenFile("../testdata/elf/x86_64/libversioned.so.1", "", elfobj.Options{Initializers: true})
	if err != nil {
		t.Fatal(err)
	}
	if regs := DefaultPatterns().Matches(o); len(regs) != 0 {
		t.Errorf("libversioned.so.1 registers nothing, found %+v", regs)
	}
}

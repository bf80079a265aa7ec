package policy

import (
	"debug/elf"
	"errors"
	"reflect"
	"testing"

	"github.com/etlink/etlink/elfobj"
)

// TestExternals walks a package as auditwheel's lddtree_external_references
// does, policy by policy: a library a policy allows is not walked through
// (libstdc++'s needs are not the wheel's), one it does not allow is, and
// what that needs is external too; the package's own libraries are not
// external. libexpat.so.1 is allowed from manylinux_2_12 on, so it, and
// libxml.so.9 reached only through it, break manylinux_2_5 alone.
func TestExternals(t *testing.T) {
	lib := func(path string, needed ...string) *elfobj.Object {
		return &elfobj.Object{Path: path, Needed: needed, Machine: elf.EM_X86_64, Class: elf.ELFCLASS64, Data: elf.ELFDATA2LSB, Type: elf.ET_DYN}
	}
	ext := lib("w.whl!ext.so", "libA.so.1", "libstdc++.so.6", "libown.so", "libexpat.so.1", "libgone.so.1")
	own := lib("w.whl!libown.so", "libC.so.1")
	system := map[string]*elfobj.Object{
		"libA.so.1":      lib("/usr/lib/libA.so.1", "libB.so.1", "libc.so.6"),
		"libB.so.1":      lib("/usr/lib/libB.so.1"),
		"libC.so.1":      lib("/usr/lib/libC.so.1"),
		"libstdc++.so.6": lib("/usr/lib/libstdc++.so.6", "libhidden.so.1"),
		"libhidden.so.1": lib("/usr/lib/libhidden.so.1"),
		"libexpat.so.1":  lib("/usr/lib/libexpat.so.1", "libxml.so.9"),
		"libxml.so.9":    lib("/usr/lib/libxml.so.9"),
		"libc.so.6":      lib("/usr/lib/libc.so.6"),
	}
	needs := map[string][]elfobj.VersionNeed{"/usr/lib/libA.so.1": {{Library: "libc.so.6", Versions: []string{"GLIBC_2.34", "GLIBC_2.2.5"}}}}
	rs := Analyze(Input{Objects: []*elfobj.Object{ext, own},
		Resolve: func(o *elfobj.Object, chain []*elfobj.Object, name string) Dep {
			if name == "libown.so" {
				return Dep{Object: own, Shipped: true}
			}
			return Dep{Object: system[name]}
		},
		VersionNeeds: func(l *elfobj.Object) ([]elfobj.VersionNeed, error) {
			if l.Path == "/usr/lib/libB.so.1" {
				return nil, errors.New("unreadable")
			}
			return needs[l.Path], nil
		},
	})
	if len(rs) != 1 {
		t.Fatalf("%d results", len(rs))
	}
	all := len(rs[0].Policies)
	type summary struct {
		neededBy, through string
		breaks            int
		found, err        bool
	}
	got := map[string]summary{}
	for _, e := range rs[0].External {
		got[e.Soname] = summary{e.NeededBy.Path, e.Through, len(e.Breaks), e.Object != nil, e.Err != nil}
	}
	want := map[string]summary{
		"libA.so.1":     {"w.whl!ext.so", "", all, true, false},
		"libB.so.1":     {"/usr/lib/libA.so.1", "libA.so.1", all, true, true},
		"libC.so.1":     {"w.whl!libown.so", "", all, true, false},
		"libexpat.so.1": {"w.whl!ext.so", "", 1, true, false},
		"libxml.so.9":   {"/usr/lib/libexpat.so.1", "libexpat.so.1", 1, true, false},
		"libgone.so.1":  {"w.whl!ext.so", "", all, false, false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("external libraries:\n got %+v\nwant %+v", got, want)
	}
	for _, e := range rs[0].External {
		if e.Soname == "libA.so.1" && !reflect.DeepEqual(e.Needs, []elfobj.VersionNeed{{Library: "libc.so.6", Versions: []string{"GLIBC_2.2.5", "GLIBC_2.34"}}}) {
			t.Errorf("libA's needs %+v, sorted numerically", e.Needs)
		}
	}
	// libA needs GLIBC_2.34: grafted, the wheel is manylinux_2_34 at best.
	if tag := rs[0].SymbolTag(); tag != "manylinux_2_34_x86_64" {
		t.Errorf("symbol tag %s", tag)
	}
	if tag := rs[0].Tag(); tag != "linux_x86_64" {
		t.Errorf("tag %s", tag)
	}
}

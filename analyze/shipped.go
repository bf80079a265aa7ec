package analyze

import (
	"debug/elf"
	"path"
	"slices"
	"strings"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/symset"
)

// Package is what a wheel or an install directory ships, for the release
// checks (ET201, ET203, ET401-ET405).
type Package struct {
	// Path is the wheel file or directory.
	Path string
	// Wheel is true for a .whl; Entries and Platforms are set only then.
	Wheel     bool
	Entries   []elfobj.WheelEntry
	Platforms []string // the platform tags of the wheel's file name
	Objects   []*elfobj.Object
	// Dangling are the symbolic links of a directory that lead to no file.
	Dangling []*elfobj.Error
}

// WheelPlatforms reads the platform tags from a wheel file name
// (name-ver[-build]-py-abi-plat.whl, plat possibly "a.b" for several).
func WheelPlatforms(file string) ([]string, bool) {
	base := strings.TrimSuffix(path.Base(file), ".whl")
	parts := strings.Split(base, "-")
	if len(parts) < 5 || len(parts) > 6 {
		return nil, false
	}
	return strings.Split(parts[len(parts)-1], "."), true
}

// PlatformMachine is the ELF machine a platform tag names: linux_x86_64,
// manylinux_2_28_aarch64, musllinux_1_2_x86_64, manylinux2014_i686 ...; ok
// is false for tags that name no Linux machine ("any").
func PlatformMachine(tag string) (elf.Machine, bool) {
	for suffix, m := range map[string]elf.Machine{
		"_x86_64": elf.EM_X86_64, "_aarch64": elf.EM_AARCH64, "_i686": elf.EM_386,
		"_armv7l": elf.EM_ARM, "_ppc64le": elf.EM_PPC64, "_s390x": elf.EM_S390, "_riscv64": elf.EM_RISCV,
	} {
		if strings.HasSuffix(tag, suffix) {
			return m, true
		}
	}
	return 0, false
}

// IsSystemDir reports whether dir is one of the loader's default
// directories for the machine: a path every target machine has.
func IsSystemDir(dir string, m elf.Machine, c elf.Class) bool {
	dir = path.Clean(dir)
	for _, d := range DefaultDirs(m, c) {
		if d == dir {
			return true
		}
	}
	return false
}

// Unbound is an undefined symbol of an object that the object's own
// dependencies do not define, and what in its process does.
type Unbound struct {
	Name, Version string
	// By is the object whose definition the reference binds to in the
	// process: the interpreter, a library it loaded, one opened
	// RTLD_GLOBAL before. nil when nothing in the object's scope defines it.
	By *elfobj.Object
}

// Needs lists o's undefined, non-weak symbols that o's own DT_NEEDED tree
// does not define, sorted by name, with what provides each in p (ld.so
// fails on those nothing provides, with BIND_NOW at load time, lazily at
// the first call otherwise). missing lists the DT_NEEDED entries of o's
// tree the search did not find, whose symbols cannot be checked.
func (p *Process) Needs(o *elfobj.Object) (out []Unbound, missing []Edge) {
	var names symset.Set
	type wanted struct {
		key string // Versioned(), made once, not at every comparison
		*elfobj.Symbol
	}
	var want []wanted // one per name and version asked for
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Defined() || s.Binding() == elf.STB_WEAK || s.Name == "" {
			continue
		}
		names.Add(s.Name)
		want = append(want, wanted{s.Versioned(), s})
	}
	if len(want) == 0 {
		return nil, nil
	}
	slices.SortFunc(want, func(a, b wanted) int { return strings.Compare(a.key, b.key) })
	alone := NewProcess(p.loader)
	tree := alone.Dlopen(o, false)
	defs := Index(append(append([]*elfobj.Object(nil), tree...), p.Scope(o)...), &names)
	for _, s := range want {
		if alone.Bind(defs, o, s.Name, s.Version()) != nil {
			continue
		}
		out = append(out, Unbound{Name: s.Name, Version: s.Version(), By: p.Bind(defs, o, s.Name, s.Version())})
	}
	return out, alone.Missing
}

// FromExe reports whether o was mapped with the executable, as part of its
// own closure (python3's libm, libz, libc).
func (p *Process) FromExe(o *elfobj.Object) bool {
	k, ok := p.opened[o]
	return ok && k == 0 && p.Exe != nil
}

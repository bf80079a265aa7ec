package analyze

import (
	"debug/elf"
	"path"
	"strings"

	"github.com/etlink/etlink/elfobj"
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

// Unresolved lists o's undefined, non-weak symbols that nothing in its load
// scope defines, as ld.so would fail on them (with BIND_NOW; lazily at the
// first call otherwise). With inPython, the interpreter's C API (Py*, _Py*)
// counts as defined: everything a wheel ships runs inside python3.
func (p *Process) Unresolved(o *elfobj.Object, inPython bool) []string {
	scope := p.Scope(o)
	need := map[string]bool{}
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Defined() || s.Binding() == elf.STB_WEAK || s.Name == "" {
			continue
		}
		if inPython && (strings.HasPrefix(s.Name, "Py") || strings.HasPrefix(s.Name, "_Py")) {
			continue
		}
		need[s.Name] = true
	}
	if len(need) == 0 {
		return nil
	}
	for _, q := range scope {
		for i := range q.Symbols {
			if s := &q.Symbols[i]; need[s.Name] && s.Defined() && s.Exported() {
				delete(need, s.Name)
			}
		}
		if len(need) == 0 {
			return nil
		}
	}
	return sortedNames(need)
}

// Package policy says which manylinux or musllinux platform tag a set of
// ELF objects is consistent with, as auditwheel show does: the oldest
// policy (PEP 513, 599, 600 for glibc; PEP 656 for musl) whose symbol
// versions cover every version the objects need from the system, whose
// library list holds every library they need from the system, and none of
// whose forbidden symbols they use.
//
// The policies are data: manylinux-policy.json and musllinux-policy.json,
// auditwheel's own files (README.md says from which commit), as Go slices
// in tables.go (go generate writes it; TestTablesAreAuditwheels holds the
// two to each other).
//
// The external libraries (external.go) are auditwheel's too: for each
// policy, the libraries of the system it does not allow, and through them,
// transitively, the libraries those need (a library it allows is not
// walked through), each with the symbol versions it needs; SymbolTag is
// auditwheel's sym_tag, those versions counted.
//
// Where it differs from auditwheel: a version needed from a library the
// package itself ships constrains nothing (auditwheel counts it too), and
// the x86-64 ISA level (x86-64-v2 ...), UCS-2 Python and pyfpe checks are
// not made. musl records no symbol versions, so a musllinux verdict rests
// on the libraries alone and says so.
package policy

import (
	"cmp"
	"debug/elf"
	"slices"
	"strconv"
	"strings"
)

// Libc is the C library a policy is about.
type Libc string

// The two libcs with policies.
const (
	Glibc Libc = "glibc"
	Musl  Libc = "musl"
)

// Policy is one platform policy for one architecture.
type Policy struct {
	// Name is the tag, arch included: manylinux_2_17_x86_64.
	Name string
	// Aliases are legacy names of the same policy: manylinux2014_x86_64.
	Aliases []string
	// Priority orders policies: the higher, the more machines it runs on.
	Priority int
	// Versions holds, per namespace (GLIBC, GLIBCXX, CXXABI, GCC, ZLIB,
	// LIBATOMIC), the version names the policy allows (GLIBC_2.17).
	Versions map[string]map[string]bool
	// Libraries are the sonames a wheel may take from the system.
	Libraries map[string]bool
	// Forbidden are symbols of those libraries a wheel must not use.
	Forbidden map[string]map[string]bool
}

// libcTables are one libc's policies, as tables.go lists them.
type libcTables struct {
	libc     Libc
	policies []table
}

// table is one entry of auditwheel's policy files.
type table struct {
	name      string
	aliases   []string
	priority  int
	versions  []archVersions // symbol_versions
	whitelist []string       // lib_whitelist
	blacklist []libSymbols
}

type archVersions struct {
	arch       string
	namespaces []namespace
}

type namespace struct {
	name     string
	versions []string // as symbols name them: GLIBC_2.17
}

type libSymbols struct {
	library string
	symbols []string
}

//go:generate go run ./gen

// For returns libc's policies for arch, the most compatible (highest
// priority) first; the generic "linux" policy is not among them.
func For(libc Libc, arch string) []Policy {
	var out []Policy
	for _, lt := range tables {
		if lt.libc != libc {
			continue
		}
		for _, r := range lt.policies {
			i := slices.IndexFunc(r.versions, func(v archVersions) bool { return v.arch == arch })
			if r.name == "linux" || i < 0 {
				continue
			}
			p := Policy{Name: r.name + "_" + arch, Priority: r.priority,
				Versions: map[string]map[string]bool{}, Libraries: map[string]bool{}, Forbidden: map[string]map[string]bool{}}
			for _, a := range r.aliases {
				p.Aliases = append(p.Aliases, a+"_"+arch)
			}
			for _, ns := range r.versions[i].namespaces {
				p.Versions[ns.name] = make(map[string]bool, len(ns.versions))
				for _, v := range ns.versions {
					p.Versions[ns.name][v] = true
				}
			}
			for _, lib := range r.whitelist {
				if libc == Musl && lib == "libc.so" {
					lib = muslSoname(arch)
				}
				p.Libraries[lib] = true
			}
			for _, b := range r.blacklist {
				p.Forbidden[b.library] = make(map[string]bool, len(b.symbols))
				for _, s := range b.symbols {
					p.Forbidden[b.library][s] = true
				}
			}
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b Policy) int { return cmp.Compare(b.Priority, a.Priority) })
	return out
}

// muslSoname is the file musl's libc is needed as on arch.
func muslSoname(arch string) string {
	if arch == "i686" {
		return "libc.musl-x86.so.1"
	}
	return "libc.musl-" + arch + ".so.1"
}

// Arch is the policy architecture of ELF code: x86_64, i686, aarch64,
// armv7l, ppc64le, ppc64, s390x, riscv64, loongarch64; "" for none.
func Arch(m elf.Machine, class elf.Class, data elf.Data) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_386:
		return "i686"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_ARM:
		return "armv7l"
	case elf.EM_PPC64:
		if data == elf.ELFDATA2LSB {
			return "ppc64le"
		}
		return "ppc64"
	case elf.EM_S390:
		if class == elf.ELFCLASS64 {
			return "s390x"
		}
	case elf.EM_RISCV:
		if class == elf.ELFCLASS64 {
			return "riscv64"
		}
	case elf.EM_LOONGARCH:
		return "loongarch64"
	}
	return ""
}

// Tag is a platform tag read: manylinux_2_17_x86_64, manylinux2014_x86_64
// (read as manylinux_2_17), musllinux_1_2_aarch64, linux_x86_64.
type Tag struct {
	Text         string
	Libc         Libc // "" for linux_ARCH, which claims no policy
	Major, Minor int
	Arch         string
}

// legacy are the manylinux tags PEP 600 renamed.
var legacy = map[string][2]int{"manylinux1": {2, 5}, "manylinux2010": {2, 12}, "manylinux2014": {2, 17}}

// ParseTag reads a Linux platform tag; ok is false for any other.
func ParseTag(s string) (Tag, bool) {
	t := Tag{Text: s}
	for name, v := range legacy {
		if arch, ok := strings.CutPrefix(s, name+"_"); ok {
			t.Libc, t.Major, t.Minor, t.Arch = Glibc, v[0], v[1], arch
			return t, true
		}
	}
	if arch, ok := strings.CutPrefix(s, "linux_"); ok {
		t.Arch = arch
		return t, arch != ""
	}
	for prefix, libc := range map[string]Libc{"manylinux_": Glibc, "musllinux_": Musl} {
		rest, ok := strings.CutPrefix(s, prefix)
		if !ok {
			continue
		}
		parts := strings.SplitN(rest, "_", 3)
		if len(parts) != 3 {
			return t, false
		}
		major, err1 := strconv.Atoi(parts[0])
		minor, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || parts[2] == "" {
			return t, false
		}
		t.Libc, t.Major, t.Minor, t.Arch = libc, major, minor, parts[2]
		return t, true
	}
	return t, false
}

// version is a policy's libc version, from its name (manylinux_2_17_x86_64).
func (p Policy) version() (int, int) {
	parts := strings.SplitN(p.Name, "_", 4)
	if len(parts) < 3 {
		return 0, 0
	}
	major, _ := strconv.Atoi(parts[1])
	minor, _ := strconv.Atoi(parts[2])
	return major, minor
}

// Claimed is the policy a tag holds its wheel to: the tag's own, or for a
// PEP 600 tag between two listed policies (manylinux_2_30) the newest
// listed one not newer than it (policies only grow: what satisfies it
// satisfies the tag). ok is false when no listed policy is that old.
func Claimed(t Tag, policies []Policy) (Policy, bool) {
	var best Policy
	found := false
	for _, p := range policies {
		major, minor := p.version()
		if major < t.Major || major == t.Major && minor <= t.Minor {
			if !found || p.Priority < best.Priority {
				best, found = p, true
			}
		}
	}
	return best, found
}

package policy

import (
	"debug/elf"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/etlink/etlink/elfobj"
)

// Need is one symbol version the objects need from a library of the
// system, with the first object and symbol seen needing it.
type Need struct {
	Version string `json:"version"` // GLIBC_2.17
	Library string `json:"library"` // libc.so.6
	Object  string `json:"object"`
	Symbol  string `json:"symbol"`
}

// Input is what a verdict is made from: the package's objects, where each
// DT_NEEDED entry resolves, and how the needs of a library of the system
// are read.
type Input struct {
	Objects []*elfobj.Object
	// Resolve finds the library o's DT_NEEDED entry names as the loader's
	// search would; chain are the objects that loaded o, nearest first
	// (their DT_RPATH counts).
	Resolve func(o *elfobj.Object, chain []*elfobj.Object, needed string) Dep
	// VersionNeeds reads the symbol versions a library of the system
	// needs (elfobj.ReadVersionNeeds).
	VersionNeeds func(lib *elfobj.Object) ([]elfobj.VersionNeed, error)
}

// Dep is what a DT_NEEDED entry resolves to.
type Dep struct {
	Object  *elfobj.Object // nil: the search finds nothing
	Shipped bool           // one of the package's own files
}

// External is a library of the system that a policy does not allow,
// needed by the package's objects or, through such a library, in turn:
// what auditwheel show lists as external and auditwheel repair grafts.
type External struct {
	Soname string         // the DT_NEEDED name
	Object *elfobj.Object // the file the search finds; nil: none
	// NeededBy is the first object seen needing it: one of the package's,
	// or Through, the external library it is needed through.
	NeededBy *elfobj.Object
	Through  string
	// Needs are the versions it needs, per library (the loader's left
	// out, as auditwheel leaves it out); Err says why they could not be
	// read.
	Needs []elfobj.VersionNeed
	Err   error
	// Breaks are the policies it keeps the objects from, the most
	// compatible first.
	Breaks []string
}

// Result is the verdict for the objects of one architecture.
type Result struct {
	Arch string
	Libc Libc
	// Policies are the libc's policies for Arch, the most compatible
	// first; Best is the first of them the objects satisfy (nil: none, the
	// generic linux tag only).
	Policies []Policy
	Best     *Policy
	// Needs are the versions needed from the system, each once.
	Needs []Need
	// System maps each library needed from the system to the objects
	// needing it.
	System map[string][]string
	// Versioned are the versions the objects need from each library,
	// sorted: auditwheel's versioned_symbols for the objects themselves.
	// Those of the package's own libraries are listed, as auditwheel lists
	// them, but constrain nothing (the loader binds them to the package's
	// own definitions).
	Versioned map[string][]string
	// External are the libraries some policy does not allow, directly
	// needed or through one another, by soname: the most compatible
	// policy's list, which holds every other's (auditwheel show's
	// "external shared libraries").
	External []*External
	objects  []*elfobj.Object
	// uses are calls of symbols some policy forbids.
	uses []Need
}

// Analyze gives one Result per architecture of the shared objects and
// executables among in.Objects.
func Analyze(in Input) []*Result {
	byArch := map[string]*Result{}
	var order []string
	for _, o := range in.Objects {
		if o.Type != elf.ET_DYN && o.Type != elf.ET_EXEC {
			continue
		}
		arch := Arch(o.Machine, o.Class, o.Data)
		if arch == "" {
			continue
		}
		r := byArch[arch]
		if r == nil {
			r = &Result{Arch: arch, Libc: Glibc, System: map[string][]string{}, Versioned: map[string][]string{}}
			byArch[arch] = r
			order = append(order, arch)
		}
		r.objects = append(r.objects, o)
		r.add(o, in.Resolve)
	}
	var out []*Result
	for _, arch := range order {
		r := byArch[arch]
		ps := For(r.Libc, arch)
		r.Policies = ps
		for i := range ps {
			if len(r.Violations(ps[i])) == 0 {
				r.Best = &ps[i]
				break
			}
		}
		for lib := range r.System {
			slices.Sort(r.System[lib])
			r.System[lib] = slices.Compact(r.System[lib])
		}
		for lib, vs := range r.Versioned {
			slices.SortFunc(vs, compareVersions)
			r.Versioned[lib] = slices.Compact(vs)
		}
		r.externals(in)
		sort.Slice(r.Needs, func(i, j int) bool { return r.Needs[i].Version < r.Needs[j].Version })
		out = append(out, r)
	}
	return out
}

// loader reports whether a DT_NEEDED names the dynamic loader, which no
// policy lists (auditwheel leaves it out too).
func loader(name string) bool {
	return strings.HasPrefix(name, "ld-linux") || strings.HasPrefix(name, "ld-musl") || name == "ld64.so.1" || name == "ld64.so.2"
}

func (r *Result) add(o *elfobj.Object, resolve func(*elfobj.Object, []*elfobj.Object, string) Dep) {
	system := map[string]bool{}
	for _, n := range o.Needed {
		if loader(n) || resolve(o, nil, n).Shipped {
			continue
		}
		system[n] = true
		r.System[n] = append(r.System[n], o.Path)
		if strings.HasPrefix(n, "libc.musl-") {
			r.Libc = Musl
		}
	}
	seen := map[string]bool{}
	for _, n := range r.Needs {
		seen[n.Version] = true
	}
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Section() != elf.SHN_UNDEF || s.Name == "" {
			continue
		}
		if s.Version() != "" && s.Library() != "" && !loader(s.Library()) {
			r.Versioned[s.Library()] = append(r.Versioned[s.Library()], s.Version())
		}
		if s.Version() != "" && system[s.Library()] && !seen[s.Version()] {
			seen[s.Version()] = true
			r.Needs = append(r.Needs, Need{Version: s.Version(), Library: s.Library(), Object: o.Path, Symbol: s.Name})
		}
		if forbiddenAnywhere()[s.Name] {
			for lib := range system {
				r.uses = append(r.uses, Need{Library: lib, Object: o.Path, Symbol: s.Name})
			}
		}
	}
}

// forbiddenAnywhere is every symbol some policy forbids.
var forbiddenAnywhere = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, lt := range tables {
		for _, p := range lt.policies {
			for _, b := range p.blacklist {
				for _, s := range b.symbols {
					names[s] = true
				}
			}
		}
	}
	return names
})

// Violations says why the objects do not satisfy p, one line a cause:
// a symbol version beyond it, a library it does not allow from the
// system, a symbol it forbids; none when they satisfy it.
func (r *Result) Violations(p Policy) []string {
	var out []string
	for _, n := range r.Needs {
		ns, _, _ := strings.Cut(n.Version, "_")
		if allowed, ok := p.Versions[ns]; ok && !allowed[n.Version] {
			out = append(out, fmt.Sprintf("%s from %s (%s needs it for %s)", n.Version, n.Library, path.Base(n.Object), n.Symbol))
		}
	}
	libs := make([]string, 0, len(r.System))
	for lib := range r.System {
		libs = append(libs, lib)
	}
	slices.Sort(libs)
	for _, lib := range libs {
		if !p.Libraries[lib] {
			out = append(out, fmt.Sprintf("%s from the system, which %s does not allow (needed by %s)", lib, p.Name, path.Base(r.System[lib][0])))
		}
	}
	for _, u := range r.uses {
		if p.Forbidden[u.Library][u.Symbol] {
			out = append(out, fmt.Sprintf("%s of %s, which %s forbids (used by %s)", u.Symbol, u.Library, p.Name, path.Base(u.Object)))
		}
	}
	return out
}

// Newest are the newest of versions in each namespace, by namespace, for
// a summary: GLIBC_2.34, GLIBCXX_3.4.30.
func Newest(versions []string) []string {
	best := map[string]string{}
	for _, v := range versions {
		ns, _, _ := strings.Cut(v, "_")
		if cur, ok := best[ns]; !ok || versionLess(cur, v) {
			best[ns] = v
		}
	}
	out := make([]string, 0, len(best))
	for _, v := range best {
		out = append(out, v)
	}
	slices.SortFunc(out, compareVersions)
	return out
}

// Versions are the names of the versions needed.
func (r *Result) Versions() []string {
	out := make([]string, len(r.Needs))
	for i, n := range r.Needs {
		out[i] = n.Version
	}
	return out
}

// versionLess compares version names of one namespace numerically:
// GLIBC_2.9 < GLIBC_2.17, DM_1_02_97 < DM_1_02_100 (the components after
// the namespace split at '.' and '_'), a component's leading number first
// and the rest as a string (ALSA_0.9.0 < ALSA_0.9.0rc4 < ALSA_0.9.0rc8),
// a name that is a prefix of the other, component by component, first. It
// sorts every version a wheel's objects need: no allocation.
func versionLess(a, b string) bool {
	_, av, _ := strings.Cut(a, "_")
	_, bv, _ := strings.Cut(b, "_")
	for {
		x, arest, amore := cutComponent(av)
		y, brest, bmore := cutComponent(bv)
		if x != y {
			return componentLess(x, y)
		}
		if !amore || !bmore {
			return !amore && bmore
		}
		av, bv = arest, brest
	}
}

// cutComponent cuts v at its first '.' or '_'.
func cutComponent(v string) (c, rest string, more bool) {
	if i := strings.IndexAny(v, "._"); i >= 0 {
		return v[:i], v[i+1:], true
	}
	return v, "", false
}

// componentLess orders two components by their leading numbers, then the
// rest; as strings when either has none.
func componentLess(x, y string) bool {
	xn, xr := leadingNumber(x)
	yn, yr := leadingNumber(y)
	if xn == "" || yn == "" {
		return x < y
	}
	if xn != yn {
		return len(xn) < len(yn) || len(xn) == len(yn) && xn < yn
	}
	return xr < yr
}

// leadingNumber splits the digits c begins with, leading zeros dropped
// (at least one digit kept), from the rest.
func leadingNumber(c string) (n, rest string) {
	i := 0
	for i < len(c) && '0' <= c[i] && c[i] <= '9' {
		i++
	}
	n = strings.TrimLeft(c[:i], "0")
	if n == "" && i > 0 {
		n = "0"
	}
	return n, c[i:]
}

// Tag is the platform tag the objects are consistent with: the best
// policy's name, or linux_ARCH.
func (r *Result) Tag() string {
	if r.Best == nil {
		return "linux_" + r.Arch
	}
	return r.Best.Name
}

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

// Input is what a verdict is made from: the package's objects, and for
// each DT_NEEDED of one, whether the library it resolves to is the
// package's own.
type Input struct {
	Objects []*elfobj.Object
	Shipped func(o *elfobj.Object, needed string) bool
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
			r = &Result{Arch: arch, Libc: Glibc, System: map[string][]string{}}
			byArch[arch] = r
			order = append(order, arch)
		}
		r.add(o, in.Shipped)
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

func (r *Result) add(o *elfobj.Object, shipped func(*elfobj.Object, string) bool) {
	system := map[string]bool{}
	for _, n := range o.Needed {
		if loader(n) || shipped(o, n) {
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

// Newest are the versions needed, the newest of each namespace first
// seen, for a summary: GLIBC_2.34, GLIBCXX_3.4.30.
func (r *Result) Newest() []Need {
	best := map[string]Need{}
	var order []string
	for _, n := range r.Needs {
		ns, _, _ := strings.Cut(n.Version, "_")
		cur, ok := best[ns]
		if !ok {
			order = append(order, ns)
		}
		if !ok || versionLess(cur.Version, n.Version) {
			best[ns] = n
		}
	}
	slices.Sort(order)
	out := make([]Need, len(order))
	for i, ns := range order {
		out[i] = best[ns]
	}
	return out
}

// versionLess compares version names numerically: GLIBC_2.9 < GLIBC_2.17.
func versionLess(a, b string) bool {
	_, av, _ := strings.Cut(a, "_")
	_, bv, _ := strings.Cut(b, "_")
	as, bs := strings.Split(av, "."), strings.Split(bv, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		var x, y int
		_, errx := fmt.Sscan(as[i], &x)
		_, erry := fmt.Sscan(bs[i], &y)
		if errx != nil || erry != nil {
			return as[i] < bs[i]
		}
		return x < y
	}
	return len(as) < len(bs)
}

// Tag is the platform tag the objects are consistent with: the best
// policy's name, or linux_ARCH.
func (r *Result) Tag() string {
	if r.Best == nil {
		return "linux_" + r.Arch
	}
	return r.Best.Name
}

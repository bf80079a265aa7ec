package policy

import (
	"cmp"
	"slices"
	"strings"

	"github.com/etlink/etlink/elfobj"
)

// externals finds, for each policy, the libraries of the system the
// objects need that it does not allow, and through them the libraries
// those need, as auditwheel does (lddtree_external_references): a library
// the policy allows is not walked through, a library of the package is not
// external (its own needs are the objects'). The most compatible policy
// allows the fewest (each newer one allows what the older ones do), so its
// walk meets every external library first; each library then carries the
// policies whose walk meets it.
func (r *Result) externals(in Input) {
	byName := map[string]*External{}
	for _, p := range r.Policies {
		for _, e := range r.walk(p, in.Resolve, byName) {
			e.Breaks = append(e.Breaks, p.Name)
		}
	}
	for _, e := range byName {
		r.External = append(r.External, e)
		if e.Object == nil || in.VersionNeeds == nil {
			continue
		}
		needs, err := in.VersionNeeds(e.Object)
		e.Err = err
		for _, n := range needs {
			if !loader(n.Library) {
				slices.SortFunc(n.Versions, compareVersions)
				e.Needs = append(e.Needs, n)
			}
		}
	}
	slices.SortFunc(r.External, func(a, b *External) int { return strings.Compare(a.Soname, b.Soname) })
}

// walk is one policy's external libraries, breadth first from the
// objects; a library met for the first time is added to byName.
func (r *Result) walk(p Policy, resolve func(*elfobj.Object, []*elfobj.Object, string) Dep, byName map[string]*External) []*External {
	type step struct {
		o     *elfobj.Object
		chain []*elfobj.Object // o's loaders, nearest first
		ext   *External        // o as an external library; nil for the package's
	}
	queue := make([]step, 0, len(r.objects))
	for _, o := range r.objects {
		queue = append(queue, step{o: o})
	}
	seen := map[string]bool{}
	var out []*External
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range s.o.Needed {
			if loader(n) || p.Libraries[n] || seen[n] {
				continue
			}
			dep := resolve(s.o, s.chain, n)
			if dep.Shipped {
				continue
			}
			seen[n] = true
			e := byName[n]
			if e == nil {
				e = &External{Soname: n, Object: dep.Object, NeededBy: s.o}
				if s.ext != nil {
					e.Through = s.ext.Soname
				}
				byName[n] = e
			}
			out = append(out, e)
			if dep.Object != nil {
				queue = append(queue, step{o: dep.Object, chain: append([]*elfobj.Object{s.o}, s.chain...), ext: e})
			}
		}
	}
	return out
}

// compareVersions orders version names by namespace, then numerically:
// CXXABI_1.3 < GLIBC_2.2.5 < GLIBC_2.17.
func compareVersions(a, b string) int {
	na, _, _ := strings.Cut(a, "_")
	nb, _, _ := strings.Cut(b, "_")
	if c := cmp.Compare(na, nb); c != 0 {
		return c
	}
	switch {
	case versionLess(a, b):
		return -1
	case versionLess(b, a):
		return 1
	}
	return 0
}

// SymbolTag is what auditwheel calls the symbol policy (sym_tag): the most
// compatible policy whose symbol versions cover what the objects need and,
// for each policy, what the external libraries it does not allow need, no
// more compatible than that policy. It is the tag auditwheel repair can
// reach by grafting those libraries into the wheel; linux_ARCH when none.
func (r *Result) SymbolTag() string {
	best := -1 // an index of r.Policies, the most compatible first
	for i, p := range r.Policies {
		vs := r.Versions()
		for _, e := range r.External {
			if slices.Contains(e.Breaks, p.Name) {
				for _, n := range e.Needs {
					vs = append(vs, n.Versions...)
				}
			}
		}
		k := slices.IndexFunc(r.Policies, func(q Policy) bool { return covers(q, vs) })
		if k >= 0 && (best < 0 || max(i, k) < best) {
			best = max(i, k)
		}
	}
	if best < 0 {
		return "linux_" + r.Arch
	}
	return r.Policies[best].Name
}

// covers reports whether p allows every version of vs in a namespace it
// lists (a namespace it does not list, a library's own, constrains
// nothing).
func covers(p Policy, vs []string) bool {
	for _, v := range vs {
		ns, _, _ := strings.Cut(v, "_")
		if allowed, ok := p.Versions[ns]; ok && !allowed[v] {
			return false
		}
	}
	return true
}

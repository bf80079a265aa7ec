package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/policy"
)

// ET406 finds wheels whose manylinux or musllinux tag claims more than
// their objects satisfy.
var ET406 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET406",
		Name:     "platform-policy",
		Severity: finding.Error,
		Summary:  "the wheel's manylinux/musllinux tag claims older systems than its libraries run on",
		Why: `A manylinux_2_17 tag tells pip the wheel runs on any glibc 2.17 or newer. A library
built on a newer system records the newest symbol versions it was linked against
(GLIBC_2.34 for pthread_create on glibc 2.34+, GLIBCXX_3.4.30 ...); on an older system
the import fails with "version 'GLIBC_2.34' not found". So does a library needed from
the system that the policy does not promise (libffi, libssl): it may be absent. The
policies (PEP 513, 599, 600, 656) list the versions and libraries each tag allows;
auditwheel show computes the same verdict.`,
		Fix: `Build the wheel in the manylinux image of the tag you claim (quay.io/pypa/manylinux2014,
manylinux_2_28 ...) so it links against that glibc, then let auditwheel repair graft the
libraries the policy does not allow; or claim the tag the wheel is consistent with.`,
		Before: `executorch-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
  libexecutorch.so needs GLIBC_2.34 (pthread_create)`,
		After: `executorch-1.0-cp311-cp311-manylinux_2_34_x86_64.whl
  (or built in manylinux2014: libexecutorch.so needs GLIBC_2.17 at most)`,
	},
	Check: checkPlatform,
}

// Platforms makes the platform verdicts of a package: which policy its
// objects of each architecture satisfy, judged with the loader's search of
// the installed tree (a library is the package's own when that search
// finds one of its files), and the libraries of the system they need that
// a policy does not allow. A library the installed tree would not find
// (ET402) is looked for as the build machine's search finds it, as
// auditwheel looks for it: there auditwheel repair would graft it from,
// and what it needs in turn is external too.
func Platforms(pkg *analyze.Package, installed, build *analyze.Loader) []*policy.Result {
	shipped := map[*elfobj.Object]bool{}
	for _, o := range pkg.Objects {
		shipped[o] = true
	}
	return policy.Analyze(policy.Input{Objects: pkg.Objects,
		Resolve: func(o *elfobj.Object, chain []*elfobj.Object, name string) policy.Dep {
			res := installed.Resolve(o, chain, name)
			if res.Object == nil {
				res = build.Resolve(o, chain, name)
			}
			return policy.Dep{Object: res.Object, Shipped: res.Object != nil && shipped[res.Object]}
		},
		VersionNeeds: elfobj.ReadVersionNeeds,
	})
}

// PlatformReport is a verdict as the report says it.
func PlatformReport(r *policy.Result, tags []string) finding.Platform {
	p := finding.Platform{Arch: r.Arch, Libc: string(r.Libc), ConsistentWith: r.Tag(), Tags: archTags(tags, r.Arch),
		Needs: policy.Newest(r.Versions()), SymbolTag: r.SymbolTag()}
	for lib := range r.System {
		p.System = append(p.System, lib)
	}
	slices.Sort(p.System)
	if len(r.Versioned) > 0 {
		p.Versioned = r.Versioned
	}
	for _, e := range r.External {
		p.External = append(p.External, externalReport(r, e))
	}
	// What keeps it from the next more compatible policy.
	next := len(r.Policies) - 1
	if r.Best != nil {
		next = slices.IndexFunc(r.Policies, func(q policy.Policy) bool { return q.Name == r.Best.Name }) - 1
	}
	if next >= 0 {
		p.Next = r.Policies[next].Name
		v := r.Violations(r.Policies[next])
		if r.Best == nil {
			// No policy holds: say what no policy allows, not the newest
			// policy's name (which reads as if its glibc were needed).
			family := "manylinux"
			if r.Libc == policy.Musl {
				family = "musllinux"
			}
			p.Next = "any " + family + " tag"
			for i, s := range v {
				s = strings.ReplaceAll(s, "which "+r.Policies[next].Name+" does not allow", "which no "+family+" policy allows")
				v[i] = strings.ReplaceAll(s, "which "+r.Policies[next].Name+" forbids", "which every "+family+" policy forbids")
			}
		}
		p.Blockers = v[:min(len(v), 3)]
		if len(v) > 3 {
			p.Blockers = append(p.Blockers, fmt.Sprintf("and %d more", len(v)-3))
		}
	}
	return p
}

// externalReport is an external library as the report says it.
func externalReport(r *policy.Result, e *policy.External) finding.ExternalLibrary {
	x := finding.ExternalLibrary{Soname: e.Soname, NeededBy: e.NeededBy.Path, Through: e.Through, Breaks: e.Breaks}
	if e.Object != nil {
		x.Path = e.Object.Path
	}
	if e.Err != nil {
		x.Error = e.Err.Error()
	}
	var all []string
	for _, n := range e.Needs {
		if x.Versioned == nil {
			x.Versioned = map[string][]string{}
		}
		x.Versioned[n.Library] = n.Versions
		all = append(all, n.Versions...)
	}
	x.Needs = policy.Newest(all)
	if i := slices.IndexFunc(r.Policies, func(q policy.Policy) bool { return !slices.Contains(e.Breaks, q.Name) }); i >= 0 {
		x.AllowedFrom = r.Policies[i].Name
	}
	return x
}

// archTags are the tags of tags for arch.
func archTags(tags []string, arch string) []string {
	var out []string
	for _, t := range tags {
		if pt, ok := policy.ParseTag(t); ok && pt.Arch == arch {
			out = append(out, t)
		}
	}
	return out
}

func checkPlatform(r *Rule, ctx *Context) []finding.Finding {
	pkg := ctx.Package
	if pkg == nil || !pkg.Wheel {
		return nil
	}
	var out []finding.Finding
	for _, res := range ctx.Platforms {
		for _, text := range archTags(pkg.Platforms, res.Arch) {
			tag, _ := policy.ParseTag(text)
			if f, ok := tagFinding(r, pkg, res, tag); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

// tagFinding judges one tag of the wheel against the verdict on its
// objects.
func tagFinding(r *Rule, pkg *analyze.Package, res *policy.Result, tag policy.Tag) (finding.Finding, bool) {
	subj := finding.Subject{File: pkg.Path, Target: tag.Text}
	consistent := "consistent with " + res.Tag()
	switch {
	case tag.Libc == "":
		f := r.newFinding(finding.Note, subj, fmt.Sprintf("tagged %s, which PyPI does not accept; the objects are %s", tag.Text, consistent))
		f.Fix = "Repair the wheel with auditwheel repair, which gives it the manylinux tag it is consistent with."
		return f, true
	case tag.Libc != res.Libc && len(res.System) == 0:
		// Objects that need no library from the system (static programs,
		// such as etlink's own wheels) run on either C library.
		return finding.Finding{}, false
	case tag.Libc != res.Libc:
		f := r.newFinding(r.Severity, subj, fmt.Sprintf("tagged %s, but its objects need %s's C library", tag.Text, res.Libc))
		f.Fix = r.Fix
		return f, true
	}
	claimed, ok := policy.Claimed(tag, res.Policies)
	if !ok {
		f := r.newFinding(r.Severity, subj, fmt.Sprintf("tagged %s, older than any %s policy: nothing is known to run there", tag.Text, res.Libc))
		f.Fix = r.Fix
		return f, true
	}
	why := res.Violations(claimed)
	if len(why) == 0 {
		if res.Libc == policy.Musl {
			f := r.newFinding(finding.Note, subj, fmt.Sprintf("tagged %s: its libraries are all the policy allows; musl records no symbol versions, so the musl version it needs cannot be told from the files", tag.Text))
			return f, true
		}
		return finding.Finding{}, false
	}
	f := r.newFinding(r.Severity, subj, fmt.Sprintf("tagged %s, but needs %s: %s", tag.Text, firstCause(why), consistent))
	if claimed.Name != tag.Text && !slices.Contains(claimed.Aliases, tag.Text) {
		f.Evidence = append(f.Evidence, finding.Step{Text: fmt.Sprintf("%s is held to %s, the newest policy not newer than it", tag.Text, claimed.Name)})
	}
	for _, w := range why {
		f.Evidence = append(f.Evidence, finding.Step{Text: w, File: pkg.Path})
	}
	f.Fix = r.Fix
	return f, true
}

// firstCause is the first violation, shortened to its subject (GLIBC_2.34
// from libc.so.6), with a count of the rest.
func firstCause(why []string) string {
	first, _, _ := strings.Cut(why[0], " (")
	if len(why) > 1 {
		first += fmt.Sprintf(" and %d more", len(why)-1)
	}
	return first
}

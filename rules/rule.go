// Package rules is etlink's rule catalogue and user configuration. A rule is
// a plain value: a stable ID, a name, a default severity, its documentation
// (what, why it breaks at run time, how to fix, a before/after example) and a
// Check that reads an analyze.Build and returns findings. The catalogue is the
// explicit list All returns.
package rules

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/policy"
)

// Rule is one check of the catalogue: its documentation and its check.
type Rule struct {
	finding.RuleDoc
	// Check reads the build and returns the rule's findings; it is passed
	// its own rule so that the findings carry the rule's ID, name and fix.
	Check func(r *Rule, ctx *Context) []finding.Finding
}

// Docs is the catalogue's documentation, in ID order.
func Docs() []finding.RuleDoc {
	var out []finding.RuleDoc
	for _, r := range All() {
		out = append(out, r.RuleDoc)
	}
	return out
}

// Context is what a rule's Check reads.
type Context struct {
	// Build is the wheel and its peer, for the symbol rules.
	Build *analyze.Build
	// Retention holds one LinkFacts per link, for the retention rules.
	Retention []*analyze.LinkFacts
	// Package is what a wheel or directory ships, for the release checks;
	// Relocated finds libraries as the installed tree would (ET402).
	Package   *analyze.Package
	Relocated *analyze.Loader
	// Platforms are the platform verdicts on Package (ET406).
	Platforms []*policy.Result
	// CMake is the evaluated project, for the source-level rules, and
	// Suppressions its inline ignore directives.
	CMake        *cmake.Project
	Suppressions []*Suppression
	Config       *Config
	Components   *demangle.Components
	// Roots are the inputs as the user named them (a directory, a wheel, a
	// file): a finding's file is fingerprinted by its path below the root
	// that holds it, so a baseline holds wherever the package is unpacked.
	Roots []string

	once     sync.Once
	patterns *analyze.Patterns // registration functions, read from Config once
}

// All returns the catalogue in ID order.
func All() []*Rule {
	all := []*Rule{ET001, ET002, ET003, ET004, ET101, ET102, ET103, ET104, ET201, ET202, ET203, ET204, ET301, ET302, ET401, ET402, ET403, ET404, ET405, ET406, ET407}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all
}

// ByID finds a rule by ID or name, case-insensitively.
func ByID(id string) *Rule {
	for _, r := range All() {
		if strings.EqualFold(r.ID, id) || strings.EqualFold(r.Name, id) {
			return r
		}
	}
	return nil
}

// Run checks ctx with rules and returns their findings, fingerprinted and
// sorted by severity (highest first), rule, component, symbol and file. A
// fact two rules find is said once (saidOnce), before inline ignores drop
// the findings they cover: with ctx.Suppressions (lint, which parsed the
// project) malformed (ET001) and unused (ET002) directives are reported
// too; without, the directives of the CMake files findings point at still
// apply. Lines from a stale or contradicted File API reply are marked
// unverified (markUnverified).
func Run(ctx *Context, rules []*Rule) []finding.Finding {
	var out []finding.Finding
	for _, r := range rules {
		out = append(out, r.Check(r, ctx)...)
	}
	out = saidOnce(out)
	if ctx.Suppressions != nil {
		// Directives apply to the findings above; then say which were
		// malformed or silenced nothing.
		out = suppress(out, ctx.Suppressions)
		for _, r := range []*Rule{ET001, ET002} {
			out = append(out, r.Check(r, ctx)...)
		}
	} else {
		out = suppress(out, suppressionsAt(out))
	}
	markUnverified(out, ctx.Retention)
	wd, _ := os.Getwd()
	roots := absRoots(ctx.Roots)
	each(len(out), func(i int, _ []finding.Finding) []finding.Finding {
		subj := out[i].Subject
		subj.File = stablePath(subj.File, roots, wd)
		out[i].Fingerprint = finding.Fingerprint(out[i].Rule, subj)
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Subject.Component != b.Subject.Component {
			return a.Subject.Component < b.Subject.Component
		}
		if a.Subject.Symbol != b.Subject.Symbol {
			return a.Subject.Symbol < b.Subject.Symbol
		}
		return a.Subject.File < b.Subject.File
	})
	return out
}

// each calls fn for 0..n-1 on every core and returns what the calls
// appended, in index order. A torch conflict report has thousands of
// findings, each demangled and hashed: the rules' share of a check is then
// worth spreading over the cores. Workers take chunks of indices as they
// finish the last: costs are uneven and sorted together (the mangled C++
// names, slow to demangle, sort before the C ones), so halves fixed in
// advance would leave one core idle.
func each(n int, fn func(i int, out []finding.Finding) []finding.Finding) []finding.Finding {
	const chunk = 16
	parts := make([][]finding.Finding, (n+chunk-1)/chunk)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for c := int(next.Add(1) - 1); c < len(parts); c = int(next.Add(1) - 1) {
				for i := c * chunk; i < min(n, (c+1)*chunk); i++ {
					parts[c] = fn(i, parts[c])
				}
			}
		})
	}
	wg.Wait()
	return slices.Concat(parts...)
}

// newFinding fills the fields every finding of r shares.
func (r *Rule) newFinding(sev finding.Severity, subj finding.Subject, msg string) finding.Finding {
	return finding.Finding{Rule: r.ID, Name: r.Name, Severity: sev, Subject: subj, Message: msg}
}

// stablePath is the part of a subject's path that names the same file on
// every machine and however the input was typed: a wheel entry's name
// inside the wheel; below an input directory, the directory's own name and
// the path under it (loc1/PIL/_imaging.so and PIL/_imaging.so are both
// PIL/_imaging.so); an input file's name; else the path relative to the
// working directory.
func stablePath(p string, roots []string, wd string) string {
	if i := strings.LastIndex(p, "!"); i >= 0 {
		return p[i+1:]
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if rel, ok := finding.UnderRoot(abs, roots); ok {
		return rel
	}
	if rel, err := filepath.Rel(wd, abs); wd != "" && err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// absRoots makes the inputs absolute, as stablePath compares them.
func absRoots(paths []string) []string {
	var out []string
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	return out
}

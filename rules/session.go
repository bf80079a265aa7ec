package rules

import (
	"slices"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
)

// The rules each command runs.
var (
	// ConflictsRules read a session's Build.
	ConflictsRules = []*Rule{ET301, ET302}
	// RetentionRules read LinkFacts.
	RetentionRules = []*Rule{ET003, ET004, ET101, ET102, ET103, ET104, ET201}
	// LintRules read the CMake project (RunLint adds RetentionRules for a
	// build directory's links).
	LintRules = []*Rule{ET202, ET204}
)

// RunLint runs lint's rules on ctx: LintRules, and RetentionRules when ctx
// has links.
func RunLint(ctx *Context) []finding.Finding {
	checks := LintRules
	if ctx.Retention != nil {
		checks = append(slices.Clip(checks), RetentionRules...)
	}
	return Run(ctx, checks)
}

// saidOnce drops the findings another rule already makes of the same
// fact: an ET201 finding (an extension's link line names libpython) that
// an ET202 finding from CMake's codemodel reports for the same target at
// the same CMakeLists.txt line is said by the rule a CMake lint is about.
// It runs before suppression, so that ignoring ET202 there does not
// uncover ET201 for the same cause.
func saidOnce(fs []finding.Finding) []finding.Finding {
	type key struct {
		target string
		loc    finding.Location
	}
	said := map[key]bool{}
	for _, f := range fs {
		if f.Rule == ET202.ID && f.Location != nil {
			said[key{f.Subject.Target, *f.Location}] = true
		}
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Rule == ET201.ID && f.Location != nil && said[key{f.Subject.Target, *f.Location}] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// NewLintContext is the rules' view of a lint session.
func NewLintContext(s *analyze.LintSession, cfg *Config, roots []string) *Context {
	ctx := &Context{Config: cfg, Suppressions: []*Suppression{}, Roots: roots, CMake: s.Project, Retention: s.Retention}
	if s.Project != nil {
		ctx.Suppressions = Suppressions(s.Project.Files)
	}
	return ctx
}

// CheckRules are the release checks; ET301 only with a peer.
func CheckRules(withPeer bool) []*Rule {
	rs := []*Rule{ET201, ET203, ET302, ET401, ET402, ET403, ET404, ET405, ET406, ET407}
	if withPeer {
		rs = append(rs, ET301)
	}
	return rs
}

// NewContext is the rules' view of a session (analyze.Open): its build, and
// with a package its platform verdicts. roots are the inputs as the user
// named them.
func NewContext(s *analyze.Session, cfg *Config, roots []string) (*Context, error) {
	comps, err := cfg.ComponentTable()
	if err != nil {
		return nil, err
	}
	ctx := &Context{Build: s.Build, Config: cfg, Components: comps, Roots: roots,
		Package: s.Package, Relocated: s.Relocated}
	if s.Package != nil {
		ctx.Platforms = Platforms(s.Package, s.Relocated, s.Build.Loader)
	}
	return ctx, nil
}

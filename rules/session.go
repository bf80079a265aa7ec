package rules

import "github.com/etlink/etlink/analyze"

// The rules each command runs.
var (
	// ConflictsRules read a session's Build.
	ConflictsRules = []*Rule{ET301, ET302}
	// RetentionRules read LinkFacts.
	RetentionRules = []*Rule{ET101, ET102, ET103, ET201}
	// LintRules read the CMake project (and, given a build directory,
	// RetentionRules its links).
	LintRules = []*Rule{ET202}
)

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
		if ctx.Platforms, err = Platforms(s.Package, s.Relocated); err != nil {
			return nil, err
		}
	}
	return ctx, nil
}

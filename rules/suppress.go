package rules

import (
	"fmt"
	"strings"

	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/finding"
)

// Suppression is an inline ignore in CMake: `# etlink: ignore ET202 reason`.
// It silences findings of that rule located on its own line or the next.
type Suppression struct {
	File   string
	Line   int
	Rule   string
	Reason string
	// Problem says why the directive is malformed ("" when it is not).
	Problem string
	used    bool
}

// Suppressions reads the ignore directives in the project's list files.
func Suppressions(files []*cmake.File) []*Suppression {
	var out []*Suppression
	for _, f := range files {
		for _, c := range f.Comments {
			text := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c.Text), "#"))
			rest, ok := strings.CutPrefix(text, "etlink:")
			if !ok {
				continue
			}
			s := &Suppression{File: f.Path, Line: c.Line}
			fields := strings.Fields(rest)
			switch {
			case len(fields) == 0 || fields[0] != "ignore":
				s.Problem = "an etlink directive must read `etlink: ignore RULE reason`"
			case len(fields) < 2 || ByID(fields[1]) == nil:
				s.Problem = "`etlink: ignore` must name a rule of the catalogue (etlink rules)"
			case len(fields) < 3:
				s.Rule, s.Problem = ByID(fields[1]).ID, "`etlink: ignore "+fields[1]+"` must give a reason"
			default:
				s.Rule, s.Reason = ByID(fields[1]).ID, strings.Join(fields[2:], " ")
			}
			out = append(out, s)
		}
	}
	return out
}

// suppress drops the findings a well-formed directive covers and marks the
// directives used.
func suppress(fs []finding.Finding, sups []*Suppression) []finding.Finding {
	kept := fs[:0]
	for _, f := range fs {
		if s := covering(f, sups); s != nil {
			s.used = true
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

func covering(f finding.Finding, sups []*Suppression) *Suppression {
	if f.Location == nil {
		return nil
	}
	for _, s := range sups {
		if s.Problem == "" && s.Rule == f.Rule && s.File == f.Location.File &&
			(f.Location.Line == s.Line || f.Location.Line == s.Line+1) {
			return s
		}
	}
	return nil
}

// ET001 reports malformed ignore directives.
var ET001 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET001",
		Name:     "invalid-suppression",
		Severity: finding.Warning,
		Summary:  "an `# etlink: ignore` directive that names no known rule or gives no reason",
		Why: `A suppression must say what it silences and why, so that a reviewer can judge it later.
One that names no rule silences nothing; one with no reason hides a decision.`,
		Fix:    "Write `# etlink: ignore ET202 why this is acceptable` on the line of the finding or the line above.",
		Before: "target_link_libraries(ext PRIVATE Python3::Python)  # etlink: ignore",
		After:  "target_link_libraries(ext PRIVATE Python3::Python)  # etlink: ignore ET202 test-only embedding shim",
	},
	Check: func(r *Rule, ctx *Context) []finding.Finding {
		var out []finding.Finding
		for _, s := range ctx.Suppressions {
			if s.Problem == "" {
				continue
			}
			f := r.newFinding(r.Severity, finding.Subject{File: s.File, Symbol: fmt.Sprintf("line %d", s.Line)}, s.Problem)
			f.Location = &finding.Location{File: s.File, Line: s.Line}
			f.Fix = r.Fix
			out = append(out, f)
		}
		return out
	},
}

// ET002 reports ignore directives that matched nothing.
var ET002 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET002",
		Name:     "unused-suppression",
		Severity: finding.Note,
		Summary:  "an `# etlink: ignore` directive that silenced no finding",
		Why: `A suppression left behind after its finding was fixed (or moved) would silently hide the
next real finding on that line.`,
		Fix:    "Delete the directive, or move it next to the finding it is meant for.",
		Before: "# etlink: ignore ET202 old shim, since removed\ntarget_link_libraries(ext PRIVATE Python3::Module)",
		After:  "target_link_libraries(ext PRIVATE Python3::Module)",
	},
	Check: func(r *Rule, ctx *Context) []finding.Finding {
		var out []finding.Finding
		for _, s := range ctx.Suppressions {
			if s.Problem != "" || s.used {
				continue
			}
			f := r.newFinding(r.Severity, finding.Subject{File: s.File, Symbol: fmt.Sprintf("line %d", s.Line)},
				fmt.Sprintf("`etlink: ignore %s` silenced nothing", s.Rule))
			f.Location = &finding.Location{File: s.File, Line: s.Line}
			f.Fix = r.Fix
			out = append(out, f)
		}
		return out
	},
}

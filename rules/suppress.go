package rules

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
)

// Suppression is an inline ignore in CMake: `# etlink: ignore ET202 reason`,
// or several rules at once (`ET101,ET202` or `ET101 ET202`). It silences
// findings of those rules located on its own line or the next, in every
// command that locates a finding there (lint, retention, why's findings).
type Suppression struct {
	File   string
	Line   int
	Rules  []string
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
			out = append(out, directive(f.Path, c.Line, rest))
		}
	}
	return out
}

// directive reads one `etlink:` comment's text after the prefix.
func directive(file string, line int, text string) *Suppression {
	s := &Suppression{File: file, Line: line}
	fields := strings.Fields(strings.ReplaceAll(text, ",", ", "))
	if len(fields) == 0 || fields[0] != "ignore" {
		s.Problem = "an etlink directive must read `etlink: ignore RULE reason`"
		return s
	}
	rest := fields[1:]
	listed := false // the word before ended with a comma: a rule must follow
	for len(rest) > 0 {
		id, comma := strings.CutSuffix(rest[0], ",")
		r := ByID(id)
		if r == nil {
			if listed {
				s.Rules, s.Problem = nil, fmt.Sprintf("`etlink: ignore` must name rules of the catalogue (etlink rules); %q is none", id)
				return s
			}
			break
		}
		s.Rules, rest, listed = append(s.Rules, r.ID), rest[1:], comma
	}
	switch {
	case len(s.Rules) == 0:
		s.Problem = "`etlink: ignore` must name a rule of the catalogue (etlink rules)"
	case len(rest) == 0:
		s.Rules, s.Problem = nil, "`etlink: ignore "+strings.Join(s.Rules, ",")+"` must give a reason"
	default:
		s.Reason = strings.Join(rest, " ")
	}
	return s
}

// suppressionsAt reads the directives of the CMake files the findings are
// located in: the commands other than lint parse no project, but their
// findings point at CMakeLists.txt lines all the same. A file that cannot
// be read has none.
func suppressionsAt(fs []finding.Finding) []*Suppression {
	var out []*Suppression
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Location == nil || seen[f.Location.File] || !isCMakeFile(f.Location.File) {
			continue
		}
		seen[f.Location.File] = true
		src, err := datafile.ReadFile(f.Location.File, cmake.MaxFileSize)
		if err != nil {
			continue
		}
		if cf, err := cmake.Parse(f.Location.File, src); err == nil {
			out = append(out, Suppressions([]*cmake.File{cf})...)
		}
	}
	return out
}

// isCMakeFile reports a CMake list file or module by its name.
func isCMakeFile(p string) bool {
	base := filepath.Base(p)
	return base == "CMakeLists.txt" || strings.HasSuffix(base, ".cmake")
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
		if s.Problem == "" && slices.Contains(s.Rules, f.Rule) && s.File == f.Location.File &&
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
				fmt.Sprintf("`etlink: ignore %s` silenced nothing", strings.Join(s.Rules, ",")))
			f.Location = &finding.Location{File: s.File, Line: s.Line}
			f.Fix = r.Fix
			out = append(out, f)
		}
		return out
	},
}

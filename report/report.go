// Package report renders a finding.Report: text for people (tables), JSON for
// machines, SARIF 2.1.0 for code scanning, GitHub workflow annotations for
// pull requests; and it keeps baselines of accepted findings. Renderers read
// only the finding wire types, so a saved JSON report renders the same as a
// fresh one.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/etlink/etlink/finding"
)

// Formats lists the output formats Write accepts.
var Formats = []string{"text", "json", "sarif", "github"}

// Options tune the renderers.
type Options struct {
	// Verbose prints each finding's evidence chain and fix (text, github).
	Verbose bool
	// Docs maps rule IDs to their one-line summary and fix, printed once per rule (text).
	Docs map[string]RuleDoc
	// Rules is the rule catalogue, described in SARIF's tool.driver.rules.
	Rules []RuleInfo
	// BaseDir is the directory that paths are written relative to: SARIF's
	// %SRCROOT% (empty: paths as given) and the GitHub workspace (empty:
	// $GITHUB_WORKSPACE, else the current directory).
	BaseDir string
}

// RuleDoc is what the text report says once per rule.
type RuleDoc struct {
	Summary string
	Fix     string
}

// Write renders r in format to w.
func Write(w io.Writer, format string, r *finding.Report, opt Options) error {
	switch format {
	case "text":
		return Text(w, r, opt)
	case "json":
		return JSON(w, r)
	case "sarif":
		return SARIF(w, r, opt)
	case "github":
		return GitHub(w, r, opt)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// JSON writes the report as indented JSON (schema in package finding).
func JSON(w io.Writer, r *finding.Report) error {
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	if r.Inputs == nil {
		r.Inputs = []finding.Input{}
	}
	head := *r
	head.Findings = []finding.Finding{}
	return EncodeJSON(w, &head, "findings", r.Findings)
}

// Text writes findings grouped by rule, then by component, each group a
// table, with a summary table per rule.
func Text(w io.Writer, r *finding.Report, opt Options) error {
	if len(r.Findings) == 0 {
		return noFindings(w, r.Inputs)
	}
	// Locations read path:line, relative to --srcroot or the current
	// directory, as compilers print them.
	base := opt.BaseDir
	if base == "" {
		base = "."
	}
	loc, err := newLocator(base)
	if err != nil {
		return err
	}
	for _, rule := range groupBy(r.Findings, func(f *finding.Finding) string { return f.Rule }) {
		if err := ruleSection(w, rule, opt, loc); err != nil {
			return err
		}
	}
	s := finding.Summarize(r.Findings)
	_, err = fmt.Fprintf(w, "%d findings: %d error, %d warning, %d note\n",
		len(r.Findings), s["error"], s["warning"], s["note"])
	return err
}

type group struct {
	key      string
	findings []*finding.Finding
}

// groupBy keeps first-seen order, which Run's sort makes meaningful.
func groupBy(fs []finding.Finding, key func(*finding.Finding) string) []group {
	var out []group
	idx := map[string]int{}
	for i := range fs {
		k := key(&fs[i])
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, group{key: k})
		}
		out[j].findings = append(out[j].findings, &fs[i])
	}
	return out
}

func ruleSection(w io.Writer, rule group, opt Options, loc locator) error {
	first := rule.findings[0]
	counts := countSeverities(rule.findings)
	fmt.Fprintf(w, "%s %s: %d findings (%s)\n", first.Rule, first.Name, len(rule.findings), counts)
	doc, hasDoc := opt.Docs[first.Rule]
	if hasDoc && doc.Summary != "" {
		fmt.Fprintf(w, "  %s\n", doc.Summary)
	}
	comps := groupBy(flatten(rule.findings), func(f *finding.Finding) string { return f.Subject.Component })
	sort.SliceStable(comps, func(i, j int) bool {
		a, b := comps[i], comps[j]
		if worst(a) != worst(b) {
			return worst(a) > worst(b)
		}
		if len(a.findings) != len(b.findings) {
			return len(a.findings) > len(b.findings)
		}
		return strings.ToLower(a.key) < strings.ToLower(b.key)
	})
	if len(comps) > 1 || comps[0].key != "" {
		fmt.Fprintln(w)
		if err := componentSummary(w, comps); err != nil {
			return err
		}
	}
	for _, c := range comps {
		name := c.key
		if name == "" {
			name = "other"
		}
		fmt.Fprintf(w, "\n[%s] %d\n", name, len(c.findings))
		if err := findingTable(w, c.findings, opt.Verbose, loc); err != nil {
			return err
		}
	}
	if hasDoc && doc.Fix != "" && !opt.Verbose {
		fmt.Fprintf(w, "\nfix: %s\n", indent(doc.Fix, "     "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func flatten(ps []*finding.Finding) []finding.Finding {
	out := make([]finding.Finding, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

func worst(g group) finding.Severity {
	max := finding.None
	for _, f := range g.findings {
		if f.Severity > max {
			max = f.Severity
		}
	}
	return max
}

func countSeverities(fs []*finding.Finding) string {
	n := map[finding.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []finding.Severity{finding.Error, finding.Warning, finding.Note} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

func componentSummary(w io.Writer, comps []group) error {
	rows := [][]string{}
	for _, c := range comps {
		n := map[finding.Severity]int{}
		files := map[string]bool{}
		for _, f := range c.findings {
			n[f.Severity]++
			files[f.Subject.File] = true
		}
		name := c.key
		if name == "" {
			name = "other"
		}
		rows = append(rows, []string{name, fmt.Sprint(n[finding.Error]), fmt.Sprint(n[finding.Warning]),
			fmt.Sprint(n[finding.Note]), strings.Join(sortedKeys(files), " ")})
	}
	return Table(w, []string{"COMPONENT", "ERROR", "WARNING", "NOTE", "FILES"}, rows)
}

func findingTable(w io.Writer, fs []*finding.Finding, verbose bool, loc locator) error {
	if !verbose {
		rows := make([][]string, len(fs))
		for i, f := range fs {
			where := fileName(f)
			if at := location(f, loc); at != "" {
				where = at
			}
			rows[i] = []string{f.Severity.String(), subjectName(f), where, f.Message}
		}
		return Table(w, []string{"SEVERITY", "SUBJECT", "FILE", "MESSAGE"}, rows)
	}
	for _, f := range fs {
		if at := location(f, loc); at != "" {
			fmt.Fprintf(w, "%s: ", at)
		}
		fmt.Fprintf(w, "%s %s %s\n  %s\n", f.Severity, f.Rule, subjectName(f), f.Message)
		for _, s := range f.Evidence {
			at := ""
			if s.Line > 0 {
				at = fmt.Sprintf(" (%s:%d)", loc.display(s.File), s.Line)
			}
			fmt.Fprintf(w, "    - %s%s\n", s.Text, at)
		}
		if f.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", indent(f.Fix, "       "))
		}
	}
	return nil
}

func subjectName(f *finding.Finding) string {
	switch {
	case f.Subject.Demangled != "":
		return f.Subject.Demangled
	case f.Subject.Symbol != "":
		return f.Subject.Symbol
	case f.Subject.Member != "":
		return f.Subject.File + "(" + f.Subject.Member + ")"
	}
	return f.Subject.File
}

// location is a finding's source location as path:line, the path relative
// to loc's base when it lies inside it; "" when the finding has none.
func location(f *finding.Finding, loc locator) string {
	if f.Location == nil || f.Location.File == "" {
		return ""
	}
	p := loc.display(f.Location.File)
	if f.Location.Line > 0 {
		return fmt.Sprintf("%s:%d", p, f.Location.Line)
	}
	return p
}

// fileName is the subject's file without its directories: the component
// summary above the table lists the full paths.
func fileName(f *finding.Finding) string {
	p := f.Subject.File
	if i := strings.LastIndexAny(p, "/!"); i >= 0 {
		p = p[i+1:]
	}
	if f.Subject.Member != "" {
		p += "(" + f.Subject.Member + ")"
	}
	return p
}

func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+prefix)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// noFindings says that nothing was found, and in what: "no findings" is
// not said of inputs that could not be read (their errors are on stderr).
func noFindings(w io.Writer, inputs []finding.Input) error {
	read, failed := 0, 0
	for _, in := range inputs {
		if in.Error != "" {
			failed++
		} else {
			read++
		}
	}
	var err error
	switch {
	case failed == 0:
		_, err = fmt.Fprintln(w, "no findings")
	case read > 0:
		_, err = fmt.Fprintf(w, "no findings in the inputs read; %d could not be read\n", failed)
	}
	return err
}

// Package report renders a finding.Report: text for people (tables), JSON for
// machines, SARIF 2.1.0 for code scanning, GitHub workflow annotations for
// pull requests; and it keeps baselines of accepted findings. Renderers read
// only the finding wire types, so a saved JSON report renders the same as a
// fresh one.
package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/finding"
)

// Formats lists the output formats Write accepts.
var Formats = []string{"text", "json", "sarif", "github"}

// Options tune the renderers.
type Options struct {
	// Verbose lists every finding, notes included, with its evidence chain
	// (text), and puts the evidence and fix in annotations (github).
	Verbose bool
	// Width is the text report's line width (0: DefaultWidth).
	Width int
	// Color paints the text report's severities (for a terminal: the
	// caller decides, see NO_COLOR); other formats ignore it.
	Color bool
	// Rules is the rule catalogue: the text report prints a rule's summary
	// and fix once per rule; SARIF describes it in tool.driver.rules.
	Rules []finding.RuleDoc
	// BaseDir is the directory that paths are written relative to: SARIF's
	// %SRCROOT% (empty: paths as given) and the GitHub workspace (empty:
	// $GITHUB_WORKSPACE, else the current directory).
	BaseDir string
}

// doc is the documentation of the rule id (empty when the catalogue lacks it).
func (o *Options) doc(id string) finding.RuleDoc {
	for _, d := range o.Rules {
		if d.ID == id {
			return d
		}
	}
	return finding.RuleDoc{}
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

// location is a finding's source location as path:line, the path relative
// to loc's base when it lies inside it; "" when the finding has none.
func location(f *finding.Finding, loc locator) string {
	if f.Location == nil || f.Location.File == "" {
		return ""
	}
	p := loc.display(f.Location.File)
	if f.Location.Line > 0 {
		p = fmt.Sprintf("%s:%d", p, f.Location.Line)
	}
	if f.Location.Unverified {
		p += " " + staleLine
	}
	return p
}

// staleLine follows a line a finding could not verify (finding.Location's
// Unverified): SARIF and GitHub, which would place it, name it in the
// message instead (unverifiedLine).
const staleLine = "(line from a stale configure)"

// unverifiedLine is what a SARIF result or GitHub annotation says of an
// unverified line it does not place: "" for a line it may place.
func unverifiedLine(l *finding.Location) string {
	if !l.Unverified || l.Line == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s:%d: line from a stale configure)", filepath.Base(l.File), l.Line)
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

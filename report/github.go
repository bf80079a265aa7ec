package report

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/etlink/etlink/finding"
)

// AnnotationCap is how many annotations of one level (error, warning,
// notice) GitHub shows for a step; GitHub writes no more.
const AnnotationCap = 10

// GitHub writes GitHub Actions workflow commands, one annotation per
// unreadable input and per group of findings (the text report's groups, at
// most AnnotationCap of a level, the most severe first), then a plain
// summary line:
//
//	::error file=src/CMakeLists.txt,line=12,title=ET202 cmake-embed-python::message
//
// Files are written relative to opt.BaseDir, or $GITHUB_WORKSPACE when that
// is empty, or else the current directory, so that the annotation links to
// the line in the checkout. A finding without a location is annotated on its
// subject's file (for a wheel entry or archive member: the wheel or archive)
// when that lies inside the workspace, and otherwise carries no file and
// names its object in the message. With opt.Verbose the message also holds
// the evidence chain and the fix.
func GitHub(w io.Writer, r *finding.Report, opt Options) error {
	base := opt.BaseDir
	if base == "" {
		base = os.Getenv("GITHUB_WORKSPACE")
	}
	if base == "" {
		base = "."
	}
	loc, err := newLocator(base)
	if err != nil {
		return err
	}
	failed := 0
	for _, in := range r.Inputs {
		if in.Error == "" {
			continue
		}
		failed++
		a := annotation{level: "error", title: "etlink: unreadable input", message: loc.display(in.Path) + ": " + in.Error}
		file, _ := container(in.Path)
		a.file, _ = loc.rel(file)
		if err := a.write(w); err != nil {
			return err
		}
	}
	// One annotation per group of findings (as the text report groups
	// them), at most AnnotationCap per level: GitHub shows no more.
	shown := map[string]int{}
	names := reportNames(r.Findings)
	groups, left := 0, 0
	for _, rs := range ruleGroups(r.Findings) {
		for _, g := range rs.groups {
			groups++
			f := *g.findings[0]
			level := githubLevel(f.Severity)
			if shown[level] == AnnotationCap {
				left++
				continue
			}
			shown[level]++
			if n := len(g.findings) - 1; n > 0 {
				f.Message += fmt.Sprintf(" (+%d more: %s)", n, examples(variantNames(g.findings)[1:], 3, names))
			}
			if err := loc.annotation(&f, opt.Verbose).write(w); err != nil {
				return err
			}
		}
	}
	s := finding.Summarize(r.Findings)
	line := fmt.Sprintf("etlink: %s in %s: %s, %s, %s", count(len(r.Findings), "finding"), count(groups, "group"),
		count(s["error"], "error"), count(s["warning"], "warning"), count(s["note"], "note"))
	if left > 0 {
		line += fmt.Sprintf("; %d groups not annotated (GitHub shows %d annotations of a level; the job log's text or SARIF has them all)", left, AnnotationCap)
	}
	if failed > 0 {
		noun := "inputs"
		if failed == 1 {
			noun = "input"
		}
		line += fmt.Sprintf("; %d %s could not be read", failed, noun)
	}
	_, err = fmt.Fprintln(w, line)
	return err
}

// annotation is one workflow command.
type annotation struct {
	level, file string
	line        int
	title       string
	message     string
}

func (l locator) annotation(f *finding.Finding, verbose bool) annotation {
	a := annotation{level: githubLevel(f.Severity), title: strings.TrimSpace(f.Rule + " " + f.Name), message: f.Message}
	// The symbol is what a reviewer searches for; messages leave it to the subject.
	name := f.Subject.Demangled
	if name == "" {
		name = f.Subject.Symbol
	}
	if name != "" && !strings.Contains(a.message, name) {
		a.message = name + ": " + a.message
	}
	subject := objectName(f.Subject)
	if f.Location != nil && f.Location.File != "" {
		file, inner := container(f.Location.File)
		if rel, ok := l.rel(file); ok {
			a.file = rel
			if inner == "" && !f.Location.Unverified {
				a.line = f.Location.Line
			}
		}
		if a.file == "" || inner != "" {
			a.message += " (at " + location(f, l) + ")"
		} else {
			a.message += unverifiedLine(f.Location)
		}
		if subject != f.Location.File {
			a.message = withObject(a.message, l.display(subject))
		}
	} else if subject != "" {
		file, inner := container(subject)
		a.file, _ = l.rel(file)
		if a.file == "" || inner != "" {
			a.message = withObject(a.message, l.display(subject))
		}
	}
	if verbose {
		for _, st := range f.Evidence {
			a.message += "\n- " + st.Text
			if st.File != "" && st.Line > 0 {
				a.message += fmt.Sprintf(" (%s:%d)", l.display(st.File), st.Line)
			}
		}
	}
	// The fix is what the reviewer acts on: always there.
	if f.Fix != "" {
		a.message += "\nfix: " + strings.TrimSpace(f.Fix)
	}
	return a
}

func githubLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	}
	return "notice"
}

func (a annotation) write(w io.Writer) error {
	var props []string
	if a.file != "" {
		props = append(props, "file="+escapeProperty(Visible(a.file)))
		if a.line > 0 {
			props = append(props, "line="+strconv.Itoa(a.line))
		}
	}
	if a.title != "" {
		props = append(props, "title="+escapeProperty(Visible(a.title)))
	}
	cmd := "::" + a.level
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	_, err := fmt.Fprintf(w, "%s::%s\n", cmd, escapeData(VisibleLines(a.message)))
	return err
}

// escapeData escapes a workflow command's message as the Actions toolkit
// does, in one pass, so that a '%' the runner would decode stays literal.
func escapeData(s string) string { return dataEscaper.Replace(s) }

// escapeProperty escapes a workflow command property value, where ':' and
// ',' would end the value.
func escapeProperty(s string) string { return propertyEscaper.Replace(s) }

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

package rules

import (
	"bytes"
	"fmt"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
)

// ET004 reports a CMake File API reply older than the CMake sources it was
// generated from.
var ET004 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET004",
		Name:     "stale-configure",
		Severity: finding.Note,
		Summary:  "the build directory's CMake File API reply is older than a CMakeLists.txt or .cmake file it was generated from",
		Why: `etlink reads each link item's CMakeLists.txt line from the File API reply CMake wrote at the
last configure. A CMake file edited since (and not re-configured: the build re-runs cmake only
when it builds) may hold other lines now: the line a finding names can be past the file's end,
or point at another command, and the links themselves may no longer be what CMake would generate.`,
		Fix: `Re-run cmake on the build directory (cmake -S . -B build, or build once), then etlink.`,
		Before: `$ $EDITOR CMakeLists.txt; etlink retention build/
note ET004 build: the CMake File API reply is older than CMakeLists.txt
warning ET101 ... CMakeLists.txt:26 (line from a stale configure)`,
		After: `$ cmake -B build; etlink retention build/
warning ET101 ... CMakeLists.txt:19`,
	},
	Check: func(r *Rule, ctx *Context) []finding.Finding {
		var out []finding.Finding
		seen := map[*analyze.StaleReply]bool{}
		for _, f := range ctx.Retention {
			st := f.Stale
			if st == nil || seen[st] {
				continue
			}
			seen[st] = true
			fd := r.newFinding(r.Severity, finding.Subject{File: st.BuildDir},
				fmt.Sprintf("%s: the CMake File API reply is older than the sources it came from (%s): the CMakeLists.txt lines taken from it are unverified", st.BuildDir, st.Summary()))
			fd.Location = &finding.Location{File: st.Changed}
			fd.Evidence = []finding.Step{
				{Text: fmt.Sprintf("the reply %s was written at %s", st.Index, st.RepliedAt.Format("2006-01-02 15:04:05")), File: st.Index},
				{Text: fmt.Sprintf("%s was changed at %s", st.Changed, st.ChangedAt.Format("2006-01-02 15:04:05")), File: st.Changed},
			}
			fd.Fix = r.Fix
			out = append(out, fd)
		}
		return out
	},
}

// markUnverified marks the locations read from a CMake File API reply
// that cannot be trusted as lines of the file as it is now: those of a
// stale reply (ET004), and any past the file's end. Only reply lines are
// judged: lint's own lines are read from the files as they are.
func markUnverified(fs []finding.Finding, facts []*analyze.LinkFacts) {
	type at struct {
		file string
		line int
	}
	fromReply := map[at]bool{} // true: from a stale reply
	note := func(file string, line int, stale bool) {
		if file != "" && line > 0 {
			k := at{file, line}
			fromReply[k] = fromReply[k] || stale
		}
	}
	for _, f := range facts {
		note(f.Link.Source.CMakeFile, f.Link.Source.CMakeLine, f.Stale != nil)
		for _, in := range f.Link.Inputs {
			note(in.Source.CMakeFile, in.Source.CMakeLine, f.Stale != nil)
		}
	}
	lines := map[string]int{}
	for i := range fs {
		l := fs[i].Location
		if l == nil {
			continue
		}
		stale, ok := fromReply[at{l.File, l.Line}]
		if !ok {
			continue
		}
		if _, counted := lines[l.File]; !counted {
			lines[l.File] = lineCount(l.File)
		}
		if stale || l.Line > lines[l.File] {
			c := *l // findings may share a location
			c.Unverified = true
			fs[i].Location = &c
		}
	}
}

// lineCount is the number of lines of file; 0 when it cannot be read, so
// that no line of it is taken as valid.
func lineCount(file string) int {
	data, err := datafile.ReadFile(file, datafile.SmallText)
	if err != nil || len(data) == 0 {
		return 0
	}
	n := bytes.Count(data, []byte("\n"))
	if data[len(data)-1] != '\n' {
		n++
	}
	return n
}

package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
)

// BaselineVersion is the schema_version WriteBaseline writes and
// ReadBaseline accepts.
const BaselineVersion = 1

// Baseline is a set of accepted findings, matched by fingerprint (rule and
// subject, not message or line), so that a gate fails only on new findings.
// Its JSON form is
//
//	{
//	  "schema_version": 1,
//	  "findings": [
//	    {"fingerprint": "…", "rule": "ET301", "subject": "dist/x.whl!pkg/libfoo.so: pthreadpool_create"}
//	  ]
//	}
//
// with one finding a line, sorted by rule, subject and fingerprint, so that
// a change to the baseline reviews as one line per finding.
type Baseline struct {
	SchemaVersion int             `json:"schema_version"`
	Findings      []BaselineEntry `json:"findings"`
}

// BaselineEntry is one accepted finding. Only Fingerprint is matched; Rule
// and Subject are there for the people who review the baseline.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	Subject     string `json:"subject"`
}

// NewBaseline returns the baseline that accepts fs, one entry per
// fingerprint, sorted.
func NewBaseline(fs []finding.Finding) Baseline {
	b := Baseline{SchemaVersion: BaselineVersion, Findings: []BaselineEntry{}}
	seen := map[string]bool{}
	for i := range fs {
		e := BaselineEntry{Fingerprint: fingerprint(&fs[i]), Rule: fs[i].Rule, Subject: subjectSummary(fs[i].Subject)}
		if !seen[e.Fingerprint] {
			seen[e.Fingerprint] = true
			b.Findings = append(b.Findings, e)
		}
	}
	sort.Slice(b.Findings, func(i, j int) bool {
		x, y := b.Findings[i], b.Findings[j]
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		if x.Subject != y.Subject {
			return x.Subject < y.Subject
		}
		return x.Fingerprint < y.Fingerprint
	})
	return b
}

// subjectSummary reads as "object [target T]: symbol", leaving out what is empty.
func subjectSummary(s finding.Subject) string {
	out := objectName(s)
	if s.Target != "" {
		out += " [target " + s.Target + "]"
	}
	sym := s.Demangled
	if sym == "" {
		sym = s.Symbol
	}
	switch {
	case sym != "" && out != "":
		out += ": " + sym
	case sym != "":
		out = sym
	}
	return out
}

// WriteBaseline writes the baseline that accepts fs (see Baseline).
func WriteBaseline(w io.Writer, fs []finding.Finding) error {
	return NewBaseline(fs).Write(w)
}

// Write writes b in its JSON form, one finding a line.
func (b Baseline) Write(w io.Writer) error {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "{\n  \"schema_version\": %d,\n  \"findings\": [", b.SchemaVersion)
	for i, e := range b.Findings {
		line, err := marshalNoHTML(e)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		buf.Write(line)
	}
	if len(b.Findings) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// marshalNoHTML is json.Marshal without escaping <, > and &, which C++
// names are full of.
func marshalNoHTML(e BaselineEntry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// ReadBaseline reads a baseline file written by WriteBaseline. Errors name
// the file and, for malformed JSON, the line.
func ReadBaseline(path string) (Baseline, error) {
	data, err := datafile.ReadFile(path, datafile.LargeText)
	if err != nil {
		return Baseline{}, fmt.Errorf("reading baseline: %w", err)
	}
	return parseBaseline(path, data)
}

func parseBaseline(name string, data []byte) (Baseline, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return Baseline{}, fmt.Errorf("%s: empty file, not an etlink baseline", name)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return Baseline{}, fmt.Errorf("%s:%d: malformed baseline: %w", name, lineOf(data, syn.Offset), err)
		case errors.As(err, &typ) && typ.Field == "":
			return Baseline{}, fmt.Errorf("%s: not an etlink baseline: want a JSON object, found %s", name, typ.Value)
		case errors.As(err, &typ):
			return Baseline{}, fmt.Errorf("%s:%d: not an etlink baseline: %s is %s, want %s",
				name, lineOf(data, typ.Offset), typ.Field, typ.Value, typ.Type)
		}
		return Baseline{}, fmt.Errorf("%s: malformed baseline: %w", name, err)
	}
	switch {
	case b.SchemaVersion == 0:
		return Baseline{}, fmt.Errorf("%s: not an etlink baseline: no schema_version", name)
	case b.SchemaVersion != BaselineVersion:
		return Baseline{}, fmt.Errorf("%s: baseline schema_version %d, this etlink reads %d", name, b.SchemaVersion, BaselineVersion)
	}
	for i, e := range b.Findings {
		if e.Fingerprint == "" {
			return Baseline{}, fmt.Errorf("%s: findings[%d] (%s %s) has no fingerprint", name, i, e.Rule, e.Subject)
		}
	}
	return b, nil
}

// lineOf is the 1-based line of byte offset off in data.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Filter returns the findings of fs whose fingerprint b does not hold, in
// their order, and how many it suppressed.
func (b Baseline) Filter(fs []finding.Finding) (kept []finding.Finding, suppressed int) {
	known := b.fingerprints()
	kept = make([]finding.Finding, 0, len(fs))
	for i := range fs {
		if known[fingerprint(&fs[i])] {
			suppressed++
			continue
		}
		kept = append(kept, fs[i])
	}
	return kept, suppressed
}

// Unmatched returns the entries of b that match none of fs: accepted
// findings that are gone, which a baseline should drop rather than keep
// hiding a future regression behind.
func (b Baseline) Unmatched(fs []finding.Finding) []BaselineEntry {
	found := map[string]bool{}
	for i := range fs {
		found[fingerprint(&fs[i])] = true
	}
	var out []BaselineEntry
	for _, e := range b.Findings {
		if !found[e.Fingerprint] {
			out = append(out, e)
		}
	}
	return out
}

func (b Baseline) fingerprints() map[string]bool {
	m := make(map[string]bool, len(b.Findings))
	for _, e := range b.Findings {
		m[e.Fingerprint] = true
	}
	return m
}

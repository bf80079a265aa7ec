package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteFormats(t *testing.T) {
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, format, fixtureReport(), Options{Rules: fixtureRules(), BaseDir: fixtureBase}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		if buf.Len() == 0 {
			t.Errorf("%s: no output", format)
		}
	}
	err := Write(&bytes.Buffer{}, "xml", fixtureReport(), Options{})
	if err == nil || !strings.Contains(err.Error(), strings.Join(Formats, ", ")) {
		t.Errorf("unknown format: %v", err)
	}
}

// TestUnverifiedLine: a line from a stale configure is said so in text,
// and named in the message, not placed, by SARIF and GitHub.
func TestUnverifiedLine(t *testing.T) {
	r := fixtureReport()
	for i := range r.Findings {
		if l := r.Findings[i].Location; l != nil && l.Line == 12 {
			l.Unverified = true
			r.Findings[i].Evidence = nil // its steps place lines of their own
		}
	}
	for format, want := range map[string][]string{
		"text":   {"src/CMakeLists.txt:12 (line from a stale configure)"},
		"json":   {`"line": 12,`, `"unverified": true`},
		"sarif":  {"(CMakeLists.txt:12: line from a stale configure)"},
		"github": {"(CMakeLists.txt:12: line from a stale configure)"},
	} {
		var buf bytes.Buffer
		if err := Write(&buf, format, r, Options{Verbose: true, Rules: fixtureRules(), BaseDir: fixtureBase}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", format, w, out)
			}
		}
		if strings.Contains(out, `"startLine": 12`) || strings.Contains(out, "line=12") {
			t.Errorf("%s places the unverified line:\n%s", format, out)
		}
	}
}

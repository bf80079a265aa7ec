package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
)

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"lib\x1b[2Jx.so":    `lib\x1b[2Jx.so`,
		"bell\a":            `bell\x07`,
		"del\x7f":           `del\x7f`,
		"c1\u009bcsi":       `c1\x9bcsi`,
		"tab\tnew\nline":    `tab\x09new\x0aline`,
		"日本語":               "日本語",
		"\u2028not control": "\u2028not control",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
	if got := VisibleLines("a\x1b\nb"); got != "a\\x1b\nb" {
		t.Errorf("VisibleLines kept %q", got)
	}
}

// TestNoControlCharactersReachTheTerminal: a SONAME or file name with
// escape sequences never reaches the output raw: text and annotations
// escape it, JSON and SARIF encode it (SARIF's messages, which viewers
// render, escape it as text does; its data keeps the exact bytes).
func TestNoControlCharactersReachTheTerminal(t *testing.T) {
	evil := "/ws/lib\x1b]0;pwned\x07\x1b[2J.so"
	r := &finding.Report{Inputs: []finding.Input{{Path: evil, Error: "bad\x1b[31m"}},
		Findings: []finding.Finding{{Rule: "ET403", Name: "soname-mismatch", Severity: finding.Error,
			Subject: finding.Subject{File: evil, Symbol: "sym\x1b[1m"}, Message: "SONAME x\x1b[0m\x07 differs",
			Evidence: []finding.Step{{Text: "step \x1b[H", File: evil, Line: 3}}}}}
	for _, format := range Formats {
		for _, verbose := range []bool{false, true} {
			var buf bytes.Buffer
			if err := Write(&buf, format, r, Options{BaseDir: "/ws", Verbose: verbose}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if strings.ContainsAny(out, "\x1b\x07") {
				t.Errorf("%s (verbose %v) lets a control character through:\n%q", format, verbose, out)
			}
			if format == "sarif" && !strings.Contains(out, `"text": "SONAME x\\x1b[0m\\x07 differs"`) {
				t.Errorf("SARIF message not escaped as text:\n%s", out)
			}
		}
	}
}

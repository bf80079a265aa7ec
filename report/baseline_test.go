package report

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
)

func TestBaselineGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, fixtureReport().Findings); err != nil {
		t.Fatal(err)
	}
	golden(t, "baseline.json", buf.Bytes())
}

func TestBaselineEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"schema_version\": 1,\n  \"findings\": []\n}\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	b, err := parseBaseline("empty.json", buf.Bytes())
	if err != nil || len(b.Findings) != 0 {
		t.Errorf("reading it back: %+v, %v", b, err)
	}
}

// TestBaselineStable checks that the order of findings and duplicates do not
// change the file: a rerun on the same build must not show a diff.
func TestBaselineStable(t *testing.T) {
	fs := fixtureReport().Findings
	var a, b bytes.Buffer
	if err := WriteBaseline(&a, fs); err != nil {
		t.Fatal(err)
	}
	shuffled := make([]finding.Finding, 0, 2*len(fs))
	for i := len(fs) - 1; i >= 0; i-- {
		shuffled = append(shuffled, fs[i], fs[i])
	}
	if err := WriteBaseline(&b, shuffled); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("baseline depends on order or duplicates:\n%s\nvs\n%s", a.String(), b.String())
	}
	if n := strings.Count(a.String(), "\n"); n != len(fs)+5 {
		t.Errorf("%d lines for %d findings, want one a finding plus 5:\n%s", n, len(fs), a.String())
	}
}

func TestBaselineRoundTrip(t *testing.T) {
	old := fixtureReport().Findings
	path := filepath.Join(t.TempDir(), "etlink-baseline.json")
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.SchemaVersion != BaselineVersion || len(b.Findings) != len(old) {
		t.Fatalf("read %d entries (schema %d), want %d", len(b.Findings), b.SchemaVersion, len(old))
	}
	kept, suppressed := b.Filter(old)
	if len(kept) != 0 || suppressed != len(old) {
		t.Errorf("filtering the baselined findings kept %d, suppressed %d", len(kept), suppressed)
	}
	if un := b.Unmatched(old); len(un) != 0 {
		t.Errorf("unmatched entries on the same findings: %+v", un)
	}

	// A reworded message, a moved line and new evidence keep a finding
	// baselined; a new subject does not.
	moved := old[0]
	moved.Message = "reworded"
	moved.Location = &finding.Location{File: moved.Location.File, Line: 99}
	moved.Evidence = nil
	fresh := old[0]
	fresh.Subject.Target = "_D"
	fresh.Fingerprint = finding.Fingerprint(fresh.Rule, fresh.Subject)
	kept, suppressed = b.Filter([]finding.Finding{moved, fresh})
	if suppressed != 1 || len(kept) != 1 || kept[0].Subject.Target != "_D" {
		t.Errorf("kept %+v, suppressed %d; want only the new target", kept, suppressed)
	}
	if un := b.Unmatched([]finding.Finding{moved}); len(un) != len(old)-1 {
		t.Errorf("%d unmatched, want %d", len(un), len(old)-1)
	}
}

func TestBaselineFilter(t *testing.T) {
	f := func(rule, file, sym string) finding.Finding {
		s := finding.Subject{File: file, Symbol: sym}
		return finding.Finding{Rule: rule, Subject: s, Fingerprint: finding.Fingerprint(rule, s)}
	}
	a, b, c := f("ET301", "a.so", "x"), f("ET301", "b.so", "x"), f("ET403", "a.so", "")
	noFP := c
	noFP.Fingerprint = ""
	tests := []struct {
		name       string
		baseline   []finding.Finding
		findings   []finding.Finding
		kept       []string
		suppressed int
	}{
		{"empty baseline keeps all", nil, []finding.Finding{a, b}, []string{"a.so", "b.so"}, 0},
		{"all baselined", []finding.Finding{a, b}, []finding.Finding{b, a}, nil, 2},
		{"only new kept, order kept", []finding.Finding{b}, []finding.Finding{c, b, a}, []string{"a.so", "a.so"}, 1},
		{"same file, other rule", []finding.Finding{a}, []finding.Finding{c}, []string{"a.so"}, 0},
		{"finding without fingerprint matches by its computed one", []finding.Finding{c}, []finding.Finding{noFP}, nil, 1},
		{"duplicates each suppressed", []finding.Finding{a}, []finding.Finding{a, a}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, suppressed := NewBaseline(tt.baseline).Filter(tt.findings)
			var files []string
			for _, k := range kept {
				files = append(files, k.Subject.File)
			}
			if !equalWant(files, tt.kept) || suppressed != tt.suppressed {
				t.Errorf("kept %q, suppressed %d; want %q, %d", files, suppressed, tt.kept, tt.suppressed)
			}
		})
	}
}

func TestReadBaselineErrors(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"empty", "", "empty file"},
		{"blank", " \n\t", "empty file"},
		{"truncated", "{\n  \"schema_version\": 1,\n  \"findings\": [\n", "bl.json:4: malformed baseline"},
		{"syntax error on line 3", "{\n  \"schema_version\": 1,\n  \"findings\": [}\n", "bl.json:3: malformed baseline"},
		{"trailing data", "{\"schema_version\": 1}\n{}", "bl.json:2: malformed baseline"},
		{"an array", "[]", "bl.json: not an etlink baseline: want a JSON object, found array"},
		{"a JSON report", `{"schema_version": 1, "tool": {"name": "etlink"}, "findings": [{"rule": "ET301", "subject": {"file": "a.so"}, "fingerprint": "ab"}]}`,
			"not an etlink baseline: findings.subject is object, want string"},
		{"no version", `{"findings": []}`, "bl.json: not an etlink baseline: no schema_version"},
		{"future version", `{"schema_version": 2, "findings": []}`, "bl.json: baseline schema_version 2, this etlink reads 1"},
		{"entry without fingerprint", `{"schema_version": 1, "findings": [{"fingerprint": "ab"}, {"rule": "ET301", "subject": "a.so"}]}`,
			"bl.json: findings[1] (ET301 a.so) has no fingerprint"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "bl.json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadBaseline(path)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q should name %s and say %q", err, path, tt.want)
			}
		})
	}
	_, err := ReadBaseline(filepath.Join(dir, "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "missing.json") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

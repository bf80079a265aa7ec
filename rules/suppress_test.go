package rules

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/etlink/etlink/finding"
)

func TestDirectiveNamesSeveralRules(t *testing.T) {
	for _, tc := range []struct {
		text    string
		rules   []string
		reason  string
		problem bool
	}{
		{"ignore ET202 test-only shim", []string{"ET202"}, "test-only shim", false},
		{"ignore ET101,ET202 both known", []string{"ET101", "ET202"}, "both known", false},
		{"ignore ET101, ET202 spaced", []string{"ET101", "ET202"}, "spaced", false},
		{"ignore ET101 ET202 listed", []string{"ET101", "ET202"}, "listed", false},
		{"ignore dropped-registration-as-needed by name", []string{"ET101"}, "by name", false},
		{"ignore ET101,ET999 typo", nil, "", true},
		{"ignore ET101", nil, "", true},
		{"ignore", nil, "", true},
		{"skip ET101 why", nil, "", true},
	} {
		s := directive("CMakeLists.txt", 3, tc.text)
		if !slices.Equal(s.Rules, tc.rules) || s.Reason != tc.reason || (s.Problem != "") != tc.problem {
			t.Errorf("%q: rules %v reason %q problem %q", tc.text, s.Rules, s.Reason, s.Problem)
		}
	}
}

// Every command honours the directives of the CMake file a finding points
// at, not only lint; ignoring ET202 on a line does not uncover the ET201
// finding the same cause made there.
func TestSuppressionAppliesWhereverAFindingIsLocated(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "CMakeLists.txt")
	src := "add_library(b SHARED b.c)\n" +
		"# etlink: ignore ET101,ET202 the test binary registers by hand\n" +
		"target_link_libraries(app PRIVATE b)\n" +
		"target_link_libraries(other PRIVATE b)\n"
	if err := os.WriteFile(list, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	at := func(rule, target string, line int) finding.Finding {
		return finding.Finding{Rule: rule, Severity: finding.Error, Subject: finding.Subject{Target: target, File: "lib" + target + ".so"},
			Location: &finding.Location{File: list, Line: line}}
	}
	emit := func(fs ...finding.Finding) *Rule {
		return &Rule{RuleDoc: finding.RuleDoc{ID: "test"}, Check: func(*Rule, *Context) []finding.Finding { return fs }}
	}
	got := Run(&Context{}, []*Rule{emit(
		at("ET101", "app", 3),   // covered: the line after the directive
		at("ET101", "other", 4), // not covered: two lines below
		at("ET202", "app", 3),   // covered
		at("ET201", "app", 3),   // said by ET202: gone with it
	)})
	var left []string
	for _, f := range got {
		left = append(left, f.Rule+" "+f.Subject.Target)
	}
	if !slices.Equal(left, []string{"ET101 other"}) {
		t.Errorf("findings left: %v, want only ET101 other", left)
	}
}

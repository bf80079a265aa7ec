package finding

import (
	"fmt"
	"strings"
)

// RuleDoc is a rule's documentation, defined once where the rule is (package
// rules) and read by everything that describes rules: etlink rules and
// explain, the text report's per-rule summary, SARIF's tool.driver.rules.
type RuleDoc struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Severity Severity `json:"severity"`
	// Summary is one line: what the rule finds.
	Summary string `json:"summary"`
	// Why says what goes wrong at run time.
	Why string `json:"why"`
	// Fix says how to repair it.
	Fix string `json:"fix"`
	// Before and After are a failing and a fixed example.
	Before string `json:"before"`
	After  string `json:"after"`
}

// Explain is the rule's full documentation as etlink explain prints it.
func (d *RuleDoc) Explain() string {
	indent := func(s string) string {
		return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
	}
	return fmt.Sprintf("%s %s (default severity: %s)\n\n%s\n\nWhy it breaks:\n%s\n\nFix:\n%s\n\nBefore:\n%s\n\nAfter:\n%s\n",
		d.ID, d.Name, d.Severity, d.Summary, indent(d.Why), indent(d.Fix), indent(d.Before), indent(d.After))
}

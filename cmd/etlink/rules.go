package main

import (
	"fmt"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/report"
	"github.com/etlink/etlink/rules"
)

var rulesCmd = &command{
	name:    "rules",
	args:    "",
	summary: "list the rule catalogue",
	help: `Lists every rule: ID, name, default severity and summary; with
--format json, each rule's whole documentation.

Examples:
  etlink rules
  etlink rules --format json | jq -r '.rules[] | select(.severity == "error") | .id'
  etlink explain ET301`,
	run: func(c *command, a *app, args []string) int {
		out := &outputFlags{formats: []string{"text", "json"}}
		fs, _, code, ok := c.parseReporting(a, args, out)
		if !ok {
			return code
		}
		if fs.NArg() > 0 {
			a.errorf("rules: takes no argument (etlink explain %s prints one rule)", fs.Arg(0))
			return exitError
		}
		if out.format == "json" {
			return a.writeJSON(struct {
				envelope
				Rules []finding.RuleDoc `json:"rules"`
			}{newEnvelope("rules", nil), rules.Docs()})
		}
		var rows [][]string
		for _, r := range rules.All() {
			rows = append(rows, []string{r.ID, r.Name, r.Severity.String(), r.Summary})
		}
		if err := report.Table(a.stdout, []string{"ID", "NAME", "SEVERITY", "SUMMARY"}, rows); err != nil {
			a.errorf("rules: %v", err)
			return exitError
		}
		return exitOK
	},
}

var explainCmd = &command{
	name:    "explain",
	args:    "ID",
	summary: "print one rule's documentation with a before/after example",
	help: `Prints what a rule finds, why it breaks at run time, how to fix it, and an
example before and after the fix. ID is a rule ID (ET301) or name
(defined-by-peer).

Examples:
  etlink explain ET301
  etlink explain duplicate-within-wheel
  etlink explain ET101 --format json`,
	run: func(c *command, a *app, args []string) int {
		out := &outputFlags{formats: []string{"text", "json"}}
		fs, _, code, ok := c.parseReporting(a, args, out)
		if !ok {
			return code
		}
		if fs.NArg() != 1 {
			a.errorf("explain: want one rule ID\nRun 'etlink rules' for the list.")
			return exitError
		}
		r := rules.ByID(fs.Arg(0))
		if r == nil {
			var ids []string
			for _, d := range rules.Docs() {
				ids = append(ids, d.ID, d.Name)
			}
			a.errorf("explain: no rule %q%s\nRun 'etlink rules' for the list.", fs.Arg(0), didYouMean(fs.Arg(0), ids))
			return exitError
		}
		if out.format == "json" {
			return a.writeJSON(struct {
				envelope
				finding.RuleDoc
			}{newEnvelope("explain", nil), r.RuleDoc})
		}
		fmt.Fprint(a.stdout, r.Explain())
		return exitOK
	},
}

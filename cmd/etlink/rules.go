package main

import (
	"fmt"

	"github.com/etlink/etlink/report"
	"github.com/etlink/etlink/rules"
)

var rulesCmd = &command{
	name:    "rules",
	args:    "",
	summary: "list the rule catalogue",
	help: `Lists every rule: ID, name, default severity and summary.

Examples:
  etlink rules
  etlink explain ET301`,
	run: func(c *command, a *app, args []string) int {
		fs := c.flags(a)
		if code, ok := c.parse(a, fs, args); !ok {
			return code
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
  etlink explain duplicate-within-wheel`,
	run: func(c *command, a *app, args []string) int {
		fs := c.flags(a)
		if code, ok := c.parse(a, fs, args); !ok {
			return code
		}
		if fs.NArg() != 1 {
			a.errorf("explain: want one rule ID\nRun 'etlink rules' for the list.")
			return exitError
		}
		r := rules.ByID(fs.Arg(0))
		if r == nil {
			a.errorf("explain: no rule %q\nRun 'etlink rules' for the list.", fs.Arg(0))
			return exitError
		}
		fmt.Fprint(a.stdout, r.Explain())
		return exitOK
	},
}

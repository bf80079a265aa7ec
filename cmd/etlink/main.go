// Command etlink checks what the static linker and the dynamic loader will
// really do with the C++ libraries a Python wheel ships: symbols defined by
// both the wheel and torch, registrations dropped at link time, and Python
// extensions that link libpython.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/report"
)

// Exit codes, as usage and the README state them.
const (
	exitOK       = 0 // no finding at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // usage error or unreadable input
)

type command struct {
	name    string
	args    string // usage after the command name
	summary string
	help    string // longer text with examples
	run     func(c *command, a *app, args []string) int
}

var commands = []*command{scanCmd, treeCmd, conflictsCmd, retentionCmd, whyCmd, checkCmd, lintCmd, rulesCmd, explainCmd, versionCmd}

// app carries the process's streams so tests can run commands in-process.
type app struct {
	stdout, stderr io.Writer
	// console writes the run's notes and errors (one line a cause) and
	// its progress on stderr; stdout passes its gate.
	console     *console
	quiet       bool
	inputErrors int
	// lookup is the run conflicts and check read closures in (its library
	// index written back after the report); nil for the other commands.
	lookup *analyze.Lookup
	// budget is the run's (startBudget).
	budget *budget.Budget
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) (code int) {
	a := &app{stderr: stderr, console: newConsole(stderr)}
	a.stdout = &gate{w: stdout, c: a.console}
	defer func() {
		// A bug must not reach the user as a stack trace.
		if p := recover(); p != nil {
			a.console.flush()
			fmt.Fprintf(stderr, "etlink: internal error: %v (please report it with the command line)\n", p)
			code = exitError
		}
	}()
	defer a.console.flush()
	if len(args) == 0 {
		usage(stderr)
		return exitError
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				fmt.Fprint(stdout, c.usage())
				return exitOK
			}
			fmt.Fprintf(stderr, "etlink help: unknown command %q%s\n", args[1], didYouMean(args[1], commandNames()))
			return exitError
		}
		usage(stdout)
		return exitOK
	case "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "etlink: unknown command %q%s\n", name, didYouMean(name, commandNames()))
		usage(stderr)
		return exitError
	}
	return c.run(c, a, args[1:])
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, `etlink checks what the linker and the dynamic loader will really do with the
C++ libraries a Python wheel ships.

Usage:
  etlink <command> [flags] [arguments]

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Exit codes: 0 nothing at or above --fail-on, 1 findings, 2 usage error or
unreadable input (findings from the readable inputs are still printed).

Run "etlink help <command>" or "etlink <command> --help" for a command's flags
and examples.
`)
}

func (c *command) usage() string {
	return fmt.Sprintf("Usage: etlink %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.help)) + "\n"
}

// flags returns the command's flag set. parse prints the usage for
// --help, on stdout; a usage error gets one line on stderr.
func (c *command) flags(a *app) *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parse parses args; it returns ok=false with the exit code to use when the
// command must stop (help asked for, or a usage error).
func (c *command) parse(a *app, fs *pflag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) {
		fmt.Fprint(a.stdout, c.usage())
		fmt.Fprintf(a.stdout, "Flags:\n%s", fs.FlagUsages())
		return exitOK, false
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "etlink %s: %v%s\nRun 'etlink %s --help' for usage.\n", c.name, err, flagSuggestion(fs, err), c.name)
		return exitError, false
	}
	return 0, true
}

// errorf prints an error the way cmd/go does: "etlink: what is wrong".
func (a *app) errorf(format string, args ...any) {
	a.console.println("etlink: " + report.VisibleLines(fmt.Sprintf(format, visibleArgs(args)...)))
}

// visibleArgs escapes the text of a message's arguments (report.Visible):
// a path or name read from an input that holds a newline must not forge
// a line of its own. The format's own newlines stay.
func visibleArgs(args []any) []any {
	out := make([]any, len(args))
	for i, v := range args {
		switch v := v.(type) {
		case string:
			out[i] = report.Visible(v)
		case error:
			out[i] = report.Visible(v.Error())
		case fmt.Stringer:
			out[i] = report.Visible(v.String())
		default:
			out[i] = v
		}
	}
	return out
}

// println writes one line of plain output (tree, why), its control
// characters escaped: names come from untrusted files.
func (a *app) println(line string) {
	fmt.Fprintln(a.stdout, report.Visible(line))
}

// InputError reports an input that could not be read; the run goes on.
// Inputs that fail for the reason of one already said are counted.
func (a *app) InputError(err error) {
	a.inputErrors++
	a.console.inputError("etlink: "+report.Visible(err.Error()), err)
}

// Notef prints notes unless -q was given, each once a run.
func (a *app) Notef(format string, args ...any) {
	if !a.quiet {
		a.console.note("etlink: " + report.VisibleLines(fmt.Sprintf(format, visibleArgs(args)...)))
	}
}

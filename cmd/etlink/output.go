package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/report"
	"github.com/etlink/etlink/rules"
)

// outputFlags are the output flags of a command: --format, -q, and for a
// command that reports findings the verdict and path flags.
type outputFlags struct {
	formats       []string // the formats this command renders
	findings      bool     // it reports findings (fail-on, baseline, srcroot, -v)
	config        bool     // it reads etlink.toml
	format        string
	failOn        string
	configFile    string
	baseline      string
	writeBaseline string
	srcroot       string
	verbose       bool
	quiet         bool
	budget        string
	// found is the configuration the run read (loadConfig).
	found *finding.ConfigSource
}

// findingOutput is what a command that reports findings offers.
func findingOutput() *outputFlags {
	return &outputFlags{formats: report.Formats, findings: true, config: true}
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.format, "format", "text", "output format: "+strings.Join(o.formats, ", "))
	if o.findings {
		fs.StringVar(&o.failOn, "fail-on", "warning", "exit 1 when a finding is at or above: error, warning, note, none")
	}
	if o.config {
		fs.StringVar(&o.configFile, "config", "", "the configuration to read (default: the nearest etlink.toml, or pyproject.toml with [tool.etlink], from the inputs up to the repository root)")
	}
	if o.findings {
		fs.StringVar(&o.baseline, "baseline", "", "report only findings whose fingerprint is not in this baseline file")
		fs.StringVar(&o.writeBaseline, "write-baseline", "", "write the findings' fingerprints to this file (accept them as the baseline; exit 0)")
		fs.StringVar(&o.srcroot, "srcroot", "", "write paths relative to this directory (text, SARIF %SRCROOT%, GitHub workspace)")
		fs.BoolVarP(&o.verbose, "verbose", "v", false, "list every finding, notes included, with its evidence chain and fix")
	}
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print no notes on stderr")
	fs.StringVar(&o.budget, "budget", "", "the run's limits, as kind=N,...: read, inflate (bytes: 64GiB), objects, demangle, include (docs/budgets.md)")
}

// registrar is a group of flags a command adds to its flag set.
type registrar interface{ register(*pflag.FlagSet) }

// flagFunc adds a command's own flags.
type flagFunc func(*pflag.FlagSet)

func (f flagFunc) register(fs *pflag.FlagSet) { f(fs) }

// parseReporting sets up a command's flags (extra first, then out's),
// parses args and validates the output flags. ok is false when the command
// must stop with code.
func (c *command) parseReporting(a *app, args []string, out *outputFlags, extra ...registrar) (fs *pflag.FlagSet, failOn finding.Severity, code int, ok bool) {
	fs = c.flags(a)
	for _, e := range extra {
		e.register(fs)
	}
	out.register(fs)
	if code, ok := c.parse(a, fs, args); !ok {
		return nil, 0, code, false
	}
	a.quiet = out.quiet
	a.console.verbose, a.console.hasV = out.verbose, out.findings
	failOn, err := out.check()
	if err == nil {
		err = a.startBudget(out, nil)
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "etlink %s: %v\nRun 'etlink %s --help' for usage.\n", c.name, err, c.name)
		return nil, 0, exitError, false
	}
	if !out.quiet {
		a.console.startProgress(c.name, fileOf(a.stderr))
	}
	return fs, failOn, 0, true
}

// check validates the flags before any input is read.
func (o *outputFlags) check() (finding.Severity, error) {
	if !slices.Contains(o.formats, o.format) {
		return 0, fmt.Errorf("--format %q: this command writes %s", o.format, strings.Join(o.formats, ", "))
	}
	if !o.findings {
		return finding.None, nil
	}
	sev, err := finding.ParseSeverity(o.failOn)
	if err != nil {
		return 0, fmt.Errorf("--fail-on: %v", err)
	}
	return sev, nil
}

// config loads the configuration for the inputs paths (never a --with
// peer's: the project checked is the user's), printing the error when it
// cannot.
func (a *app) config(o *outputFlags, paths []string) (*rules.Config, bool) {
	cfg, err := o.loadConfig(a, paths)
	o.sayConfig(a)
	if err == nil && len(cfg.Budget) > 0 {
		err = a.startBudget(o, cfg)
	}
	if err != nil {
		a.errorf("%v", err)
		return nil, false
	}
	return cfg, true
}

// startBudget starts the run's budget: the defaults, then cfg's [budget]
// table, then --budget.
func (a *app) startBudget(o *outputFlags, cfg *rules.Config) error {
	lim := budget.Defaults
	if cfg != nil {
		for _, kind := range slices.Sorted(maps.Keys(cfg.Budget)) {
			if err := lim.SetOne(kind, fmt.Sprint(cfg.Budget[kind])); err != nil {
				return fmt.Errorf("%s: [budget] %v", cfg.Path, err)
			}
		}
	}
	if o.budget != "" {
		if err := lim.Set(o.budget); err != nil {
			return fmt.Errorf("--budget: %v", err)
		}
	}
	a.budget = budget.New(lim)
	a.console.budget.Store(a.budget)
	analyze.BeginRun(a.budget)
	return nil
}

// orHere defaults a command's inputs to the current directory.
func orHere(paths []string) []string {
	if len(paths) == 0 {
		return []string{"."}
	}
	return paths
}

// loadConfig finds and reads the run's one configuration: --config, else
// the nearest etlink.toml or pyproject.toml [tool.etlink] from the inputs'
// common directory up (rules.FindConfig). An input that would find another
// file is said: the run still reads one.
func (o *outputFlags) loadConfig(a *app, paths []string) (*rules.Config, error) {
	if o.configFile != "" {
		o.found = &finding.ConfigSource{Path: o.configFile, FoundBy: "flag"}
		return rules.LoadConfig(o.configFile)
	}
	from := commonDir(paths)
	top := rules.ConfigTop(from)
	file, err := rules.FindConfig(from, top)
	if err != nil {
		return nil, err
	}
	o.found = &finding.ConfigSource{Path: file, FoundBy: "search", Searched: []string{from, top}}
	if file == "" {
		o.found.FoundBy = "none"
	}
	if len(paths) > 1 {
		sayOtherConfigs(a, paths, file, from)
	}
	if file == "" {
		return &rules.Config{}, nil
	}
	return rules.LoadConfig(file)
}

// sayConfig names the configuration a run read: under -v, or always for
// a command without -v.
func (o *outputFlags) sayConfig(a *app) {
	if o.found == nil || o.findings && !o.verbose {
		return
	}
	switch f := o.found; f.FoundBy {
	case "flag":
		a.Notef("configuration: %s (--config)", f.Path)
	case "search":
		a.Notef("configuration: %s (the nearest to %s)", f.Path, f.Searched[0])
	default:
		a.Notef("configuration: none (no etlink.toml or pyproject.toml [tool.etlink] from %s up to %s)", f.Searched[0], f.Searched[1])
	}
}

// sayOtherConfigs names the inputs whose own nearest configuration is not
// the one the run reads (found from their common directory, from).
func sayOtherConfigs(a *app, paths []string, file, from string) {
	for _, p := range paths {
		dir := inputDir(p)
		if other, _ := rules.FindConfig(dir, rules.ConfigTop(dir)); other != file {
			a.Notef("%s would read %s, the inputs together read %s (the nearest to %s): --config chooses", p, orNone(other), orNone(file), from)
		}
	}
}

func orNone(file string) string {
	if file == "" {
		return "no configuration"
	}
	return file
}

// inputDir is the absolute directory an input stands for: itself when it
// is a directory, else the directory holding it.
func inputDir(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return abs
	}
	return filepath.Dir(abs)
}

// commonDir is the deepest directory holding every input (the current
// directory when there is none).
func commonDir(paths []string) string {
	if len(paths) == 0 {
		wd, _ := os.Getwd()
		return wd
	}
	common := inputDir(paths[0])
	for _, p := range paths[1:] {
		d := inputDir(p)
		for common != d && !strings.HasPrefix(d, strings.TrimSuffix(common, "/")+"/") {
			common = filepath.Dir(common)
		}
	}
	return common
}

// envelope is the head of every JSON document a command writes that is not
// a finding report (scan, tree, why), the same as the report's.
type envelope struct {
	SchemaVersion int             `json:"schema_version"`
	Tool          finding.Tool    `json:"tool"`
	Command       string          `json:"command"`
	Inputs        []finding.Input `json:"inputs"`
	// Config is the configuration read, for a command that reads one (why).
	Config *finding.ConfigSource `json:"config,omitempty"`
}

func newEnvelope(command string, inputs []finding.Input) envelope {
	if inputs == nil {
		inputs = []finding.Input{}
	}
	return envelope{SchemaVersion: finding.SchemaVersion, Tool: finding.Tool{Name: "etlink", Version: thisBuild().version}, Command: command, Inputs: inputs}
}

// writeJSON writes a document that is not a finding report (why, rules,
// explain), indented as the report is; exitError when it cannot.
func (a *app) writeJSON(v any) int {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		a.errorf("%v", err)
		return exitError
	}
	return exitOK
}

// emit writes the report and returns the exit code.
func (a *app) emit(o *outputFlags, failOn finding.Severity, r *finding.Report) int {
	r.SchemaVersion = finding.SchemaVersion
	r.Tool = finding.Tool{Name: "etlink", Version: thisBuild().version}
	r.Config = o.found
	if o.writeBaseline != "" {
		if err := overwritable(o.writeBaseline, r.Inputs); err != nil {
			a.errorf("--write-baseline: %v: not overwritten", err)
			return exitError
		}
		if err := writeBaselineFile(o.writeBaseline, r.Findings); err != nil {
			a.errorf("--write-baseline: %v", err)
			return exitError
		}
		a.Notef("%s: %d findings accepted as the baseline", o.writeBaseline, len(r.Findings))
	}
	if o.baseline != "" {
		b, err := report.ReadBaseline(o.baseline)
		if err != nil {
			a.errorf("--baseline: %v", err)
			return exitError
		}
		var suppressed int
		all := r.Findings
		r.Findings, suppressed = b.Filter(all)
		a.Notef("%s: %d findings already in the baseline", o.baseline, suppressed)
		if stale := b.Unmatched(all); len(stale) > 0 {
			a.Notef("%s: %d entries match no finding any more (fixed? drop them with --write-baseline)", o.baseline, len(stale))
		}
	}
	r.Summary = finding.Summarize(r.Findings)
	analyze.NoteSpending(a.budget, o.verbose, a)
	opt := report.Options{Verbose: o.verbose, Rules: rules.Docs(), BaseDir: o.srcroot}
	opt.Width, opt.Color = textTerminal(a.stdout, o.format)
	if opt.BaseDir == "" && o.format == "sarif" {
		// SARIF consumers (code scanning) resolve paths against the checkout.
		opt.BaseDir, _ = os.Getwd()
	}
	if err := report.Write(a.stdout, o.format, r, opt); err != nil {
		a.errorf("writing report: %v", err)
		return exitError
	}
	a.lookup.Save() // after the report: what the index learnt serves the next run
	switch {
	case a.inputErrors > 0:
		return exitError
	case o.writeBaseline != "":
		return exitOK // the findings were just accepted
	case failOn != finding.None && finding.Max(r.Findings) >= failOn:
		return exitFindings
	}
	return exitOK
}

// overwritable says why the file at path must not be replaced by a
// baseline: it is one of the inputs, or it exists and is not a baseline
// (a file of the tree, an input's library). A new file, or an old
// baseline, may be written.
func overwritable(path string, inputs []finding.Input) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // nothing there (or nothing readable: writing will say)
	}
	for _, in := range inputs {
		file, _, _ := strings.Cut(in.Path, "!")
		if ifi, err := os.Stat(file); err == nil && os.SameFile(fi, ifi) {
			return fmt.Errorf("%s is the input %s", path, in.Path)
		}
	}
	if _, err := report.ReadBaseline(path); err != nil {
		return fmt.Errorf("%s exists and is not an etlink baseline (%v)", path, err)
	}
	return nil
}

// writeBaselineFile writes the baseline that accepts fs.
func writeBaselineFile(path string, fs []finding.Finding) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.WriteBaseline(f, fs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

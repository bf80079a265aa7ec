package main

import (
	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/rules"
)

var retentionCmd = &command{
	name:    "retention",
	args:    "[flags] [BUILD-DIR | link.txt | build.ninja | MAP | LOG]...",
	summary: "registrations dropped or doubled at link time (ET101-ET104), extensions linking libpython (ET201)",
	help: `Reads link commands and decides, for every shared library and archive member whose
static initializer registers something, whether the link keeps it: from the output's
DT_NEEDED and the linker map when they exist, predicted from the inputs and the
linker's rules when they do not.

A unit registers when a static initializer hands its own functions, vtables,
typeinfos or objects to code outside it that no toolchain runtime defines: tests,
benchmarks, flags, protobuf descriptors, Python modules, backends and kernels, with
no configuration. etlink.toml [registration] patterns add registries (C names too)
and exclude removes them; a pattern that matches nothing is a note (ET003).

Inputs may be mixed: a CMake build directory (the File API reply when configured
with a codemodel-v2 query, which maps each link item to its CMakeLists.txt line;
else build.ninja; else every CMakeFiles/*/link.txt; plus every linker map in it),
link.txt or build.ninja files, linker maps (bfd, gold, lld, mold), and build logs
or files of raw command lines (make VERBOSE=1, ninja -v). The map a link's -Map=
names is read when it exists. Default: the current directory.

Debian's and Ubuntu's gcc pass --as-needed to the linker by default; etlink asks
the compiler named on the line, by reading its built-in link spec from the file
(etlink never runs a program a build tree names). --default-as-needed overrides.

Examples:
  etlink retention build/
  etlink retention build/CMakeFiles/_portable_lib.dir/link.txt build/_portable_lib.map
  ninja -C build -v > build.log; etlink retention build.log
  etlink retention build/ --format json --fail-on error`,
	run: runRetention,
}

// retentionFlags are the flags retention and why share.
type retentionFlags struct {
	defaultAsNeeded string
}

func (r *retentionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&r.defaultAsNeeded, "default-as-needed", "auto", "the driver's --as-needed default: on, off, or auto (ask the compiler)")
}

// linkOptions is what reading links needs from the flags and the config:
// OpenLinks' options and registration patterns, in the fields of
// LintOptions that carry them.
func (a *app) linkOptions(rf *retentionFlags, cfg *rules.Config) (analyze.LintOptions, bool) {
	links, err := analyze.LinkOptions(rf.defaultAsNeeded, a.budget)
	if err != nil {
		a.errorf("--default-as-needed %v", err)
		return analyze.LintOptions{}, false
	}
	patterns, err := cfg.RegistrationPatterns()
	if err != nil {
		a.errorf("%v", err)
		return analyze.LintOptions{}, false
	}
	return analyze.LintOptions{Links: links, Patterns: patterns}, true
}

// analyzeLinks collects the links among paths and decides each one's fate.
func (a *app) analyzeLinks(paths []string, rf *retentionFlags, cfg *rules.Config) ([]*analyze.LinkFacts, []finding.Input, bool) {
	opt, ok := a.linkOptions(rf, cfg)
	if !ok {
		return nil, nil, false
	}
	facts, inputs := analyze.OpenLinks(paths, opt.Links, opt.Patterns, a)
	return facts, inputs, true
}

func runRetention(c *command, a *app, args []string) int {
	out := findingOutput()
	var rf retentionFlags
	fs, failOn, code, ok := c.parseReporting(a, args, out, &rf)
	if !ok {
		return code
	}
	paths := orHere(fs.Args())
	cfg, ok := a.config(out, paths)
	if !ok {
		return exitError
	}
	facts, inputs, ok := a.analyzeLinks(paths, &rf, cfg)
	if !ok {
		return exitError
	}
	ctx := &rules.Context{Retention: facts, Config: cfg, Roots: paths}
	r := &finding.Report{Command: "retention", Inputs: inputs,
		Findings: rules.Run(ctx, rules.RetentionRules)}
	return a.emit(out, failOn, r)
}

package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/ldcache"
	"github.com/etlink/etlink/linkline"
	"github.com/etlink/etlink/rules"
)

var retentionCmd = &command{
	name:    "retention",
	args:    "[flags] [BUILD-DIR | link.txt | build.ninja | MAP | LOG]...",
	summary: "registrations dropped at link time (ET101-ET103), extensions linking libpython (ET201)",
	help: `Reads link commands and decides, for every shared library and archive member whose
static initializer registers a backend or kernels, whether the link keeps it: from
the output's DT_NEEDED and the linker map when they exist, predicted from the inputs
and the linker's rules when they do not.

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

func (r *retentionFlags) options() (linkline.Options, error) {
	var opt linkline.Options
	switch r.defaultAsNeeded {
	case "auto", "":
	case "on", "off":
		v := r.defaultAsNeeded == "on"
		opt.DefaultAsNeeded = &v
	default:
		return opt, fmt.Errorf("--default-as-needed %q: want on, off or auto", r.defaultAsNeeded)
	}
	return opt, nil
}

// analyzeLinks collects the links among paths and decides each one's fate.
func (a *app) analyzeLinks(paths []string, rf *retentionFlags, cfg *rules.Config) ([]*analyze.LinkFacts, []finding.Input, bool) {
	opt, err := rf.options()
	if err != nil {
		a.errorf("%v", err)
		return nil, nil, false
	}
	patterns, err := cfg.RegistrationPatterns()
	if err != nil {
		a.errorf("%v", err)
		return nil, nil, false
	}
	in, errs := analyze.CollectLinks(paths, opt)
	inputs := make([]finding.Input, 0, len(paths))
	for _, p := range paths {
		inputs = append(inputs, finding.Input{Path: p})
	}
	for _, err := range errs {
		a.inputError(err)
		inputs = append(inputs, finding.Input{Path: errorPath(err), Error: err.Error()})
	}
	for p, what := range in.Sources {
		a.notef("%s: read %s", p, what)
	}
	cache, err := ldcache.Load("/etc/ld.so.cache")
	if err != nil {
		a.notef("no ld.so.cache (%v): searching default directories only", err)
	}
	engine := analyze.NewRetention(patterns, analyze.NewLoader(cache, nil))
	var facts []*analyze.LinkFacts
	unbuilt, unread := 0, 0
	for _, l := range in.Links {
		m, err := in.MapFor(l)
		if err != nil {
			a.inputError(err)
			inputs = append(inputs, finding.Input{Path: errorPath(err), Error: err.Error()})
		}
		f := engine.Analyze(l, m)
		if f.Output == nil {
			unbuilt++
		}
		for _, err := range f.Unread {
			if errors.Is(err, fs.ErrNotExist) {
				unread++
				continue
			}
			a.inputError(err)
			inputs = append(inputs, finding.Input{Path: errorPath(err), Error: err.Error()})
		}
		facts = append(facts, f)
	}
	a.notef("%d links, %d maps", len(in.Links), len(in.Maps))
	if unbuilt > 0 {
		a.notef("%d of the %d links have no output yet: nothing was observed for them; their fates are predicted from the inputs and the linkers' rules", unbuilt, len(in.Links))
	}
	if unread > 0 {
		a.notef("%d inputs of those links do not exist (not built?): nothing is predicted from them either; build the tree for a full answer", unread)
	}
	if len(in.Links) == 0 && len(in.Maps) > 0 {
		a.notef("maps but no link line: a map does not say which libraries were under --as-needed (gold, lld and mold do not even name those they dropped), so ET101 cannot be decided from maps alone; give the build directory, build.ninja or link.txt too")
	}
	return facts, inputs, true
}

// errorPath is the input an error names: the text before the first ": ".
func errorPath(err error) string {
	s := err.Error()
	for i := 0; i+1 < len(s); i++ {
		if s[i] == ':' && s[i+1] == ' ' {
			return s[:i]
		}
	}
	return s
}

func runRetention(c *command, a *app, args []string) int {
	out := findingOutput()
	var rf retentionFlags
	fs, failOn, code, ok := c.parseReporting(a, args, out, &rf)
	if !ok {
		return code
	}
	cfg, ok := a.config(out)
	if !ok {
		return exitError
	}
	paths := orHere(fs.Args())
	facts, inputs, ok := a.analyzeLinks(paths, &rf, cfg)
	if !ok {
		return exitError
	}
	ctx := &rules.Context{Retention: facts, Config: cfg, Roots: paths}
	r := &finding.Report{Command: "retention", Inputs: inputs,
		Findings: rules.Run(ctx, []*rules.Rule{rules.ET101, rules.ET102, rules.ET103, rules.ET201})}
	return a.emit(out, failOn, r)
}

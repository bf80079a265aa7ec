package main

import (
	"fmt"
	"strings"

	"github.com/etlink/etlink/rules"
	"github.com/spf13/pflag"
)

var whyCmd = &command{
	name:    "why",
	args:    "[flags] NAME [BUILD-DIR | link.txt | build.ninja | MAP | LOG]...",
	summary: "explain why a backend, library or archive member was kept or dropped",
	help: `Prints, for each consumer that links NAME, the chain that decides its fate:
where it stands on the link line and in what linker state, whether anything
references it, what the linker map says, whether it reached the output's
DT_NEEDED, what its static initializer registers, and into which registry copy.

NAME matches (case-insensitively, as a substring) a library's file name or SONAME,
an archive member, the link argument, or the initializer or registration function.
Inputs are as for "etlink retention"; default: the current directory. Exit
status 1 when what NAME registers is lost (dropped) or registered twice in
some consumer, when it is not built yet (a configured tree: what it registers
cannot be read), or when NAME is on no link line that was read; 0 when every
consumer keeps it once.

Examples:
  etlink why xnnpack build/
  etlink why libxnnpack_backend.so --in _portable_lib build/
  etlink why register_kernels.o build/ --format json`,
	run: runWhy,
}

// whyReport is why's JSON.
type whyReport struct {
	envelope
	Name   string        `json:"name"`
	In     string        `json:"in,omitempty"`
	Chains []rules.Chain `json:"chains"`
}

func runWhy(c *command, a *app, args []string) int {
	out := &outputFlags{formats: []string{"text", "json"}, config: true}
	var rf retentionFlags
	var in string
	fs, _, code, ok := c.parseReporting(a, args, out, flagFunc(func(fs *pflag.FlagSet) {
		fs.StringVar(&in, "in", "", "only consumers whose target or output name contains this")
	}), &rf)
	if !ok {
		return code
	}
	if fs.NArg() == 0 {
		a.errorf("why: no NAME given\nRun 'etlink why --help' for usage.")
		return exitError
	}
	name, paths := fs.Arg(0), orHere(fs.Args()[1:])
	cfg, ok := a.config(out, paths)
	if !ok {
		return exitError
	}
	facts, inputs, ok := a.analyzeLinks(paths, &rf, cfg)
	if !ok {
		return exitError
	}
	chains := rules.Why(facts, name, in, cfg)
	if out.format == "json" {
		if chains == nil {
			chains = []rules.Chain{}
		}
		env := newEnvelope("why", inputs)
		env.Config = out.found
		if code := a.writeJSON(whyReport{envelope: env, Name: name, In: in, Chains: chains}); code != exitOK {
			return code
		}
	} else {
		printChains(a, name, in, chains)
	}
	switch {
	case a.inputErrors > 0:
		return exitError
	case len(chains) == 0:
		return exitFindings
	}
	for _, c := range chains {
		if c.Lost || c.Twice || c.NotBuilt {
			return exitFindings
		}
	}
	return exitOK
}

func printChains(a *app, name, in string, chains []rules.Chain) {
	if len(chains) == 0 {
		where := "any link"
		if in != "" {
			where = "the links of consumers matching " + in
		}
		a.println(fmt.Sprintf("%q is on no line of %s etlink read.", name, where))
		return
	}
	for i, c := range chains {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		a.println(fmt.Sprintf("%s (%s) in %s", c.Subject, c.Kind, c.Consumer))
		for j, s := range c.Steps {
			for k, line := range strings.Split(s.Text, "\n") {
				if k == 0 {
					a.println(fmt.Sprintf("  %d. %s", j+1, line))
				} else {
					a.println("     " + line)
				}
			}
		}
		a.println("  => " + c.Verdict)
		if c.Fix != "" {
			a.println("  fix: " + c.Fix)
		}
	}
}

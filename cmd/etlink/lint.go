package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/rules"
)

var lintCmd = &command{
	name:    "lint",
	args:    "[flags] [BUILD-DIR | SOURCE-DIR | CMakeLists.txt]...",
	summary: "pre-merge lint of CMake: ET202 at the CMakeLists.txt line, and ET101/ET102/ET201 with a configured build",
	help: `Reads the CMake project (its top CMakeLists.txt, add_subdirectory() and include()d
files, user functions and macros evaluated) and reports, at the line that wrote it, every
Python extension target that links the embedding Python library (ET202). Given a build
directory configured with a File API query (.cmake/api/v1/query/codemodel-v2), it also
reports the registrations its links drop (ET101, ET102, ET103) and judges ET202 by what
CMake's codemodel links, located at the CMakeLists.txt line that added the link.

The source is read for Linux (if(APPLE) and if(WIN32) false, if(UNIX) true) and a
target's LINK_LIBRARIES as it stands at the end of configuration, so a project that
strips libpython with get_target_property/list(FILTER)/set_target_properties is judged by
the result. What etlink cannot evaluate (a variable find_package sets, an option a build
may flip) is read both ways and summarised in one line on stderr; -v lists each note,
and -D decides a condition as cmake -D would.

Suppress a finding with a comment on its line or the line above:
  target_link_libraries(ext PRIVATE Python3::Python)  # etlink: ignore ET202 test shim
A directive must name a rule and give a reason (ET001); one that silences nothing is
reported (ET002).

--changed keeps only findings located in files that differ from --base (default HEAD:
the uncommitted change) in git.

Examples:
  etlink lint                                   # the project in the current directory
  etlink lint build/ --format github --changed --base origin/main
  etlink lint build/ --format sarif > etlink.sarif
  etlink lint extension/pybindings/CMakeLists.txt
  etlink lint . -D EXECUTORCH_BUILD_PYBIND=ON -D APPLE=ON   # as configured for macOS`,
	run: runLint,
}

func runLint(c *command, a *app, args []string) int {
	out := findingOutput()
	var rf retentionFlags
	var changed bool
	var base string
	var defines []string
	fs, failOn, code, ok := c.parseReporting(a, args, out, flagFunc(func(fs *pflag.FlagSet) {
		fs.BoolVar(&changed, "changed", false, "only findings in files changed against --base (git)")
		fs.StringVar(&base, "base", "HEAD", "the git revision --changed compares against")
		fs.StringArrayVarP(&defines, "define", "D", nil, "NAME[:TYPE]=VALUE: a cache variable as cmake -D sets it (repeatable)")
	}), &rf)
	if !ok {
		return code
	}
	cfg, ok := a.config(out)
	if !ok {
		return exitError
	}
	vars, err := cmakeDefines(defines)
	if err != nil {
		a.errorf("%v", err)
		return exitError
	}
	paths := orHere(fs.Args())
	var sources, builds []string
	for _, p := range paths {
		src, build := classifyLintPath(p)
		if src == "" && build == "" {
			a.InputError(pathError(p, "neither a CMake source directory, a build directory nor a CMakeLists.txt"))
			continue
		}
		if src != "" {
			sources = append(sources, src)
		}
		if build != "" {
			builds = append(builds, build)
		}
	}
	ctx := &rules.Context{Config: cfg, Suppressions: []*rules.Suppression{}, Roots: paths}
	var inputs []finding.Input
	for _, src := range dedupeStrings(sources) {
		proj, errs := cmake.Load(src, cmake.Options{Vars: vars})
		inputs = append(inputs, finding.Input{Path: filepath.Join(src, "CMakeLists.txt")})
		for _, err := range errs {
			a.InputError(err)
			inputs = append(inputs, analyze.InputFailed(err))
		}
		if proj == nil {
			continue
		}
		a.cmakeNotes(proj.Notes, out.verbose)
		if ctx.CMake == nil {
			ctx.CMake = proj
		} else {
			ctx.CMake.Targets = append(ctx.CMake.Targets, proj.Targets...)
			ctx.CMake.Files = append(ctx.CMake.Files, proj.Files...)
		}
		ctx.Suppressions = append(ctx.Suppressions, rules.Suppressions(proj.Files)...)
	}
	checks := rules.LintRules
	if len(builds) > 0 {
		facts, in, ok := a.analyzeLinks(builds, &rf, cfg)
		if !ok {
			return exitError
		}
		ctx.Retention = facts
		inputs = append(inputs, in...)
		checks = append(slices.Clip(checks), rules.RetentionRules...)
	}
	findings := sameFact(rules.Run(ctx, checks))
	if changed {
		root := "."
		if len(sources) > 0 {
			root = sources[0]
		}
		files, err := changedFiles(root, base)
		if err != nil {
			a.errorf("--changed: %v", err)
			return exitError
		}
		findings = onlyIn(findings, files)
	}
	return a.emit(out, failOn, &finding.Report{Command: "lint", Inputs: inputs, Findings: findings})
}

// cmakeDefines reads -D arguments as cmake does: NAME=VALUE or
// NAME:TYPE=VALUE, the type dropped (a BOOL's value is read by if() anyway).
func cmakeDefines(defs []string) (map[string]string, error) {
	vars := map[string]string{}
	for _, d := range defs {
		name, value, ok := strings.Cut(d, "=")
		name, _, _ = strings.Cut(name, ":")
		if !ok || name == "" {
			return nil, fmt.Errorf("-D %q: want NAME=VALUE or NAME:TYPE=VALUE", d)
		}
		vars[name] = value
	}
	return vars, nil
}

// cmakeNotes says what the evaluation could not know: every note with -v,
// else one line counting them by kind (a real project has hundreds, mostly
// conditions on options a build sets).
func (a *app) cmakeNotes(notes []cmake.Note, verbose bool) {
	if verbose {
		for _, n := range notes {
			a.Notef("%s", n)
		}
		return
	}
	if len(notes) == 0 {
		return
	}
	count := map[string]int{}
	for _, n := range notes {
		count[n.Kind]++
	}
	var parts []string
	for _, k := range []struct{ kind, what string }{
		{cmake.NoteUndecided, "conditions or arguments not evaluated (all branches read)"},
		{cmake.NoteMissing, "directories or files absent (submodules not checked out?)"},
		{cmake.NoteModule, "CMake modules or files outside the tree"},
		{cmake.NoteRedefined, "targets defined in more than one branch"},
		{cmake.NoteTarget, "commands on targets not defined in the tree"},
		{cmake.NoteLimit, "evaluation bounds reached"},
	} {
		if n := count[k.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.what))
		}
	}
	a.Notef("CMake evaluation: %d notes: %s (-v lists them)", len(notes), strings.Join(parts, "; "))
}

// sameFact drops an ET201 finding (an extension's link line names
// libpython) that an ET202 finding from CMake's codemodel reports for the
// same target at the same CMakeLists.txt line: one fact, said once, by the
// rule a CMake lint is about.
func sameFact(fs []finding.Finding) []finding.Finding {
	type key struct {
		target string
		loc    finding.Location
	}
	said := map[key]bool{}
	for _, f := range fs {
		if f.Rule == rules.ET202.ID && f.Location != nil {
			said[key{f.Subject.Target, *f.Location}] = true
		}
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Rule == rules.ET201.ID && f.Location != nil && said[key{f.Subject.Target, *f.Location}] {
			continue
		}
		out = append(out, f)
	}
	return out
}

// classifyLintPath finds the source and build directory a path names: a
// build directory (CMakeCache.txt: the source is its CMAKE_HOME_DIRECTORY),
// a source directory (CMakeLists.txt), or a CMakeLists.txt file.
func classifyLintPath(p string) (source, build string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", ""
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", ""
	}
	if !fi.IsDir() {
		if filepath.Base(abs) == "CMakeLists.txt" {
			return filepath.Dir(abs), ""
		}
		return "", ""
	}
	if home := cacheValue(filepath.Join(abs, "CMakeCache.txt"), "CMAKE_HOME_DIRECTORY"); home != "" {
		return home, abs
	}
	if _, err := os.Stat(filepath.Join(abs, "CMakeLists.txt")); err == nil {
		return abs, ""
	}
	return "", ""
}

// cacheValue reads one entry of a CMakeCache.txt (NAME:TYPE=VALUE).
func cacheValue(file, name string) string {
	f, _, err := datafile.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && strings.HasPrefix(k, name+":") {
			return v
		}
	}
	return ""
}

// changedFiles lists the files that differ from base in the git checkout
// holding dir, as absolute paths, untracked files included.
func changedFiles(dir, base string) (map[string]bool, error) {
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	top = strings.TrimSpace(top)
	diff, err := git(dir, "diff", "--name-only", "--no-ext-diff", "--no-textconv", base, "--")
	if err != nil {
		return nil, err
	}
	untracked, err := git(dir, "ls-files", "--others", "--exclude-standard", "--full-name")
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, name := range strings.Fields(diff + "\n" + untracked) {
		files[filepath.Join(top, name)] = true
	}
	return files, nil
}

// gitSafety are the settings every git call of etlink overrides: the
// repository linted is untrusted, and its config may name programs git
// would run (an fsmonitor hook, a pager, an external diff, hooks).
var gitSafety = []string{
	"-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
	"-c", "diff.external=", "-c", "core.untrackedCache=false", "-c", "core.sshCommand=false",
	"--no-pager",
}

// git runs git in dir with the repository's config unable to run anything
// (gitSafety, no system or global config, no prompts, no optional locks).
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append(append([]string{"-C", dir}, gitSafety...), args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "GIT_EXTERNAL_DIFF=", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return "", pathError("git "+strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return string(out), nil
}

// onlyIn keeps the findings located in one of files.
func onlyIn(fs []finding.Finding, files map[string]bool) []finding.Finding {
	var kept []finding.Finding
	for _, f := range fs {
		if f.Location != nil && files[filepath.Clean(f.Location.File)] {
			kept = append(kept, f)
		}
	}
	return kept
}

func dedupeStrings(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

type lintPathError struct{ path, msg string }

func (e *lintPathError) Error() string { return e.path + ": " + e.msg }

func pathError(path, msg string) error { return &lintPathError{path, msg} }

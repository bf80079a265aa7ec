package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
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
the uncommitted change) in git. A --base the checkout lacks (a CI runner's shallow
clone) is an error naming the git fetch that brings it: etlink never fetches.

Examples:
  etlink lint                                   # the project in the current directory
  etlink lint build/ --format github --changed --base origin/main
  etlink lint build/ --format sarif > etlink.sarif
  etlink lint extension/pybindings/CMakeLists.txt
  etlink lint . -D EXECUTORCH_BUILD_PYBIND=ON -D APPLE=ON   # as configured for macOS
  etlink lint . --cmake-version 3.14            # as an old CMake reads it (if(TARGET Python::Module) false)`,
	run: runLint,
}

func runLint(c *command, a *app, args []string) int {
	out := findingOutput()
	var rf retentionFlags
	var changed bool
	var base string
	var defines []string
	var cmakeVersion, root string
	fs, failOn, code, ok := c.parseReporting(a, args, out, flagFunc(func(fs *pflag.FlagSet) {
		fs.BoolVar(&changed, "changed", false, "only findings in files changed against --base (git)")
		fs.StringVar(&base, "base", "HEAD", "the git revision --changed compares against")
		fs.StringArrayVarP(&defines, "define", "D", nil, "NAME[:TYPE]=VALUE: a cache variable as cmake -D sets it (repeatable)")
		fs.StringVar(&root, "root", "", "the directory whose CMake files the project may include from outside the linted one (default: the enclosing git repository, found by its .git, git never run)")
		fs.StringVar(&cmakeVersion, "cmake-version", "", "the CMake release whose behaviour to take (CMAKE_VERSION, FindPython's targets); default: a build directory's, else "+analyze.DefaultCMakeVersion+" raised to the project's cmake_minimum_required")
	}), &rf)
	if !ok {
		return code
	}
	paths := orHere(fs.Args())
	cfg, ok := a.config(out, paths)
	if !ok {
		return exitError
	}
	vars, err := cmakeDefines(defines)
	if err != nil {
		a.errorf("%v", err)
		return exitError
	}
	opt, ok := a.linkOptions(&rf, cfg)
	if !ok {
		return exitError
	}
	opt.Vars, opt.Verbose, opt.CMakeVersion, opt.Root = vars, out.verbose, cmakeVersion, root
	s := analyze.OpenLint(paths, opt, a)
	findings := rules.RunLint(rules.NewLintContext(s, cfg, paths))
	if changed {
		root := "."
		if len(s.Sources) > 0 {
			root = s.Sources[0]
		}
		files, err := changedFiles(root, base)
		var missing *missingBase
		switch {
		case errors.As(err, &missing) && missing.fetch != "":
			a.errorf("--changed: --base %s is not in this checkout, and etlink never fetches; bring it with\n  %s", base, missing.fetch)
			return exitError
		case err != nil:
			a.errorf("--changed: %v", err)
			return exitError
		}
		findings = onlyIn(findings, files)
	}
	return a.emit(out, failOn, &finding.Report{Command: "lint", Inputs: s.Inputs, Findings: findings})
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

// changedFiles lists the files that differ from base in the git checkout
// holding dir, as absolute paths, untracked files included.
func changedFiles(dir, base string) (map[string]bool, error) {
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	top = strings.TrimSpace(top)
	if _, err := git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}"); err != nil {
		return nil, baseFetch(dir, base)
	}
	diff, err := git(dir, "diff", "--name-only", "--no-ext-diff", "--no-textconv", "--end-of-options", base, "--")
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

// missingBase is a --base the checkout lacks, with the git fetch that
// brings it (fetchCommand). etlink never fetches: a fetch would run the
// repository's credential helpers and ssh commands.
type missingBase struct{ base, fetch string }

func (m *missingBase) Error() string {
	return fmt.Sprintf("--base %s: no such commit in this repository", m.base)
}

// baseFetch is the missingBase for base in the checkout holding dir.
func baseFetch(dir, base string) *missingBase {
	shallow, _ := git(dir, "rev-parse", "--is-shallow-repository")
	remotes, _ := git(dir, "remote")
	return &missingBase{base, fetchCommand(dir, base, strings.Fields(remotes), strings.TrimSpace(shallow) == "true")}
}

// ancestry splits REV~N, REV^, REV^2~3 ... into REV and how many
// generations back the whole suffix reaches. Compiled when first used:
// every command would pay for them when the program starts.
var (
	ancestry     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+?)((?:~[0-9]*|\^[0-9]?)+)$`) })
	ancestorStep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([~^])([0-9]*)`) })
)

// fetchCommand is the git fetch that brings base into the checkout: a
// remote-tracking branch is fetched into its ref, a commit's ancestor by
// deepening the history below the commit, anything else into FETCH_HEAD.
// It is "" when no fetch would help (no remote; a name missing from a
// full clone, which fetching a tracking branch cannot supply).
func fetchCommand(dir, base string, remotes []string, shallow bool) string {
	if len(remotes) == 0 {
		return ""
	}
	depth := ""
	if shallow {
		depth = "--depth=1 "
	}
	for _, r := range remotes {
		if branch, ok := strings.CutPrefix(base, r+"/"); ok && branch != "" {
			return fmt.Sprintf("git fetch --no-tags %s%s +refs/heads/%s:refs/remotes/%s/%s", depth, r, branch, r, branch)
		}
	}
	if !shallow {
		return ""
	}
	remote := remotes[0]
	if slices.Contains(remotes, "origin") {
		remote = "origin"
	}
	if m := ancestry().FindStringSubmatch(base); m != nil {
		if rev, err := git(dir, "rev-parse", "--verify", "--quiet", "--end-of-options", m[1]+"^{commit}"); err == nil {
			return fmt.Sprintf("git fetch --no-tags --deepen=%d %s %s", generations(m[2]), remote, strings.TrimSpace(rev))
		}
	}
	return fmt.Sprintf("git fetch --no-tags --depth=1 %s %s   # then --base FETCH_HEAD", remote, base)
}

// generations counts how far back an ancestry suffix (~N, ~, ^, ^N) reaches:
// ~N is N generations, ^N (a parent) one, ^0 (the commit itself) none.
func generations(suffix string) int {
	n := 0
	for _, m := range ancestorStep().FindAllStringSubmatch(suffix, -1) {
		k, err := strconv.Atoi(m[2])
		switch {
		case err != nil: // ~ or ^ alone
			n++
		case m[1] == "~":
			n += k
		case k > 0:
			n++
		}
	}
	return n
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
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
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

package rules

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/linkline"
)

// The per-rule harness (testdata/README.md): every rule has cases under
// testdata/<ID>/<case>/, each a fixture built by the real toolchain from the
// sources beside it (build.sh) or CMake read as written, and the findings of
// that rule it must give, written beside it: in the case's want file, or as
// "# want RULE SEVERITY "regexp"" comments on the CMakeLists.txt line the
// finding must point at (a want on a line of its own is about the next line). Every finding of the rule must be wanted and every
// want must be found, as go/analysis's analysistest checks // want.

// want is one expected finding.
type want struct {
	at       string // the want file's line, or FILE:LINE of a # want comment
	rule     string
	severity string
	file     string // subject file below the case's output ("" for any)
	line     int    // location line (# want comments)
	symbol   string // subject symbol ("*": any)
	message  *regexp.Regexp
	found    bool
}

func (w *want) matches(f finding.Finding, out string) bool {
	if f.Rule != w.rule || f.Severity.String() != w.severity || !w.message.MatchString(f.Message) {
		return false
	}
	if w.line > 0 {
		return f.Location != nil && f.Location.Line == w.line && sameFile(f.Location.File, w.file)
	}
	if w.symbol != "*" && f.Subject.Symbol != w.symbol {
		return false
	}
	return w.file == "" || relOut(f.Subject.File, out) == w.file
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// relOut is a subject file as a want names it: below the case's output.
func relOut(p, out string) string {
	if rel, err := filepath.Rel(out, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// ruleCase is one directory of testdata/<ID>/.
type ruleCase struct {
	dir  string     // the case's sources
	out  string     // where build.sh built it (dir when there is none)
	runs [][]string // the run lines: command and arguments, each run on its own
	want []*want
}

var wantLine = regexp.MustCompile(`^(ET\d{3})\s+(error|warning|note)\s+(\S+)\s+(\S+)\s+"(.*)"$`)
var wantComment = regexp.MustCompile(`#\s*want\s+(ET\d{3})\s+(error|warning|note)\s+"(.*)"`)

func readCase(t *testing.T, dir, out string) *ruleCase {
	t.Helper()
	c := &ruleCase{dir: dir, out: out}
	f, err := os.Open(filepath.Join(dir, "want"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "run "):
			c.runs = append(c.runs, strings.Fields(line)[1:])
		default:
			m := wantLine.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s/want:%d: want RULE SEVERITY FILE SYMBOL \"regexp\", or run COMMAND ARGS: %q", dir, n, line)
			}
			file := m[3]
			if file == "*" {
				file = ""
			}
			c.want = append(c.want, &want{at: fmt.Sprintf("want:%d", n), rule: m[1], severity: m[2], file: file,
				symbol: m[4], message: regexp.MustCompile(m[5])})
		}
	}
	if len(c.runs) == 0 {
		t.Fatalf("%s/want: no run line", dir)
	}
	// # want comments in the CMake the case holds.
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "CMakeLists.txt" && !strings.HasSuffix(d.Name(), ".cmake") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := wantComment.FindStringSubmatch(line); m != nil {
				at := i + 1
				if strings.HasPrefix(strings.TrimSpace(line), "#") {
					at++ // a want on a line of its own is about the next line (an ignore directive, itself a comment)
				}
				c.want = append(c.want, &want{at: fmt.Sprintf("%s:%d", p, i+1), rule: m[1], severity: m[2], file: p, line: at,
					symbol: "*", message: regexp.MustCompile(m[3])})
			}
		}
		return nil
	})
	return c
}

// discard is the session's log in the harness: notes are the CLI's
// business; an unreadable input fails the case.
type discard struct{ t *testing.T }

func (d discard) Notef(string, ...any) {}
func (d discard) InputError(err error) { d.t.Errorf("input error: %v", err) }

// findings runs the case's commands and returns all their findings.
func (c *ruleCase) findings(t *testing.T) []finding.Finding {
	t.Helper()
	var out []finding.Finding
	for _, run := range c.runs {
		out = append(out, c.findingsOf(t, run[0], run[1:])...)
	}
	return out
}

// findingsOf runs one command as etlink would, with every rule that
// command runs.
func (c *ruleCase) findingsOf(t *testing.T, cmd string, args []string) []finding.Finding {
	t.Helper()
	var paths, with []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--with" && i+1 < len(args) {
			with = append(with, filepath.Join(c.out, args[i+1]))
			i++
			continue
		}
		paths = append(paths, filepath.Join(c.out, args[i]))
	}
	cfg := &Config{}
	if _, err := os.Stat(filepath.Join(c.dir, "etlink.toml")); err == nil {
		var err error
		if cfg, err = LoadConfig(filepath.Join(c.dir, "etlink.toml")); err != nil {
			t.Fatal(err)
		}
	}
	log := discard{t}
	switch cmd {
	case "check", "conflicts":
		order, _ := analyze.ParseLoadOrder("torch,wheel")
		s, err := analyze.Open(analyze.Options{Paths: paths, With: with, Pythons: []string{"/usr/bin/python3"}, Order: order,
			Narrow: cmd == "conflicts", Package: cmd == "check", Log: log})
		if err != nil {
			t.Fatal(err)
		}
		ctx, err := NewContext(s, cfg, paths)
		if err != nil {
			t.Fatal(err)
		}
		if cmd == "conflicts" {
			return Run(ctx, ConflictsRules)
		}
		return Run(ctx, CheckRules(len(with) > 0))
	case "retention":
		patterns, err := cfg.RegistrationPatterns()
		if err != nil {
			t.Fatal(err)
		}
		facts, _ := analyze.OpenLinks(paths, linkline.Options{}, patterns, log)
		return Run(&Context{Retention: facts, Config: cfg, Roots: paths}, RetentionRules)
	case "lint":
		patterns, err := cfg.RegistrationPatterns()
		if err != nil {
			t.Fatal(err)
		}
		return RunLint(NewLintContext(analyze.OpenLint(paths, analyze.LintOptions{Patterns: patterns}, log), cfg, paths))
	}
	t.Fatalf("run %s: want check, conflicts, retention or lint", cmd)
	return nil
}

// TestRuleHarness runs every case of every rule.
func TestRuleHarness(t *testing.T) {
	for _, r := range All() {
		t.Run(r.ID, func(t *testing.T) {
			cases, _ := filepath.Glob(filepath.Join("testdata", r.ID, "*", "want"))
			if len(cases) == 0 {
				t.Fatalf("no case under testdata/%s: every rule is tested by the harness", r.ID)
			}
			positive := false
			for _, w := range cases {
				dir := filepath.Dir(w)
				t.Run(filepath.Base(dir), func(t *testing.T) {
					c := buildCase(t, dir)
					for _, w := range c.want {
						positive = positive || w.rule == r.ID
					}
					checkCase(t, r.ID, c, c.findings(t))
				})
			}
			if !positive {
				t.Errorf("no case of %s wants a finding of it", r.ID)
			}
		})
	}
}

// buildCase builds the case's fixture with its build.sh, into a fresh
// directory, and reads its expectations.
func buildCase(t *testing.T, dir string) *ruleCase {
	t.Helper()
	out := dir
	if _, err := os.Stat(filepath.Join(dir, "build.sh")); err == nil {
		testenv.NeedTools(t, "bash", "gcc", "g++", "ar", "python3")
		out = t.TempDir()
		cmd := exec.Command("bash", "build.sh", out)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s/build.sh: %v\n%s", dir, err, b)
		}
	}
	return readCase(t, dir, out)
}

// checkCase holds the findings of rule id to the case's wants.
func checkCase(t *testing.T, id string, c *ruleCase, fs []finding.Finding) {
	t.Helper()
	for _, f := range fs {
		if f.Rule != id {
			continue
		}
		matched := false
		for _, w := range c.want {
			if w.matches(f, c.out) {
				w.found, matched = true, true
			}
		}
		if !matched {
			where := relOut(f.Subject.File, c.out)
			if f.Location != nil {
				where += " at " + relOut(f.Location.File, c.dir) + ":" + strconv.Itoa(f.Location.Line)
			}
			t.Errorf("unexpected %s %s %s %s: %s", f.Rule, f.Severity, where, f.Subject.Symbol, f.Message)
		}
	}
	for _, w := range c.want {
		if w.rule == id && !w.found {
			t.Errorf("%s: no %s %s finding for %s %s matching %q", w.at, w.rule, w.severity, w.file, w.symbol, w.message)
		}
	}
}

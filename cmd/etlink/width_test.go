package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/report"
	"github.com/etlink/etlink/rules"
)

// widths are the terminal widths the text must hold at (issue 31).
var widths = []int{40, 60, 80, 100, 120, 160, 250}

// sgrSeq is a colour sequence of the renderer's own.
var sgrSeq = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestTextHoldsAtAnyWidth renders every finding kind of the demo, the lint
// fixtures and a field package on a terminal of each width, and piped, and
// holds the text to what a reader copies from it: the words are those of
// the text unwrapped, in order (none joined across a break, none cut), a
// fix reads whole, and a line is over the width only when it holds a
// single word wider than the width by itself.
func TestTextHoldsAtAnyWidth(t *testing.T) {
	cases := [][]string{
		{"conflicts", demoWheel, "--with", demoTorch},
		{"check", demoWheel, "--with", demoTorch},
	}
	lint, _ := filepath.Glob("../../testdata/lint/*")
	for _, dir := range lint {
		cases = append(cases, []string{"lint", dir})
	}
	for _, args := range cases {
		for _, v := range []string{"-q", "-v"} {
			args := append(args, "-q", v)
			name := strings.Join(args, " ")
			_, js, _ := runCLI(t, append(args, "--format", "json")...)
			r := decodeReport(t, js)
			if len(r.Findings) == 0 {
				t.Fatalf("%s: no findings to render", name)
			}
			unwrapped := render(t, r, v == "-v", 1<<20)
			checkWords(t, name, r, unwrapped, v == "-v")
			_, piped, _ := runCLI(t, args...)
			if piped != render(t, r, v == "-v", 0) {
				t.Errorf("%s: piped text is not the report at the default width:\n%s", name, piped)
			}
			for _, w := range widths {
				_, out, _ := runOnTTY(t, w, args...)
				checkFits(t, fmt.Sprintf("%s at %d columns", name, w), sgrSeq.ReplaceAllString(out, ""), unwrapped, w)
			}
		}
	}
}

// TestFieldTextHoldsAtAnyWidth is the same for a field package, Debian's
// scikit-learn (Cython modules that share OpenMP and C++ runtime symbols;
// the platform verdict), checked once and rendered at each width.
func TestFieldTextHoldsAtAnyWidth(t *testing.T) {
	pkg := filepath.Join(fieldSite, "sklearn")
	testenv.NeedFiles(t, pkg)
	_, js, errs := runCLI(t, "check", pkg, "--format", "json", "-q")
	r := decodeReport(t, js)
	if len(r.Findings) < 20 || len(r.Platforms) == 0 {
		t.Fatalf("%d findings, %d platforms on %s (stderr %s)", len(r.Findings), len(r.Platforms), pkg, errs)
	}
	for _, verbose := range []bool{false, true} {
		unwrapped := render(t, r, verbose, 1<<20)
		name := fmt.Sprintf("check sklearn (verbose %v)", verbose)
		checkWords(t, name, r, unwrapped, verbose)
		for _, w := range widths {
			checkFits(t, fmt.Sprintf("%s at %d columns", name, w), render(t, r, verbose, w), unwrapped, w)
		}
	}
}

func render(t *testing.T, r *finding.Report, verbose bool, width int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Text(&buf, r, report.Options{Verbose: verbose, Width: width, Rules: rules.Docs()}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// checkFits holds text wrapped at width to the same report unwrapped.
func checkFits(t *testing.T, name, text, unwrapped string, width int) {
	t.Helper()
	if got, want := strings.Fields(text), strings.Fields(unwrapped); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: words differ from the unwrapped text's at %s", name, firstWordDiff(got, want))
	}
	for i, line := range strings.Split(text, "\n") {
		if w := len([]rune(line)); w > width && len(strings.Fields(line)) > 1 {
			t.Errorf("%s: line %d is %d columns and holds more than one word: %q", name, i+1, w, line)
		}
		if line != strings.TrimRight(line, " ") {
			t.Errorf("%s: line %d ends in blanks: %q", name, i+1, line)
		}
	}
}

// checkWords holds the unwrapped text to the report: each word of each
// message is a word of the text with -v, and each fix shown reads whole (that two distinct names never
// read alike is report's TestShortNamesApart).
func checkWords(t *testing.T, name string, r *finding.Report, unwrapped string, verbose bool) {
	t.Helper()
	words := strings.Fields(unwrapped)
	flat := " " + strings.Join(words, " ") + " "
	has := map[string]bool{}
	for _, w := range words {
		has[w] = true
	}
	fixes := map[string]string{}
	for _, f := range r.Findings {
		if f.Fix != "" && (verbose || f.Severity > finding.Note) {
			fixes[collapseWS(f.Fix)] = f.Rule
		}
		if !verbose {
			continue
		}
		for _, w := range strings.Fields(f.Message) {
			if !has[w] {
				t.Errorf("%s: %q of a message of %s is no word of the text: %q", name, w, f.Rule, f.Message)
				break
			}
		}
	}
	for fix, rule := range fixes {
		if !strings.Contains(flat, " "+fix+" ") {
			t.Errorf("%s: the fix of %s is not whole: %q", name, rule, fix)
		}
	}
}

func collapseWS(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstWordDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("word %d: %q, want %q (after %q)", i, got[i], want[i], strings.Join(want[max(0, i-5):i], " "))
		}
	}
	return fmt.Sprintf("the end: %d words, want %d", len(got), len(want))
}

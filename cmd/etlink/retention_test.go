package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// The retention matrix: testdata/retention/project built with every linker,
// for both architectures, with both generators, and etlink's findings
// checked against what the produced binaries contain (facts.sh: readelf,
// nm, the maps) and what the link commands in the build log name.

var linkers = []string{"bfd", "gold", "lld", "mold"}

type build struct{ linker, arch, generator string }

func (b build) String() string { return b.linker + "-" + b.arch + "-" + b.generator }

func TestRetentionMatrix(t *testing.T) {
	testenv.NeedTools(t, "bash", "cmake", "ninja", "make", "g++", "aarch64-linux-gnu-g++", "ld.gold", "ld.lld", "mold", "readelf", "nm")
	script, err := filepath.Abs("../../testdata/retention/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join(filepath.Dir(script), "facts.sh")
	for _, arch := range []string{"x86_64", "aarch64"} {
		for _, gen := range []string{"ninja", "make"} {
			for _, linker := range linkers {
				b := build{linker, arch, gen}
				t.Run(b.String(), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					sh(t, script, dir, "--linker", linker, "--arch", arch, "--generator", gen, "--jobs", "1")
					truth := readFacts(t, sh(t, facts, dir))
					want := expectedFindings(t, truth, filepath.Join(dir, "build.log"))
					if len(want) == 0 {
						t.Fatal("the fixture build drops nothing: the oracle or the fixture is broken")
					}

					pinLinkerDifferences(t, b, truth)

					// Observed: the outputs and maps are there.
					got := retentionFindings(t, dir)
					compareFindings(t, "observed", want, got)

					// Predicted: without the consumers and their maps, etlink
					// must reach the same verdicts from the inputs alone.
					removeOutputs(t, dir, truth)
					got = retentionFindings(t, dir)
					compareFindings(t, "predicted", want, got)
				})
			}
		}
	}
}

// factSet is facts.sh's output: consumer -> lines ("NEEDED libx.so", ...).
type factSet map[string][]string

func readFacts(t *testing.T, out string) factSet {
	t.Helper()
	fs := factSet{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, rest, _ := strings.Cut(line, " ")
		fs[c] = append(fs[c], rest)
	}
	return fs
}

func (fs factSet) has(consumer, fact string) bool {
	for _, f := range fs[consumer] {
		if f == fact {
			return true
		}
	}
	return false
}

// linkCommand finds the line of the build log that links consumer.
func linkCommand(t *testing.T, logFile, consumer string) string {
	t.Helper()
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`-o \S*(bin/` + regexp.QuoteMeta(consumer) + `|lib/` + regexp.QuoteMeta(consumer) + `\.so)(\s|$)`)
	for _, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) && !strings.Contains(line, " -c ") {
			return line
		}
	}
	t.Fatalf("no link command for %s in %s", consumer, logFile)
	return ""
}

// expectedFindings derives ET101/ET102/ET103 from the binaries: a backend
// named on a consumer's link command but absent from its load set; the
// registering archive member named on the command but absent from the
// output; two definers of register_backend in a load set.
func expectedFindings(t *testing.T, truth factSet, logFile string) []string {
	t.Helper()
	var want []string
	for consumer, facts := range truth {
		cmd := linkCommand(t, logFile, consumer)
		for _, f := range facts {
			switch {
			case strings.HasPrefix(f, "BACKEND ") && strings.HasSuffix(f, " absent"):
				lib := strings.Fields(f)[1]
				if strings.Contains(cmd, lib) {
					want = append(want, fmt.Sprintf("ET101 %s %s", consumer, lib))
				}
			case f == "MEMBER register_kernels.o absent":
				if strings.Contains(cmd, "libet_kernels.a") {
					want = append(want, fmt.Sprintf("ET102 %s libet_kernels.a(register_kernels.o)", consumer))
				}
			case strings.HasPrefix(f, "REGISTRY_DEFINERS "):
				var n int
				fmt.Sscan(strings.TrimPrefix(f, "REGISTRY_DEFINERS "), &n)
				if n >= 2 {
					want = append(want, fmt.Sprintf("ET103 %s", consumer))
				}
			}
		}
	}
	sort.Strings(want)
	return want
}

func retentionFindings(t *testing.T, dir string) []string {
	t.Helper()
	code, out, errs := runCLI(t, "retention", dir, "--format", "json", "-q")
	if code == exitError {
		t.Fatalf("etlink retention exit %d: %s", code, errs)
	}
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		switch f.Rule {
		case "ET101":
			got = append(got, fmt.Sprintf("ET101 %s %s", f.Subject.Target, filepath.Base(f.Subject.File)))
		case "ET102":
			got = append(got, fmt.Sprintf("ET102 %s %s(%s)", f.Subject.Target, filepath.Base(f.Subject.File), f.Subject.Member))
		case "ET103":
			got = append(got, fmt.Sprintf("ET103 %s", f.Subject.Target))
		}
	}
	sort.Strings(got)
	return dedupe(got)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func compareFindings(t *testing.T, mode string, want, got []string) {
	t.Helper()
	if missing, extra := diff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("%s: etlink disagrees with the binaries:\n missing %v\n extra   %v\n want    %v", mode, missing, extra, want)
	}
}

// removeOutputs deletes every consumer and its map, leaving the libraries
// the links read.
func removeOutputs(t *testing.T, dir string, truth factSet) {
	t.Helper()
	for consumer := range truth {
		for _, p := range []string{filepath.Join(dir, "bin", consumer), filepath.Join(dir, "lib", consumer+".so")} {
			for _, q := range []string{p, p + ".map"} {
				if err := os.Remove(q); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
	}
}

// pinLinkerDifferences states what differs between linkers in reality, so a
// toolchain update that changes it fails here and the docs (ET101, the
// linkSim model) are revisited: a backend referenced only by another shared
// library (consumer_shlib_ref links glue, which calls into the backend
// without listing it in DT_NEEDED) is kept by bfd and dropped by gold, lld
// and mold, on both architectures.
func pinLinkerDifferences(t *testing.T, b build, truth factSet) {
	t.Helper()
	kept := truth.has("consumer_shlib_ref", "BACKEND libet_backend_xnn.so loaded")
	if want := b.linker == "bfd"; kept != want {
		t.Errorf("consumer_shlib_ref: %s keeps the backend referenced only by libet_glue.so: %v, pinned: %v", b.linker, kept, want)
	}
}

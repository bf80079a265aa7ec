// Package bench holds etlink's end-to-end benchmarks and, in run.sh, the
// comparison with binutils on the same files. See README.md.
package bench

import (
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/report"
	"github.com/etlink/etlink/rules"
)

// torchDir is Debian's python3-torch, the peer the benchmark compares with.
const torchDir = "/usr/lib/python3/dist-packages/torch"

// buildWheel builds testdata/e2e's wheel tree once per benchmark run.
func buildWheel(b *testing.B) string {
	b.Helper()
	testenv.NeedFiles(b, torchDir)
	testenv.NeedTools(b, "g++", "patchelf", "readelf")
	dir := b.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "testdata", "e2e", "build-wheel.sh"), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		testenv.Missing(b, "build-wheel.sh: %v\n%s", err, out)
	}
	return dir
}

// buildBundled builds a tree holding one extension linked
// -static-libstdc++ with default visibility (testdata/field/mustflag's
// slib.cc): the part of libstdc++ it uses is exported beside the system's
// libstdc++.so.6 torch loads, four thousand conflicts.
func buildBundled(b *testing.B) string {
	b.Helper()
	testenv.NeedFiles(b, torchDir)
	testenv.NeedTools(b, "g++", "python3-config")
	dir := b.TempDir()
	flags, err := exec.Command("python3-config", "--includes").Output()
	suffix, serr := exec.Command("python3-config", "--extension-suffix").Output()
	if err != nil || serr != nil {
		testenv.Missing(b, "python3-config: %v, %v", err, serr)
	}
	out := filepath.Join(dir, "slibpkg", "_slib"+strings.TrimSpace(string(suffix)))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		b.Fatal(err)
	}
	args := append(strings.Fields(string(flags)), "-O2", "-fPIC", "-shared", filepath.Join("..", "testdata", "field", "mustflag", "src", "slib.cc"),
		"-o", out, "-static-libstdc++", "-static-libgcc")
	if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		testenv.Missing(b, "g++ -static-libstdc++: %v\n%s", err, out)
	}
	return dir
}

// BenchmarkConflictsTorch is `etlink conflicts WHEEL --with torch --python
// /usr/bin/python3 --format json` without the CLI: the session
// (analyze.Open: the wheel, torch located (Python's answer remembered after
// the first run, as pylocate.CacheDir keeps it between runs) and read with
// both sides' closures, keeping only the names the conflict rules look at,
// the libraries that hold none of them answered by the library index),
// ET301 and ET302, the JSON report written to io.Discard. SetBytes counts the
// bytes of the symbol sections of every object read, so MB/s compares with
// BenchmarkReadDynsym.
func BenchmarkConflictsTorch(b *testing.B) { benchSession(b, "conflicts", buildWheel(b)) }

// BenchmarkConflictsBundled is the same on a wheel that bundles libstdc++
// (buildBundled): the cost of thousands of conflicts, which the text
// output prints in a few lines.
func BenchmarkConflictsBundled(b *testing.B) { benchSession(b, "conflicts", buildBundled(b)) }

// BenchmarkCheckTorch is the same for `etlink check WHEEL --with torch`:
// the package read too, the peer kept to the names the release checks ask
// about, every check rule and the platform verdicts.
func BenchmarkCheckTorch(b *testing.B) { benchSession(b, "check", buildWheel(b)) }

func benchSession(b *testing.B, cmd, wheelDir string) {
	testenv.NeedFiles(b, "/usr/bin/python3")
	order, _ := analyze.ParseLoadOrder("torch,wheel")
	// The library index as the command keeps it between runs (in memory
	// here): the first run learns the closure, the others are answered.
	opt := analyze.Options{Paths: []string{wheelDir}, With: []string{"torch"}, Pythons: []string{"/usr/bin/python3"},
		Order: order, Narrow: cmd == "conflicts", Package: cmd == "check", Log: quiet{}, Index: elfobj.OpenIndex("")}
	cfg := &rules.Config{}
	checks := rules.ConflictsRules
	if cmd == "check" {
		checks = rules.CheckRules(true)
	}
	var findings int
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s, err := analyze.Open(opt)
		if err != nil {
			b.Fatal(err)
		}
		ctx, err := rules.NewContext(s, cfg, opt.Paths)
		if err != nil {
			b.Fatal(err)
		}
		r := &finding.Report{Command: cmd, Inputs: s.Inputs, Findings: rules.Run(ctx, checks)}
		if err := report.JSON(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		findings = len(r.Findings)
		if i == 0 {
			b.SetBytes(symbolBytes(b, append(append([]*elfobj.Object(nil), s.Build.Wheel.Closure...), s.Build.Peer.Closure...)))
		}
	}
	if findings == 0 {
		b.Fatal("no findings: the wheel tree should conflict with torch")
	}
}

// quiet is a session log that fails on nothing and prints nothing.
type quiet struct{}

func (quiet) Notef(string, ...any) {}
func (quiet) InputError(error)     {}

// symbolBytes sums the sizes of the sections the floor program reads
// (.dynsym, .dynstr, .gnu.version*) over the objects' files.
func symbolBytes(b *testing.B, objs []*elfobj.Object) int64 {
	var n int64
	seen := map[string]bool{}
	for _, o := range objs {
		p := o.Real
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		f, err := elf.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range f.Sections {
			if symbolSection(s.Name) {
				n += int64(s.FileSize)
			}
		}
		f.Close()
	}
	return n
}

func symbolSection(name string) bool {
	return name == ".dynsym" || name == ".dynstr" || strings.HasPrefix(name, ".gnu.version")
}

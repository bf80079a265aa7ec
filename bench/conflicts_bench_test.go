// Package bench holds etlink's end-to-end benchmarks and, in run.sh, the
// comparison with binutils on the same files. See README.md.
package bench

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/ldcache"
	"github.com/etlink/etlink/pylocate"
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

// BenchmarkConflictsTorch is `etlink conflicts WHEEL --with torch` without
// the CLI and without asking Python where torch is (a fixed cost of an
// interpreter start): read the wheel, then torch and, while torch is read,
// both sides' DT_NEEDED closure (Loader.OpenInputs), keeping only the
// symbols the conflict rules look at (as the command does),
// simulate the process and run ET301 and ET302. SetBytes counts the bytes of
// the symbol sections of every object read, so MB/s compares with
// BenchmarkReadDynsym.
func BenchmarkConflictsTorch(b *testing.B) {
	wheelDir := buildWheel(b)
	files, err := pylocate.PackageFiles(torchDir)
	if err != nil {
		b.Fatal(err)
	}
	cache, _ := ldcache.Load("/etc/ld.so.cache")
	var findings int
	var sectionBytes int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		objs, errs := elfobj.Open([]string{wheelDir}, elfobj.Options{})
		only := elfobj.Options{Only: analyze.ConflictNames(objs)}
		wheel := analyze.NewSide("wheel", objs)
		loader := analyze.NewLoader(cache, objs)
		loader.Read = only
		peerObjs, perrs := loader.OpenInputs(files, analyze.Roots(wheel))
		if len(errs)+len(perrs) > 0 {
			b.Fatal(append(errs, perrs...))
		}
		peer := analyze.NewSide("torch", peerObjs, analyze.TorchGlobalDeps)
		order, _ := analyze.ParseLoadOrder("torch,wheel")
		build := analyze.NewBuild(loader, nil, wheel, peer, order)
		ctx := &rules.Context{Build: build, Config: &rules.Config{}, Components: mustComponents(b)}
		r := &finding.Report{Command: "conflicts", Findings: rules.Run(ctx, []*rules.Rule{rules.ET301, rules.ET302})}
		findings = len(r.Findings)
		if i == 0 {
			sectionBytes = symbolBytes(b, append(append([]*elfobj.Object(nil), wheel.Closure...), peer.Closure...))
			b.SetBytes(sectionBytes)
		}
	}
	if findings == 0 {
		b.Fatal("no findings: the wheel tree should conflict with torch")
	}
}

func mustComponents(b *testing.B) *demangle.Components {
	t, err := (&rules.Config{}).ComponentTable()
	if err != nil {
		b.Fatal(err)
	}
	return t
}

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

package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// The hostile-input suite: inputs a stranger's pull request can hold.
// Each case runs the etlink binary and must end within seconds, under
// 1 GB, exit 2 with an error naming the bad input (or, where the input
// is not an error, just end), never run a program an input names, and
// leave the inputs as they were.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// etlinkBinary builds etlink once for the suite; ETLINK_BIN names another
// build to hold to it (an older one, to measure what changed).
func etlinkBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("ETLINK_BIN"); bin != "" {
		return bin
	}
	testenv.NeedTools(t, "go")
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "etlink-hostile")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "etlink")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("%w\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

// hostileRun is one run's outcome.
type hostileRun struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
	cpu            time.Duration // user and system: what the run cost, whatever else the machine runs
	maxRSS         int64         // bytes
}

// runHostile runs the etlink binary on args under GNU time(1). The test
// process is large (the race detector, the fixtures it built) and Linux
// carries a process's high-water RSS into the child it forks until that
// child's exec, so the child's own rusage would report the test's peak:
// time(1), small, forks etlink and reports etlink's. Its output goes to
// files, not pipes: a parent under the race detector copying a pipe
// slowly would make the child wait, and its wall time say so.
func runHostile(t *testing.T, args ...string) hostileRun {
	t.Helper()
	testenv.NeedTools(t, "/usr/bin/time")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	usage := filepath.Join(dir, "usage")
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-f", "%M %U %S", "-o", usage, etlinkBinary(t)}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+os.Getenv("PATH"))
	stdout, stderr := createFile(t, filepath.Join(dir, "stdout")), createFile(t, filepath.Join(dir, "stderr"))
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err := cmd.Run()
	r := hostileRun{elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("etlink %s: still running after 60 s (killed)", strings.Join(args, " "))
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r.stdout, r.stderr = readAll(t, stdout), readAll(t, stderr)
	var kb int64
	var user, sys float64
	data, _ := os.ReadFile(usage)
	// time(1) writes "Command exited with non-zero status N" first then.
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if _, err := fmt.Sscanf(lines[len(lines)-1], "%d %f %f", &kb, &user, &sys); err != nil {
		t.Fatalf("time(1) wrote %q: %v", data, err)
	}
	r.maxRSS, r.cpu = kb<<10, time.Duration((user+sys)*float64(time.Second))
	t.Logf("etlink %s: exit %d in %v (%v CPU), peak RSS %d MB", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.maxRSS>>20)
	return r
}

func createFile(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	data, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mkfifo(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on hostile inputs")
	}
	testenv.NeedTools(t, "gcc")
	root := t.TempDir()
	marker := filepath.Join(root, "a-program-ran")
	// A "compiler" that records being run: no input may make etlink run it.
	evilCC := filepath.Join(root, "bin", "gcc")
	writeTree(t, root, map[string]string{"bin/gcc": "#!/bin/sh\necho \"$0 $*\" >> " + marker + "\n"})
	if err := os.Chmod(evilCC, 0o755); err != nil {
		t.Fatal(err)
	}
	// A good build directory beside the bad inputs: it must still be reported.
	good := filepath.Join(root, "good")
	writeTree(t, good, map[string]string{"CMakeFiles/ok.dir/link.txt": "/usr/bin/c++ -shared -o libok.so CMakeFiles/ok.dir/ok.o\n"})

	type tc struct {
		name string
		args func(t *testing.T, dir string) []string
		bad  string // what the error must name; "" when the input is no error
		// stops: the bad file is a flag's (--config, --baseline), whose
		// error ends the run before any input is read.
		stops bool
	}
	cases := []tc{
		{"link.txt FIFO", func(t *testing.T, d string) []string {
			mkfifo(t, filepath.Join(d, "CMakeFiles/x.dir/link.txt"))
			return []string{"retention", d, good}
		}, "link.txt", false},
		{"map FIFO", func(t *testing.T, d string) []string {
			return []string{"retention", mkfifo(t, filepath.Join(d, "x.map")), good}
		}, "x.map", false},
		{"why FIFO", func(t *testing.T, d string) []string {
			return []string{"why", "ok", mkfifo(t, filepath.Join(d, "link.txt")), good}
		}, "link.txt", false},
		{"config FIFO", func(t *testing.T, d string) []string {
			return []string{"conflicts", demoWheel, "--config", mkfifo(t, filepath.Join(d, "etlink.toml"))}
		}, "etlink.toml", true},
		{"baseline FIFO", func(t *testing.T, d string) []string {
			return []string{"conflicts", demoWheel, "--baseline", mkfifo(t, filepath.Join(d, "base.json"))}
		}, "base.json", true},
		{"baseline /dev/zero", func(t *testing.T, d string) []string {
			return []string{"conflicts", demoWheel, "--baseline", "/dev/zero"}
		}, "/dev/zero", true},
		{"config /dev/zero", func(t *testing.T, d string) []string {
			return []string{"conflicts", demoWheel, "--config", "/dev/zero"}
		}, "/dev/zero", true},
		{"link.txt -> /dev/zero", func(t *testing.T, d string) []string {
			p := filepath.Join(d, "CMakeFiles/x.dir/link.txt")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			return []string{"retention", d, good}
		}, "link.txt", false},
		{"File API reply names /dev/zero and /etc/passwd", func(t *testing.T, d string) []string {
			writeTree(t, d, map[string]string{
				".cmake/api/v1/reply/index-1.json": `{"cmake":{"version":{"string":"3.25.1"}},"objects":[{"kind":"codemodel","version":{"major":2,"minor":4},"jsonFile":"codemodel-v2-1.json"}]}`,
				".cmake/api/v1/reply/codemodel-v2-1.json": `{"kind":"codemodel","paths":{"build":"` + d + `","source":"` + d + `"},"configurations":[{"name":"","targets":[` +
					`{"name":"zero","id":"zero","jsonFile":"../../../../../../../../../../dev/zero"},{"name":"pw","id":"pw","jsonFile":"../../../../../../../../../../etc/passwd"}]}]}`,
				"CMakeCache.txt": "CMAKE_HOME_DIRECTORY:INTERNAL=" + d + "\n",
			})
			return []string{"retention", d, good}
		}, "not in the reply directory", false},
		{"thin archive member FIFO", func(t *testing.T, d string) []string {
			mkfifo(t, filepath.Join(d, "m.o"))
			writeTree(t, d, map[string]string{"libthin.a": "!<thin>\n/               0           0     0     0       4         `\n\x00\x00\x00\x00" +
				"m.o/            0           0     0     644     100       `\n"})
			return []string{"scan", filepath.Join(d, "libthin.a"), demoWheel}
		}, "m.o", false},
		{"ninja variable doubled 59 times", func(t *testing.T, d string) []string {
			var b strings.Builder
			b.WriteString("v0 = xxxxxxxx\n")
			for i := 1; i < 60; i++ {
				fmt.Fprintf(&b, "v%d = $v%d$v%d\n", i, i-1, i-1)
			}
			writeTree(t, d, map[string]string{"build.ninja": b.String()})
			return []string{"retention", filepath.Join(d, "build.ninja"), good}
		}, "build.ninja", false},
		{"wheel entries declaring 1 GiB each", func(t *testing.T, d string) []string {
			return []string{"scan", lyingWheel(t, d), demoWheel}
		}, "lying", false},
		{"wheel entry at ~940:1", func(t *testing.T, d string) []string {
			return []string{"scan", bombWheel(t, d, 300<<20), demoWheel}
		}, "zip bomb", false},
		{"a compiler the build tree names", func(t *testing.T, d string) []string {
			writeTree(t, d, map[string]string{"CMakeFiles/x.dir/link.txt": evilCC + " -shared -o libx.so a.o\n",
				".cmake/api/v1/reply/toolchains-v1-1.json": `{"kind":"toolchains","toolchains":[{"language":"CXX","compiler":{"path":"` + evilCC + `","id":"GNU"}}]}`})
			return []string{"retention", d}
		}, "", false},
		{"a 300,000-deep mangled name", func(t *testing.T, d string) []string {
			return []string{"check", deepNameLibrary(t, d)}
		}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args(t, dir)
			before := hashTree(t, dir)
			r := runHostile(t, append(args, "-q", "--format", "json")...)
			if r.elapsed > 10*time.Second {
				t.Errorf("took %v", r.elapsed)
			}
			if r.maxRSS > 1<<30 {
				t.Errorf("peak RSS %d MB", r.maxRSS>>20)
			}
			if c.bad != "" && (r.code != exitError || !strings.Contains(r.stderr, c.bad)) {
				t.Errorf("exit %d, stderr %q; want exit 2 and an error naming %q", r.code, r.stderr, c.bad)
			}
			if c.bad == "" && r.code == exitError {
				t.Errorf("exit 2 on an input that is no error: %s", r.stderr)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "fatal error") {
				t.Errorf("crashed: %s", r.stderr)
			}
			if c.stops {
				return
			}
			// The good input beside the bad one is still read and reported.
			checkGoodReported(t, r, args, good)
			if after := hashTree(t, dir); len(after) != len(before) {
				t.Errorf("the inputs changed: %d files before, %d after", len(before), len(after))
			}
			if data, err := os.ReadFile(marker); err == nil {
				t.Fatalf("a program an input names ran: %s", data)
			}
		})
	}
}

// lyingWheel writes a wheel whose ELF entries' headers declare 1 GiB
// each over a few kilobytes of data, with compressed sizes that keep the
// ratio under the limit (a stored padding entry makes the wheel as large
// as they claim): a reader that allocates what is declared holds gigabytes.
func lyingWheel(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "lying-1.0-py3-none-any.whl")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	elf, err := os.ReadFile("../../testdata/elf/x86_64/libversioned.so.1")
	if err != nil {
		t.Fatal(err)
	}
	const declared, compressed = 1<<30 - 1, 6 << 20
	for _, name := range []string{"a.so", "b.so", "c.so", "d.so"} {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: "lying/" + name, Method: zip.Store,
			CompressedSize64: compressed, UncompressedSize64: declared})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(elf)
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "lying/padding.dat", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(bytes.Repeat([]byte("pad."), compressed/4+1))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// bombWheel writes a wheel with one ELF-headed entry of size bytes,
// mostly zeros, deflated about 940:1.
func bombWheel(t *testing.T, dir string, size int) string {
	t.Helper()
	p := filepath.Join(dir, "bomb-1.0-py3-none-any.whl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestCompression) })
	w, err := zw.Create("bomb/lib.so")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("\x7fELF\x02\x01\x01"))
	// Zeros with a little noise: about 940:1, as the honest-looking
	// 2.3 MB wheels, under deflate's 1032:1.
	zeros := make([]byte, 1<<20)
	noise := rand.New(rand.NewPCG(1, 2))
	var junk [64]byte
	for n := 0; n < size; n += len(zeros) + len(junk) {
		w.Write(zeros)
		for i := range junk {
			junk[i] = byte(noise.Uint32())
		}
		w.Write(junk[:])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// deepNameLibrary builds two shared libraries exporting "_Z1f" + 300,000
// "P" + "i" (a duplicate etlink reports, so it demangles the name) and
// returns their directory.
func deepNameLibrary(t *testing.T, dir string) string {
	t.Helper()
	name := "_Z1f" + strings.Repeat("P", 300000) + "i"
	asm := ".text\n.globl " + name + "\n.type " + name + ", @function\n" + name + ":\n\tret\n"
	pkg := filepath.Join(dir, "pkg")
	writeTree(t, pkg, map[string]string{"deep.s": asm})
	for _, args := range [][]string{{"-o", "libdeep1.so"}, {"-o", "libdeep2.so", "-Wl,--no-as-needed", "-L.", "-ldeep1", "-Wl,-rpath,$ORIGIN"}} {
		cmd := exec.Command("gcc", append([]string{"-shared", "deep.s"}, args...)...)
		cmd.Dir = pkg
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
	}
	return pkg
}

package bench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/keepfile"
	"github.com/etlink/etlink/internal/testenv"
)

// nearCap is how full the fill below must make the library index: within
// one fill library's entry (200 KB) of its 4 MiB cap (elfobj.indexMax).
const nearCap = 4<<20 - 256<<10

// TestConflictsAlikeInEveryCacheState: `etlink conflicts testdata/demo/wheel
// --with torch --format json` writes the same bytes with the cache off,
// cold (empty), warm (a run before it) and full (at its cap, filled by
// other inputs, twice: the run that learns the input and the one after);
// and the warm run, and the second full one, leave every cache file as it
// was.
func TestConflictsAlikeInEveryCacheState(t *testing.T) {
	testenv.NeedFiles(t, torchDir, "/usr/bin/python3")
	testenv.NeedTools(t, "go", "gcc", "patchelf")
	dir := t.TempDir()
	etlink := filepath.Join(dir, "etlink")
	if out, err := exec.Command("go", "build", "-o", etlink, "../cmd/etlink").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	wheel, err := filepath.Abs("../testdata/demo/wheel")
	if err != nil {
		t.Fatal(err)
	}
	run := func(cache string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command(etlink, append([]string{"conflicts"}, args...)...)
		cmd.Env = append(os.Environ(), "ETLINK_CACHE_DIR="+cache)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("etlink %s (cache %s): %v\n%s", strings.Join(args, " "), cache, err, stderr.Bytes())
		}
		return out
	}
	demo := func(cache string) []byte {
		return run(cache, wheel, "--with", "torch", "--format", "json", "-q", "--fail-on", "none")
	}
	want := demo("off")
	same := func(state string, got []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s cache: the JSON differs from the run without a cache (%d bytes, want %d)", state, len(got), len(want))
		}
	}
	warm := filepath.Join(dir, "warm")
	same("cold", demo(warm))
	written := markCache(t, warm)
	same("warm", demo(warm))
	if w := written(); len(w) > 0 {
		t.Errorf("the warm run wrote %v", w)
	}

	full := filepath.Join(dir, "full")
	for _, peer := range fillPeers(t, filepath.Join(dir, "fill")) {
		run(full, peer, "-q", "--fail-on", "none")
	}
	if fi, err := os.Stat(filepath.Join(full, "symindex")); err != nil || fi.Size() < nearCap {
		t.Fatalf("the filled index: %v, %v; want one of at least %d bytes", fi, err, nearCap)
	}
	same("full", demo(full))
	written = markCache(t, full)
	same("full, learnt", demo(full))
	if w := written(); len(w) > 0 {
		t.Errorf("the second run with a full cache wrote %v", w)
	}
}

// markCache sets every file under dir to a modification time no write
// gives, and returns a function that lists the files written since
// (changed or new).
func markCache(t *testing.T, dir string) func() []string {
	t.Helper()
	mark := time.Unix(1e9, 0)
	walk := func(f func(path string, fi fs.FileInfo)) {
		err := filepath.Walk(dir, func(path string, fi fs.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				f(path, fi)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk(func(path string, _ fs.FileInfo) {
		if err := os.Chtimes(path, mark, mark); err != nil {
			t.Fatal(err)
		}
	})
	return func() (out []string) {
		walk(func(path string, fi fs.FileInfo) {
			if !fi.ModTime().Equal(mark) {
				out = append(out, filepath.Base(path))
			}
		})
		return out
	}
}

// fillPeers builds, under dir, four peers each needing six libraries of
// 50,000 symbols (200 KB of index a library, 4.8 MB together: past the
// index's cap), and returns the peers.
func fillPeers(t *testing.T, dir string) []string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&src, "int fill_v%d = %d;\n", i, i)
	}
	lib := filepath.Join(dir, "libfill.so")
	sh(t, dir, "fill.c", src.String(), "gcc", "-shared", "-fPIC", "-o", lib, "fill.c")
	image, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	var peers []string
	for p := range 4 {
		args := []string{"-shared", "-fPIC", "-o", fmt.Sprintf("peer%d.so", p), fmt.Sprintf("peer%d.c", p), "-L.", "-Wl,--no-as-needed"}
		for j := range 6 {
			name := fmt.Sprintf("libfill%d-%d.so", p, j)
			if err := os.WriteFile(filepath.Join(dir, name), image, 0o755); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, "", "", "patchelf", "--set-soname", name, name)
			args = append(args, "-l:"+name)
		}
		args = append(args, "-Wl,-rpath,$ORIGIN")
		sh(t, dir, fmt.Sprintf("peer%d.c", p), fmt.Sprintf("int fill_peer%d;\n", p), "gcc", args...)
		peers = append(peers, filepath.Join(dir, fmt.Sprintf("peer%d.so", p)))
	}
	time.Sleep(keepfile.Racy) // older than that, the index learns them
	return peers
}

// sh writes src to the file name in dir (unless name is ""), then runs the
// command there.
func sh(t *testing.T, dir, name, src, command string, args ...string) {
	t.Helper()
	if name != "" {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", command, strings.Join(args, " "), err, out)
	}
}

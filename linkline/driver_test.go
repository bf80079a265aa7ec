package linkline

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestDriverReadNotRun holds the model etlink reads from a gcc driver's
// file (never running it) to the driver itself: for each gcc of this
// machine and each switch set that changes the link, the library words and
// --as-needed state of its link equal what the same evaluation gives on
// the driver's own -dumpspecs; the library dirs equal its
// -print-search-dirs.
func TestDriverReadNotRun(t *testing.T) {
	drivers := []string{"gcc", "g++", "aarch64-linux-gnu-gcc", "aarch64-linux-gnu-g++"}
	testenv.NeedTools(t, drivers...)
	switchSets := [][]string{nil, {"shared"}, {"static"}, {"static-libgcc"}, {"shared-libgcc"}, {"pthread"},
		{"fsanitize=address"}, {"fopenmp"}, {"nostdlib"}, {"shared", "static-libstdc++"}}
	for _, name := range drivers {
		driver := realPath(name)
		text, err := defaultSpecs(driver)
		if err != nil {
			t.Fatalf("%s: %v", driver, err)
		}
		out, err := exec.Command(driver, "-dumpspecs").Output()
		if err != nil {
			t.Fatalf("%s -dumpspecs: %v", driver, err)
		}
		read, real := parseSpecs(text), parseSpecs(string(out))
		for _, sw := range switchSets {
			rb, ra := evalLinkCommand(read, sw)
			wb, wa := evalLinkCommand(real, sw)
			if !slices.Equal(rb, wb) || !slices.Equal(ra, wa) {
				t.Errorf("%s %v: read from the file: %v ... %v; its -dumpspecs: %v ... %v", name, sw, rb, ra, wb, wa)
			}
		}
		kind, _, triple := classify(driver)
		got := defaultSearchDirs(driver, kind, triple)
		out, err = exec.Command(driver, "-print-search-dirs").Output()
		if err != nil {
			t.Fatalf("%s -print-search-dirs: %v", driver, err)
		}
		var want []string
		for _, line := range strings.Split(string(out), "\n") {
			if rest, ok := strings.CutPrefix(line, "libraries: ="); ok {
				for _, d := range filepath.SplitList(rest) {
					if d = filepath.Clean(d); d != "." && !slices.Contains(want, d) {
						want = append(want, d)
					}
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: library dirs read %v; -print-search-dirs %v", name, got, want)
		}
	}
}

// TestDriverNotAGCC: a "gcc" of a build tree that is no gcc (a script, a
// FIFO, a directory) gives an error naming it, and nothing runs.
func TestDriverNotAGCC(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"gcc": "#!/bin/sh\ntouch " + filepath.Join(dir, "ran") + "\n"})
	script := filepath.Join(dir, "gcc")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo-gcc"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, driver := range []string{script, filepath.Join(dir, "fifo-gcc"), dir} {
		if _, err := defaultSpecs(driver); err == nil || !strings.Contains(err.Error(), driver) {
			t.Errorf("%s as gcc: %v; want an error naming it", driver, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the script ran")
	}
}

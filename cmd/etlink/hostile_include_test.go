package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// Build files that name other files (ninja includes, response files, thin
// archive members) in a stranger's build tree: each file is read once,
// and only from inside the tree.
func TestHostileIncludes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on hostile inputs")
	}
	root := t.TempDir()
	good := filepath.Join(root, "good")
	writeTree(t, good, map[string]string{"CMakeFiles/ok.dir/link.txt": "/usr/bin/c++ -shared -o libok.so CMakeFiles/ok.dir/ok.o\n"})
	// chain writes build.ninja and 40 files each naming the next twice:
	// 2^40 reads when each path through the graph is read.
	chain := func(d, kw string) {
		files := map[string]string{"build.ninja": kw + " f0.ninja\n", "f40.ninja": "x = 1\n"}
		for i := 0; i < 40; i++ {
			files[fmt.Sprintf("f%d.ninja", i)] = fmt.Sprintf("%s f%d.ninja\n%s f%d.ninja\n", kw, i+1, kw, i+1)
		}
		writeTree(t, d, files)
	}
	symlink := func(target, p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// thin writes a GNU thin archive naming members in its long-name
	// table, as ar does for paths (no symbol index).
	thin := func(p string, members ...string) string {
		var names, b strings.Builder
		for _, m := range members {
			names.WriteString(m + "/\n")
		}
		if names.Len()%2 == 1 {
			names.WriteString("\n") // members are 2-byte aligned
		}
		fmt.Fprintf(&b, "!<thin>\n%-48s%-10d`\n%s", "//", names.Len(), names.String())
		off := 0
		for _, m := range members {
			fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n", fmt.Sprintf("/%d", off), 0, 0, 0, "644", 100)
			off += len(m) + 2
		}
		writeTree(t, filepath.Dir(p), map[string]string{filepath.Base(p): b.String()})
		return p
	}
	cases := []struct {
		name string
		args func(t *testing.T, d string) []string
		bad  []string // what the errors must name
	}{
		{"40 files each including the next twice", func(t *testing.T, d string) []string {
			chain(d, "include")
			return []string{"retention", d, good}
		}, []string{"f39.ninja:2: include f40.ninja", "included a second time (first at " + "%d/f39.ninja:1)"}},
		{"40 files each subninja-ing the next twice", func(t *testing.T, d string) []string {
			chain(d, "subninja")
			return []string{"retention", filepath.Join(d, "build.ninja"), good}
		}, []string{"f39.ninja:2: subninja f40.ninja", "included a second time"}},
		{"response files naming /dev/zero and /etc/passwd", func(t *testing.T, d string) []string {
			writeTree(t, d, map[string]string{
				"CMakeFiles/pw.dir/link.txt":   "/usr/bin/c++ -shared -o libpw.so @/etc/passwd\n",
				"CMakeFiles/zero.dir/link.txt": "/usr/bin/c++ -shared -o libzero.so @../../../../../../../../../../dev/zero\n",
				"CMakeFiles/link.dir/link.txt": "/usr/bin/c++ -shared -o liblink.so @CMakeFiles/link.dir/objects1.rsp\n",
			})
			symlink("/dev/zero", filepath.Join(d, "CMakeFiles/link.dir/objects1.rsp"))
			return []string{"retention", d, good}
		}, []string{"pw.dir/link.txt:1: response file /etc/passwd: /etc/passwd is outside", "zero.dir/link.txt:1: response file ../../../../../../../../../../dev/zero: /dev/zero is outside",
			"link.dir/link.txt:1: response file CMakeFiles/link.dir/objects1.rsp: /dev/zero is outside"}},
		{"a 16 MB response file of 4M arguments", func(t *testing.T, d string) []string {
			writeTree(t, d, map[string]string{
				"CMakeFiles/x.dir/link.txt":     "/usr/bin/c++ -shared -o libx.so @CMakeFiles/x.dir/objects1.rsp\n",
				"CMakeFiles/x.dir/objects1.rsp": strings.Repeat("a.o ", 4<<20),
			})
			return []string{"retention", d, good}
		}, []string{"x.dir/link.txt:1: response file CMakeFiles/x.dir/objects1.rsp: the command holds more than"}},
		{"a build.ninja command naming /etc/passwd", func(t *testing.T, d string) []string {
			writeTree(t, d, map[string]string{"build.ninja": "rule r\n  command = /usr/bin/c++ -shared -o $out @/etc/passwd\nbuild libx.so: r\n"})
			return []string{"retention", d, good}
		}, []string{"build.ninja:3: response file /etc/passwd: /etc/passwd is outside"}},
		{"thin archive members outside the tree", func(t *testing.T, d string) []string {
			passwd := strings.Repeat("../", strings.Count(d, "/")+1) + "etc/passwd"
			symlink("/etc/passwd", filepath.Join(d, "lib/out.o"))
			return []string{"scan", thin(filepath.Join(d, "lib/libthin.a"), passwd), thin(filepath.Join(d, "lib/libout.a"), "out.o"), demoWheel}
		}, []string{"lib/libthin.a: thin archive member \"../", "\" is /etc/passwd, outside", "lib/libout.a: thin archive member \"out.o\" is /etc/passwd, outside"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.args(t, dir)
			before := hashTree(t, dir)
			r := runHostile(t, append(args, "-q", "--format", "json")...)
			if r.elapsed > 5*time.Second {
				t.Errorf("took %v", r.elapsed)
			}
			if r.maxRSS > 1<<30 {
				t.Errorf("peak RSS %d MB", r.maxRSS>>20)
			}
			if r.code != exitError {
				t.Errorf("exit %d, want 2", r.code)
			}
			for _, bad := range c.bad {
				if bad = strings.ReplaceAll(bad, "%d", dir); !strings.Contains(r.stderr, bad) {
					t.Errorf("stderr %q lacks %q", r.stderr, bad)
				}
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "fatal error") {
				t.Errorf("crashed: %s", r.stderr)
			}
			checkGoodReported(t, r, args, good)
			if after := hashTree(t, dir); len(after) != len(before) {
				t.Errorf("the inputs changed: %d files before, %d after", len(before), len(after))
			}
		})
	}
}

// TestHonestThinArchive: a thin archive CMake writes (ar qcT into an
// archive output directory, naming ../CMakeFiles/... objects) is read.
func TestHonestThinArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs cmake")
	}
	testenv.NeedTools(t, "cmake", "ninja", "g++", "ar")
	src, build := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.16)
project(thin CXX)
set(CMAKE_CXX_ARCHIVE_CREATE "<CMAKE_AR> qcT <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_CXX_ARCHIVE_APPEND "<CMAKE_AR> qT <TARGET> <LINK_FLAGS> <OBJECTS>")
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
add_library(foo STATIC a.cpp)
`,
		"a.cpp": "int thin_answer() { return 42; }\n",
	})
	for _, args := range [][]string{{"-S", src, "-B", build, "-G", "Ninja"}, {"--build", build}} {
		if out, err := exec.Command("cmake", args...).CombinedOutput(); err != nil {
			t.Fatalf("cmake %v: %v\n%s", args, err, out)
		}
	}
	lib := filepath.Join(build, "lib/libfoo.a")
	r := runHostile(t, "scan", lib, demoWheel, "-q", "--format", "json")
	if r.code == exitError || r.elapsed > 5*time.Second {
		t.Fatalf("exit %d in %v: %s", r.code, r.elapsed, r.stderr)
	}
	checkGoodReported(t, r, []string{lib, demoWheel}, lib)
	want := lib + "(../CMakeFiles/foo.dir/a.cpp.o)"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("the member %s is not in the report: %s", want, r.stdout)
	}
}

// checkGoodReported: the good inputs among args are read and reported
// without error.
func checkGoodReported(t *testing.T, r hostileRun, args []string, good string) {
	t.Helper()
	var head struct {
		Inputs []struct{ Path, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &head); err != nil {
		t.Fatalf("no JSON report on stdout (%v): %q", err, r.stdout)
	}
	for _, a := range args {
		if a != good && a != demoWheel {
			continue
		}
		read := false
		for _, in := range head.Inputs {
			read = read || in.Path == a && in.Error == ""
		}
		if !read {
			t.Errorf("the good input %s beside it is not reported: %+v", a, head.Inputs)
		}
	}
}

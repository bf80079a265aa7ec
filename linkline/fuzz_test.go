package linkline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fuzzOptions never run a driver: canned specs, no system dirs.
func fuzzOptions(f *testing.F, dir string) Options {
	specs := debianSpecs(f)
	return Options{
		Dir:        dir,
		Specs:      func(string) (string, error) { return specs, nil },
		SearchDirs: func(string) []string { return nil },
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{
		`: && /usr/bin/c++ CMakeFiles/app.dir/main.cpp.o -o app -Wl,-rpath,"\$ORIGIN" -Wl,--push-state,--whole-archive libstat.a -Wl,--pop-state libs.so && :`,
		`cd sub && env A=B ccache g++ -Xlinker -( a.a -Xlinker -) -l foo -l:libx.so.1 -L dir -o x 2>&1 | tee log`,
		`ld -o x --as-needed -lfoo -( -lbar -) --no-as-needed @rsp -Map m -static -Bdynamic -rpath /r`,
		`clang++ -static -fsanitize=address -fuse-ld=lld x.o -o x '$ORIGIN' "a\"b" $(x) ${y} ` + "`z`",
		`g++ -fopenmp -static-libstdc++ -Wl,--pop-state -Wl,--end-group -Wl,--start-group x.o -o x -x c++ y -T s.ld -z defs`,
	} {
		f.Add(s)
	}
	opt := fuzzOptions(f, f.TempDir())
	f.Fuzz(func(t *testing.T, cmd string) {
		l, err := ParseCommand(cmd, opt)
		if err == nil && l == nil {
			t.Fatal("nil link without error")
		}
	})
}

func FuzzResponseFile(f *testing.F) {
	outside := filepath.Join(f.TempDir(), "outside.rsp")
	for _, s := range []string{
		"a.o 'b c.o' \"d\\\"e\" f\\ g\n-Wl,--no-as-needed -lfoo\n@nested.rsp",
		"''\n\"\"\\",
		"@self.rsp",
		"-Wl,@nested.rsp x",
		// Outside the build tree, or no regular file: never read from a
		// build tree's command.
		"@" + outside, "@/dev/zero", "@/etc/passwd", "@../../../../../../../../etc/passwd", "@fifo.rsp", "@zero.rsp",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	opt := fuzzOptions(f, dir)
	writeFiles(f, dir, map[string]string{"nested.rsp": "n.o -lbar"})
	if err := os.WriteFile(outside, []byte("secret.o"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.rsp"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.rsp")); err != nil {
		f.Fatal(err)
	}
	// Iterations run one at a time in each worker, which has its own dir.
	path := filepath.Join(dir, "self.rsp")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = splitRsp(string(data), "x.rsp", maxRspArgs)
		_, _ = ParseArgs([]string{"g++", "@" + path, "-o", "x"}, opt)
		// The same command in a build log: whatever the file names, no
		// argument comes from outside the log's directory.
		links, _ := ParseLog(strings.NewReader("g++ @self.rsp -o x\n"), "build.log", opt)
		for _, l := range links {
			for _, in := range l.Inputs {
				if in.Arg == "secret.o" {
					t.Fatalf("read %s from a build log's command", outside)
				}
			}
		}
	})
}

func FuzzParseNinja(f *testing.F) {
	f.Add([]byte(ninjaRules + "build app: CXX_EXECUTABLE_LINKER__app_ a.o | b || c\n  LINK_LIBRARIES = -lfoo $\n    -lbar\n  TARGET_FILE = app\n"))
	f.Add([]byte("rule r\n  command = g++ @$out.rsp $in -o $out\n  rspfile = $out.rsp\n  rspfile_content = $in_newline\nbuild x$ y: r a$:b ${v}\n"))
	f.Add([]byte("subninja sub.ninja\ninclude inc.ninja\npool p\n  depth = 1\ndefault x\n# Link build statements for EXECUTABLE target t\n"))
	f.Add([]byte("v = $\n\nbuild $"))
	// A variable doubled 59 times: an exabyte unless values are bounded.
	var doubling strings.Builder
	doubling.WriteString("v0 = xxxxxxxx\n")
	for i := 1; i < 60; i++ {
		fmt.Fprintf(&doubling, "v%d = $v%d$v%d\n", i, i-1, i-1)
	}
	f.Add([]byte(doubling.String()))
	// Files read once: a double include or subninja, a diamond, and 40
	// files each naming the next twice (2^40 reads unless each file is
	// read once).
	f.Add([]byte("include inc.ninja\ninclude inc.ninja\n"))
	f.Add([]byte("subninja inc.ninja\nsubninja inc.ninja\n"))
	f.Add([]byte("include b.ninja\ninclude c.ninja\n"))
	f.Add([]byte("include f0.ninja\n"))
	f.Add([]byte("subninja f0.ninja\n"))
	f.Add([]byte("rule r\n  command = g++ @/etc/passwd @../../../dev/zero -o $out\nbuild x: r\n"))
	dir := f.TempDir()
	opt := fuzzOptions(f, dir)
	files := doubledChain("include", 40)
	delete(files, "build.ninja")
	files["inc.ninja"] = "rule r\n  command = g++ $in -o $out\n"
	files["b.ninja"] = "include d.ninja\n"
	files["c.ninja"] = "include d.ninja\n"
	files["d.ninja"] = "x = 1\n"
	writeFiles(f, dir, files)
	f.Fuzz(func(t *testing.T, data []byte) {
		links, _ := parseNinja(bytes.NewReader(data), "build.ninja", dir, opt)
		for _, l := range links {
			if l == nil {
				t.Fatal("nil link")
			}
		}
	})
}

// FuzzReplyReference fuzzes the jsonFile a codemodel names for a target:
// whatever it says, etlink reads nothing outside the reply directory
// (only the targets' own files there), ends, and never panics.
func FuzzReplyReference(f *testing.F) {
	for _, s := range []string{"target-x.json", "../../../../../../dev/zero", "/etc/passwd", "a/../../index-1.json", "..", "", "target-x.json/..", "\x00"} {
		f.Add(s)
	}
	build := f.TempDir()
	reply := filepath.Join(build, ".cmake/api/v1/reply")
	if err := os.MkdirAll(reply, 0o755); err != nil {
		f.Fatal(err)
	}
	writeFiles(f, reply, map[string]string{
		"index-1.json":  `{"cmake":{"version":{"string":"3.25.1"}},"objects":[{"kind":"codemodel","version":{"major":2,"minor":4},"jsonFile":"codemodel.json"}]}`,
		"target-x.json": appTarget,
	})
	writeFiles(f, build, map[string]string{"outside.json": appTarget})
	opt := fuzzOptions(f, build)
	f.Fuzz(func(t *testing.T, name string) {
		ref, _ := json.Marshal(name)
		cm := `{"kind":"codemodel","paths":{"build":"` + build + `","source":"` + build + `"},"configurations":[{"name":"","targets":[{"name":"x","id":"x","jsonFile":` + string(ref) + `}]}]}`
		if err := os.WriteFile(filepath.Join(reply, "codemodel.json"), []byte(cm), 0o644); err != nil {
			t.Fatal(err)
		}
		links, _ := ParseFileAPI(build, opt)
		clean := filepath.Clean(filepath.Join(reply, name))
		inside := strings.HasPrefix(clean, reply+string(filepath.Separator)) && !strings.ContainsRune(name, 0)
		if len(links) > 0 && !inside {
			t.Fatalf("jsonFile %q: read a link from outside the reply directory", name)
		}
	})
}

func FuzzFileAPI(f *testing.F) {
	f.Add([]byte(appTarget))
	f.Add([]byte(`{"name":"x","type":"SHARED_LIBRARY","link":{"language":"C","commandFragments":[{"fragment":"LINKER:SHELL:-z defs","role":"flags","backtrace":0}]},"backtraceGraph":{"nodes":[{"file":5,"command":-1,"line":-2}]},"sources":[{"path":"../../x.c","compileGroupIndex":0,"backtrace":-1}]}`))
	f.Add([]byte(`{"name":"x","type":"EXECUTABLE","link":{"language":"CXX","commandFragments":[{"fragment":"SHELL:\"","role":"libraries"}]},"artifacts":[{"path":"/abs/x"}]}`))
	s := newSession(fuzzOptions(f, ""))
	ctx := faContext{top: "/build", source: "/src", compilers: compilers{"CXX": {"g++", "test"}, "C": {"gcc", "test"}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := s.fileAPITarget(data, "target.json", ctx)
		if err != nil && l != nil {
			t.Fatal("link and error")
		}
	})
}

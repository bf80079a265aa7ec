package linkline

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCMakeFragmentWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"-Wl,--as-needed", []string{"-Wl,--as-needed"}},
		{"  -rdynamic -Wl,-z,defs ", []string{"-rdynamic", "-Wl,-z,defs"}},
		{`"/path with space/libx.so"`, []string{"/path with space/libx.so"}},
		{"LINKER:--push-state,--no-as-needed", []string{"-Wl,--push-state,--no-as-needed"}},
		{"LINKER:-rpath,$ORIGIN", []string{"-Wl,-rpath,$ORIGIN"}},
		{"LINKER:SHELL:--push-state --no-as-needed", []string{"-Wl,--push-state,--no-as-needed"}},
		{`LINKER:SHELL:-z "a,b"`, []string{"-Xlinker", "-z", "-Xlinker", "a,b"}},
		{"SHELL:-Xlinker --whole-archive", []string{"-Xlinker", "--whole-archive"}},
		{"-lLINKER:--pop-state", []string{"-lLINKER:--pop-state"}},
	}
	for _, tc := range tests {
		got, err := cmakeFragmentWords(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("cmakeFragmentWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if _, err := cmakeFragmentWords(`SHELL:"open`); err == nil {
		t.Error("unterminated quote in a fragment: no error")
	}
}

func TestObjectPath(t *testing.T) {
	tests := []struct{ target, src, srcDir, curBuild, want string }{
		{"app", "main.cpp", ".", "/b", "CMakeFiles/app.dir/main.cpp.o"},
		{"app", "sub/a.cpp", "sub", "/b/sub", "CMakeFiles/app.dir/a.cpp.o"},
		{"app", "common/x.cpp", "sub", "/b/sub", "CMakeFiles/app.dir/__/common/x.cpp.o"},
		{"app", "/b/sub/gen/g.cpp", "sub", "/b/sub", "CMakeFiles/app.dir/gen/g.cpp.o"},
		{"app", "/abs/ext.cpp", ".", "/b", "CMakeFiles/app.dir/abs/ext.cpp.o"},
	}
	for _, tc := range tests {
		if got := objectPath(tc.target, "", tc.src, tc.srcDir, "/b", tc.curBuild); got != tc.want {
			t.Errorf("objectPath(%q, %q) = %q, want %q", tc.src, tc.srcDir, got, tc.want)
		}
	}
}

// fileAPIReply writes a minimal reply with one target; kinds picks which
// of toolchains and cache replies exist.
func fileAPIReply(t *testing.T, target string, kinds ...string) string {
	t.Helper()
	build := t.TempDir()
	reply := filepath.Join(build, ".cmake", "api", "v1", "reply")
	objects := `{"kind":"codemodel","version":{"major":2,"minor":4},"jsonFile":"codemodel-v2-1.json"}`
	files := map[string]string{
		"codemodel-v2-1.json": `{"paths":{"source":"/src","build":"` + build + `"},"configurations":[{"name":"","targets":[{"name":"app","jsonFile":"target-app.json"}]}]}`,
		"target-app.json":     target,
	}
	for _, k := range kinds {
		switch k {
		case "toolchains":
			objects += `,{"kind":"toolchains","version":{"major":1},"jsonFile":"toolchains-v1-1.json"}`
			files["toolchains-v1-1.json"] = `{"toolchains":[{"language":"CXX","compiler":{"path":"/tc/g++"}}]}`
		case "cache":
			objects += `,{"kind":"cache","version":{"major":2},"jsonFile":"cache-v2-1.json"}`
			files["cache-v2-1.json"] = `{"entries":[{"name":"CMAKE_CXX_COMPILER","value":"/cache/c++"},{"name":"CMAKE_C_COMPILER","value":"/cache/cc"}]}`
		}
	}
	files["index-2026-01-01T00-00-00-0000.json"] = `{"objects":[` + objects + `]}`
	files["index-2025-01-01T00-00-00-0000.json"] = `{"objects":[]}` // older: ignored
	writeFiles(t, reply, files)
	return build
}

const appTarget = `{
 "name":"app","type":"EXECUTABLE","nameOnDisk":"app","artifacts":[{"path":"bin/app"}],
 "backtrace":1,
 "backtraceGraph":{"commands":["add_executable","target_link_libraries","target_link_options"],"files":["CMakeLists.txt","cmake/deps.cmake"],
  "nodes":[{"file":0},{"command":0,"file":0,"line":3,"parent":0},{"command":1,"file":1,"line":12,"parent":0},{"command":2,"file":0,"line":5,"parent":0}]},
 "paths":{"source":".","build":"."},
 "link":{"language":"CXX","commandFragments":[
  {"fragment":"-O2","role":"flags"},
  {"fragment":"LINKER:--no-as-needed","role":"flags","backtrace":3},
  {"fragment":"-L/opt/x","role":"libraryPath","backtrace":2},
  {"fragment":"-Wl,--as-needed","role":"libraries"},
  {"fragment":"-lfoo","role":"libraries","backtrace":2},
  {"fragment":"\"/p q/libbar.so\"","role":"libraries","backtrace":99}]},
 "sources":[{"path":"main.cpp","compileGroupIndex":0,"backtrace":1},{"path":"main.h","backtrace":1}]
}`

func TestParseFileAPISynthetic(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	opt.Dir = ""
	for _, tc := range []struct {
		kinds  []string
		driver string
	}{
		{[]string{"toolchains", "cache"}, "/tc/g++"},
		{[]string{"cache"}, "/cache/c++"},
	} {
		build := fileAPIReply(t, appTarget, tc.kinds...)
		links, errs := ParseFileAPI(build, opt)
		if len(errs) > 0 || len(links) != 1 {
			t.Fatalf("%v: %d links, errors %v", tc.kinds, len(links), errs)
		}
		l := links[0]
		eq(t, "Driver", l.Driver, tc.driver)
		eq(t, "Target", l.Target, "app")
		eq(t, "Output", l.Output, "bin/app")
		eq(t, "Dir", l.Dir, build)
		eq(t, "LibDirs", strings.Join(l.LibDirs, " "), "/opt/x")
		equalLines(t, "inputs", render(l.Inputs, false), []string{
			"CMakeFiles/app.dir/main.cpp.o object default",
			"-lfoo lib as-needed",
			"/p q/libbar.so shared as-needed",
		})
		obj, foo, bar := l.Inputs[0].Source, l.Inputs[1].Source, l.Inputs[2].Source
		eq(t, "object's CMake line", obj.String(), filepath.Join(build, ".cmake/api/v1/reply/target-app.json")+" (/src/CMakeLists.txt:3 add_executable)")
		eq(t, "-lfoo's CMake file", foo.CMakeFile, "/src/cmake/deps.cmake")
		eq(t, "-lfoo's CMake line", foo.CMakeLine, 12)
		eq(t, "-lfoo's CMake command", foo.CMakeCommand, "target_link_libraries")
		eq(t, "bad backtrace index", bar.CMakeLine, 0)
		eq(t, "link source", l.Source.CMakeLine, 3)
	}

	build := fileAPIReply(t, appTarget)
	if _, errs := ParseFileAPI(build, opt); len(errs) != 1 || !errors.Is(errs[0], ErrFileAPI) || !strings.Contains(errs[0].Error(), "no compiler") {
		t.Errorf("no toolchains, no cache: %v", errs)
	}
	build = fileAPIReply(t, `{"name":"app","type":"EXECUTABLE","link":`, "cache")
	if _, errs := ParseFileAPI(build, opt); len(errs) != 1 || !errors.Is(errs[0], ErrFileAPI) || !strings.Contains(errs[0].Error(), "target-app.json") {
		t.Errorf("bad target JSON: %v", errs)
	}
	build = fileAPIReply(t, `{"name":"app","type":"STATIC_LIBRARY"}`, "cache")
	if links, errs := ParseFileAPI(build, opt); len(links) != 0 || len(errs) != 0 {
		t.Errorf("static library: %d links, %v", len(links), errs)
	}
	if _, errs := ParseFileAPI(t.TempDir(), opt); len(errs) != 1 || !errors.Is(errs[0], ErrFileAPI) {
		t.Errorf("no reply: %v", errs)
	}
}

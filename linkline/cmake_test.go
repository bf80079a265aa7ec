package linkline

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// The CMake project of the end-to-end tests. Line 7 is the
// target_link_libraries every library input must point back to.
//
// The brief's form "LINKER:--push-state,--no-as-needed" is not expanded
// by target_link_libraries in CMake 3.25 (only link options expand
// LINKER:): it becomes -lLINKER:..., and the link fails. So app uses the
// -Wl, spelling that works, and app_linker (not built) keeps the LINKER:
// form to check what the parser makes of it.
const cmakeProject = `cmake_minimum_required(VERSION 3.24)
project(demo CXX)
add_library(shared1 SHARED s1.cpp)
add_library(shared2 SHARED s2.cpp)
add_library(stat STATIC st.cpp)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,stat>" "-Wl,--push-state,--no-as-needed" shared1 "-Wl,--pop-state" shared2)
target_link_options(shared2 PRIVATE "LINKER:--no-as-needed" "SHELL:-Xlinker --push-state" "LINKER:SHELL:--pop-state")
add_executable(app_linker EXCLUDE_FROM_ALL main.cpp)
target_link_libraries(app_linker PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,stat>" "LINKER:--push-state,--no-as-needed" shared1 "LINKER:--pop-state" shared2)
`

const tllLine = 7

// cmakeBuild configures (and builds, capturing the verbose log) the
// project with a generator, with File API queries for the given kinds.
func cmakeBuild(t *testing.T, src, name, generator string, queries ...string) (dir string, log []byte) {
	t.Helper()
	dir = filepath.Join(filepath.Dir(src), name)
	q := filepath.Join(dir, ".cmake", "api", "v1", "query")
	if err := os.MkdirAll(q, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range queries {
		if err := os.WriteFile(filepath.Join(q, k), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) []byte {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	run("cmake", "-S", src, "-B", dir, "-G", generator, "-DCMAKE_CXX_COMPILER=/usr/bin/g++")
	if generator == "Ninja" {
		log = run("ninja", "-v")
	} else {
		log = run("make", "VERBOSE=1")
	}
	return dir, log
}

// inputKey is what must agree between the sources of one link: kind, file
// name, state, implicitness.
func inputKey(in Input) string {
	name := filepath.Base(in.Name)
	if strings.HasPrefix(in.Arg, "-l") {
		name = in.Arg
	}
	return strings.Join([]string{in.Kind.String(), name, in.State.String(), map[bool]string{true: "implicit"}[in.Implicit]}, " ")
}

func inputKeys(l *Link) []string {
	var out []string
	for _, in := range l.Inputs {
		out = append(out, inputKey(in))
	}
	return out
}

// byTarget indexes what a Parse function returned by target, reporting
// its errors as what's.
func byTarget(t *testing.T, what string) func([]*Link, []error) map[string]*Link {
	return func(links []*Link, errs []error) map[string]*Link {
		t.Helper()
		for _, err := range errs {
			t.Errorf("%s: %v", what, err)
		}
		m := map[string]*Link{}
		for _, l := range links {
			m[l.Target] = l
		}
		return m
	}
}

func TestCMakeEndToEnd(t *testing.T) {
	testenv.NeedTools(t, "cmake", "ninja", "g++", "make")
	root := t.TempDir()
	src := filepath.Join(root, "src")
	writeFiles(t, src, map[string]string{
		"CMakeLists.txt": cmakeProject,
		"s1.cpp":         "int s1() { return 1; }\n",
		"s2.cpp":         "int s2() { return 2; }\n",
		"st.cpp":         "int st() { return 3; }\n",
		"main.cpp":       "int s2();\nint main() { return s2() == 2 ? 0 : 1; }\n",
	})
	ninjaDir, ninjaLog := cmakeBuild(t, src, "b-ninja", "Ninja", "codemodel-v2", "toolchains-v1", "cache-v2")
	makeDir, makeLog := cmakeBuild(t, src, "b-make", "Unix Makefiles", "codemodel-v2", "toolchains-v1", "cache-v2")
	// Without toolchains-v1 the driver comes from the cache.
	cacheDir, _ := cmakeBuild(t, src, "b-cache", "Ninja", "codemodel-v2", "cache-v2")

	opt := Options{}
	ninja := byTarget(t, "build.ninja")(ParseNinja(filepath.Join(ninjaDir, "build.ninja"), opt))
	apiNinja := byTarget(t, "File API (Ninja)")(ParseFileAPI(ninjaDir, opt))
	apiMake := byTarget(t, "File API (Makefiles)")(ParseFileAPI(makeDir, opt))
	apiCache := byTarget(t, "File API (cache only)")(ParseFileAPI(cacheDir, opt))
	logNinja := map[string]*Link{}
	links, errs := ParseLog(bytes.NewReader(ninjaLog), "ninja.log", Options{Dir: ninjaDir})
	for _, err := range errs {
		t.Errorf("ninja -v log: %v", err)
	}
	for _, l := range links {
		logNinja[l.Output] = l
	}
	logMake := map[string]*Link{}
	links, errs = ParseLog(bytes.NewReader(makeLog), "make.log", Options{})
	for _, err := range errs {
		t.Errorf("make VERBOSE=1 log: %v", err)
	}
	for _, l := range links {
		logMake[l.Output] = l
	}

	wantApp := []string{
		"object main.cpp.o as-needed ",
		"archive libstat.a as-needed whole-archive ",
		"shared libshared1.so default ",
		"shared libshared2.so as-needed ",
	}
	for _, target := range []string{"app", "shared1", "shared2"} {
		t.Run(target, func(t *testing.T) {
			txt, err := ParseLinkTxt(filepath.Join(makeDir, "CMakeFiles", target+".dir", "link.txt"), opt)
			if err != nil {
				t.Fatal(err)
			}
			ref := ninja[target]
			if ref == nil {
				t.Fatalf("build.ninja has no link for %s", target)
			}
			out := ref.Output
			sources := map[string]*Link{
				"link.txt": txt, "File API (Ninja)": apiNinja[target], "File API (Makefiles)": apiMake[target],
				"File API (cache-v2 driver)": apiCache[target], "ninja -v log": logNinja[out], "make VERBOSE=1 log": logMake[out],
			}
			for name, l := range sources {
				if l == nil {
					t.Errorf("%s: no link for %s", name, target)
					continue
				}
				equalLines(t, name+" vs build.ninja", inputKeys(l), inputKeys(ref))
				if l.Output != ref.Output || l.Shared != ref.Shared || l.DefaultAsNeeded != ref.DefaultAsNeeded {
					t.Errorf("%s: Output %q Shared %v DefaultAsNeeded %v; build.ninja: %q %v %v",
						name, l.Output, l.Shared, l.DefaultAsNeeded, ref.Output, ref.Shared, ref.DefaultAsNeeded)
				}
				if l.Driver != "/usr/bin/g++" {
					t.Errorf("%s: Driver %q", name, l.Driver)
				}
			}
			eq(t, "link.txt Target", txt.Target, target)
			eq(t, "link.txt Dir", txt.Dir, makeDir)
			eq(t, "build.ninja Dir", ref.Dir, ninjaDir)
			if !ref.DefaultAsNeeded || !strings.HasPrefix(ref.DefaultAsNeededSource, "gcc link spec of") {
				t.Errorf("DefaultAsNeeded %v (%s): Debian's g++ passes --as-needed", ref.DefaultAsNeeded, ref.DefaultAsNeededSource)
			}
			if target == "app" {
				var explicit []string
				for _, in := range ref.Inputs {
					if !in.Implicit {
						explicit = append(explicit, inputKey(in))
					}
				}
				equalLines(t, "app's own inputs", explicit, wantApp)
				for _, in := range apiNinja["app"].Inputs {
					switch {
					case in.Implicit:
					case in.Kind == KindObject:
						eq(t, in.Name+" CMakeCommand", in.Source.CMakeCommand, "add_executable")
					default:
						eq(t, in.Name+" CMakeLine", in.Source.CMakeLine, tllLine)
						eq(t, in.Name+" CMakeCommand", in.Source.CMakeCommand, "target_link_libraries")
						eq(t, in.Name+" CMakeFile", in.Source.CMakeFile, filepath.Join(src, "CMakeLists.txt"))
					}
				}
			}
		})
	}
	if d := apiCache["app"]; d != nil && d.Driver != "/usr/bin/g++" {
		t.Errorf("cache-v2 driver %q", d.Driver)
	}

	// app_linker: CMake passes the LINKER: items of target_link_libraries
	// as library names; the parser says so rather than apply them.
	al := apiNinja["app_linker"]
	if al == nil {
		t.Fatal("File API has no app_linker")
	}
	nal := ninja["app_linker"]
	equalLines(t, "app_linker: File API vs build.ninja", inputKeys(al), inputKeys(nal))
	if strings.Contains(strings.Join(inputKeys(nal), "\n"), "-lLINKER:") {
		if len(nal.Warnings) != 2 || !strings.Contains(nal.Warnings[0], "LINKER: item passed as a library name") {
			t.Errorf("app_linker warnings: %q", nal.Warnings)
		}
		for _, in := range al.Inputs {
			if strings.HasPrefix(in.Arg, "-lLINKER:") && (in.Kind != KindLib || in.Source.CMakeLine != tllLine+3) {
				t.Errorf("app_linker %s: kind %v, CMake line %d", in.Arg, in.Kind, in.Source.CMakeLine)
			}
		}
	} else {
		// A CMake that expands LINKER: here renders app_linker like app.
		var explicit []string
		for _, in := range nal.Inputs {
			if !in.Implicit {
				explicit = append(explicit, inputKey(in))
			}
		}
		equalLines(t, "app_linker's own inputs", explicit, wantApp)
	}

	// shared2's LINKER:/SHELL: link options arrive rendered in the File API.
	if s2 := apiNinja["shared2"]; s2 != nil {
		for _, in := range s2.Inputs {
			if in.State.AsNeeded {
				t.Errorf("shared2 %s under --as-needed despite LINKER:--no-as-needed", in.Arg)
			}
		}
	}
}

package linkline

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const ninjaRules = `cflags = -O2
ldflags_file = -Wl,--no-as-needed
rule CXX_COMPILER__app_
  command = /usr/bin/c++ $cflags -o $out -c $in
rule CXX_EXECUTABLE_LINKER__app_
  command = $PRE_LINK && /usr/bin/c++ $FLAGS $LINK_FLAGS $in -o $TARGET_FILE $LINK_PATH $LINK_LIBRARIES && $POST_BUILD
  description = Linking CXX executable $TARGET_FILE
rule CXX_STATIC_LIBRARY_LINKER__stat_
  command = $PRE_LINK && /usr/bin/cmake -E rm -f $TARGET_FILE && /usr/bin/ar qc $TARGET_FILE $LINK_FLAGS $in && /usr/bin/ranlib $TARGET_FILE && $POST_BUILD
rule RSP_LINK
  command = /usr/bin/c++ $FLAGS @$RSP_FILE -o $TARGET_FILE
  rspfile = $RSP_FILE
  rspfile_content = $in_newline $LINK_PATH $LINK_LIBRARIES
rule SCOPED
  inner = $ldflags_file $extra
  command = g++ $inner $in -o $out ${tail}
`

func parseNinjaFiles(t *testing.T, files map[string]string) ([]*Link, []error) {
	t.Helper()
	opt, _ := testOptions(t, debianSpecs(t))
	writeFiles(t, opt.Dir, files)
	return ParseNinja(filepath.Join(opt.Dir, "build.ninja"), Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs})
}

func TestParseNinja(t *testing.T) {
	links, errs := parseNinjaFiles(t, map[string]string{
		"CMakeFiles/rules.ninja": ninjaRules,
		"build.ninja": `# CMAKE generated file: DO NOT EDIT!
include CMakeFiles/rules.ninja

# =============================================================================
# Object build statements for EXECUTABLE target app

build CMakeFiles/app.dir/main.cpp.o: CXX_COMPILER__app_ ../src/main.cpp || cmake_object_order_depends_target_app
  FLAGS = -O2

build cmake_object_order_depends_target_app: phony || libstat.a

# =============================================================================
# Link build statements for EXECUTABLE target app

#############################################
# Link the executable app

build app: CXX_EXECUTABLE_LINKER__app_ CMakeFiles/app.dir/main.cpp.o | libstat.a || libstat.a
  FLAGS = -O2
  LINK_LIBRARIES = -Wl,-rpath,"\$$ORIGIN/../lib"  -Wl,--push-state,--whole-archive  libstat.a  -Wl,--pop-state  -Wl,--push-state,--no-as-needed  libshared1.so  -Wl,--pop-state  libshared2.so
  LINK_PATH = -L/opt/lib
  OBJECT_DIR = CMakeFiles/app.dir
  POST_BUILD = :
  PRE_LINK = :
  TARGET_FILE = app
  TARGET_PDB = app.dbg

# Link build statements for STATIC_LIBRARY target stat
build libstat.a: CXX_STATIC_LIBRARY_LINKER__stat_ CMakeFiles/stat.dir/st.cpp.o
  POST_BUILD = :
  PRE_LINK = :
  TARGET_FILE = libstat.a

# Utility command for rsp_user
build big: RSP_LINK a.o b$ c.o
  RSP_FILE = CMakeFiles/big.rsp
  LINK_LIBRARIES = -Wl,--no-as-needed -lfoo
  TARGET_FILE = big

build scoped: SCOPED x.o
  extra = -Wl,--as-needed
  tail = -lbar$$X $
      -ltail$ x $:y
`,
	})
	for _, err := range errs {
		t.Error(err)
	}
	if len(links) != 3 {
		t.Fatalf("%d links, want 3 (app, big, scoped)", len(links))
	}
	app, big, scoped := links[0], links[1], links[2]
	eq(t, "app.Target", app.Target, "app")
	eq(t, "app.Output", app.Output, "app")
	eq(t, "app.Source", app.Source.String(), filepath.Join(filepath.Dir(app.Dir), filepath.Base(app.Dir), "build.ninja")+":18")
	equalLines(t, "app", render(app.Inputs, false), []string{
		"CMakeFiles/app.dir/main.cpp.o object as-needed",
		"libstat.a archive as-needed whole-archive",
		"libshared1.so shared default",
		"libshared2.so shared as-needed",
	})
	eq(t, "app.LibDirs", strings.Join(app.LibDirs, " "), "/opt/lib")
	eq(t, "app.Rpath", strings.Join(app.Rpath, " "), "$ORIGIN/../lib")

	// rspfile_content stands in for the response file ninja deletes; its
	// $in_newline is not quoted, so "b c.o" is two arguments to gcc.
	eq(t, "big.Target", big.Target, "rsp_user")
	equalLines(t, "big", render(big.Inputs, false), []string{
		"a.o object as-needed", "b unknown as-needed", "c.o object as-needed", "-lfoo lib default",
	})

	// Build bindings, then rule, then file; $$, "$ " and "$:" escapes,
	// $-newline (in a command "$ " is only a blank to the shell).
	eq(t, "scoped.Target", scoped.Target, "rsp_user")
	equalLines(t, "scoped", render(scoped.Inputs, false), []string{
		"x.o object as-needed", "-lbar$X lib as-needed", "-ltail lib as-needed", "x unknown as-needed", ":y unknown as-needed",
	})
}

func TestNinjaScopes(t *testing.T) {
	links, errs := parseNinjaFiles(t, map[string]string{
		"build.ninja": `v = top
rule link
  command = g++ $in -o $out -l$v
subninja sub/sub.ninja
include inc.ninja
build top: link a.o
build $out_var: link b.o
`,
		"sub/sub.ninja": `v = sub
build fromsub: link c.o
`,
		"inc.ninja": `v = inc
out_var = named
`,
	})
	for _, err := range errs {
		t.Error(err)
	}
	var got []string
	for _, l := range links {
		got = append(got, l.Output+" "+l.Inputs[1].Arg)
	}
	equalLines(t, "links", got, []string{"fromsub -lsub", "top -linc", "named -linc"})
}

func TestNinjaTargetNames(t *testing.T) {
	links, errs := parseNinjaFiles(t, map[string]string{"build.ninja": `rule CXX_SHARED_LIBRARY_LINKER__my_lib_Release
  command = g++ -shared $in -o $TARGET_FILE
rule plain
  command = g++ $in -o $TARGET_FILE
build libmy_lib.so: CXX_SHARED_LIBRARY_LINKER__my_lib_Release a.o
  TARGET_FILE = libmy_lib.so
build libfoo.so: plain a.o
  TARGET_FILE = libfoo.so
  TARGET_PDB = foo.so.dbg
`})
	for _, err := range errs {
		t.Error(err)
	}
	if len(links) != 2 {
		t.Fatalf("%d links", len(links))
	}
	eq(t, "from rule name", links[0].Target, "my_lib")
	eq(t, "from TARGET_PDB", links[1].Target, "foo")
}

func TestNinjaErrors(t *testing.T) {
	tests := []struct {
		text string
		want string
	}{
		{"rule r\n  command = g++ $in\nbuild x: r a$", "build.ninja:3: ninja syntax: unterminated $-escape"},
		{"v = a${b\n", "build.ninja:1: ninja syntax: unterminated $-escape"},
		{"v = a$%b\n", "build.ninja:1: ninja syntax: bad $-escape"},
		{"build x: nosuch a\n", `build.ninja:1: ninja syntax: unknown build rule "nosuch"`},
		{"\n\ninclude missing.ninja\n", "build.ninja:3: include missing.ninja:"},
		{"v = 1\n  w = 2\n", "build.ninja:2: ninja syntax: unexpected indent"},
		{"build x y\n", "build.ninja:1: ninja syntax: expected ':'"},
		{"include build.ninja\n", "include cycle"},
		{"rule\n", "expected rule name"},
		{"v 1\n", "expected '=' after v"},
	}
	for _, tc := range tests {
		_, errs := parseNinjaFiles(t, map[string]string{"build.ninja": tc.text})
		if len(errs) == 0 {
			t.Errorf("%q: no error", tc.text)
			continue
		}
		if !strings.Contains(errs[0].Error(), tc.want) {
			t.Errorf("%q: error %q lacks %q", tc.text, errs[0], tc.want)
		}
	}
	_, errs := parseNinjaFiles(t, map[string]string{"build.ninja": "rule r\n  command = g++ @gone.rsp -o x\nbuild x: r\n"})
	if len(errs) != 1 || !errors.Is(errs[0], ErrResponseFile) || !strings.Contains(errs[0].Error(), "build.ninja:3") {
		t.Errorf("missing rsp: %v", errs)
	}
}

package linkline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLog(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	log := `make[1]: Entering directory '/work/build'
[ 20%] Building CXX object CMakeFiles/app.dir/main.cpp.o
/usr/bin/c++ -O2 -o CMakeFiles/app.dir/main.cpp.o -c /src/main.cpp
[ 40%] Linking CXX executable app
/usr/bin/cmake -E cmake_link_script CMakeFiles/app.dir/link.txt --verbose=1
/usr/bin/c++ CMakeFiles/app.dir/main.cpp.o -o app -Wl,--no-as-needed libx.so
/usr/bin/ld: cannot find -lfoo: No such file or directory
g++: error: unrecognized command-line option '-oops'
main.cpp:3:5: error: missing terminating ' character
make[1]: Leaving directory '/work/build'
ninja: Entering directory ` + "`" + `out'
[3/4] : && /usr/bin/c++ -shared -Wl,-soname,liby.so -o liby.so y.o && :
[4/4] cd /work/build/out/sub && /usr/bin/c++ z.o -o z @missing.rsp
FAILED: z
`
	links, errs := ParseLog(strings.NewReader(log), "build.log", opt)
	if len(links) != 2 {
		t.Fatalf("%d links, want 2: %+v", len(links), links)
	}
	eq(t, "first Output", links[0].Output, "app")
	eq(t, "first Dir", links[0].Dir, "/work/build")
	eq(t, "first Source", links[0].Source.String(), "build.log:6")
	equalLines(t, "first", render(links[0].Inputs, false), []string{
		"CMakeFiles/app.dir/main.cpp.o object as-needed", "libx.so shared default",
	})
	eq(t, "second Output", links[1].Output, "liby.so")
	eq(t, "second Dir", links[1].Dir, "/work/build/out")
	eq(t, "second Soname", links[1].Soname, "liby.so")
	if len(errs) != 1 || !errors.Is(errs[0], ErrResponseFile) || !strings.HasPrefix(errs[0].Error(), "build.log:13: ") {
		t.Errorf("errors %v, want the missing response file of line 13", errs)
	}
}

func TestStripProgress(t *testing.T) {
	for in, want := range map[string]string{
		"[12/40] : && c++ x":     ": && c++ x",
		"[ 40%] Linking":         "[ 40%] Linking",
		"[a/b] x":                "[a/b] x",
		"no prefix":              "no prefix",
		"[1/2]no space":          "[1/2]no space",
		"[100/100] g++ -o x y.o": "g++ -o x y.o",
	} {
		if got := stripProgress(in); got != want {
			t.Errorf("stripProgress(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseLinkTxt(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	build := t.TempDir()
	writeFiles(t, build, map[string]string{
		"sub/CMakeFiles/app.dir/link.txt": "/usr/bin/c++ -O2 CMakeFiles/app.dir/main.cpp.o -o app  -Wl,-rpath,\"\\$ORIGIN/../lib\" ../libx.so\n",
		"CMakeFiles/lib.dir/link.txt":     "/usr/bin/c++ -fPIC -shared -Wl,-soname,libv.so.1 -o libv.so.1.2 CMakeFiles/lib.dir/a.cpp.o\n/usr/bin/cmake -E cmake_symlink_library libv.so.1.2 libv.so.1 libv.so\n",
		"CMakeFiles/stat.dir/link.txt":    "/usr/bin/ar qc libstat.a CMakeFiles/stat.dir/st.cpp.o\n/usr/bin/ranlib libstat.a\n",
		"CMakeFiles/pre.dir/link.txt":     "echo pre-link\n\n/usr/bin/c++ x.o -o pre\n",
		"CMakeFiles/bad.dir/link.txt":     "/usr/bin/c++ x.o -o bad @CMakeFiles/bad.dir/objects1.rsp\n",
		"CMakeFiles/quote.dir/link.txt":   "/usr/bin/c++ 'x.o -o q\n",
	})
	opt.Dir = ""
	l, err := ParseLinkTxt(filepath.Join(build, "sub/CMakeFiles/app.dir/link.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "Target", l.Target, "app")
	eq(t, "Dir", l.Dir, filepath.Join(build, "sub"))
	eq(t, "Rpath", strings.Join(l.Rpath, ":"), "$ORIGIN/../lib") // as CMake writes it: "\$ORIGIN/../lib"
	eq(t, "libx.so Name", l.Inputs[1].Name, "../libx.so")

	l, err = ParseLinkTxt(filepath.Join(build, "CMakeFiles/lib.dir/link.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "Output", l.Output, "libv.so.1.2")
	eq(t, "Soname", l.Soname, "libv.so.1")
	eq(t, "Source", l.Source.Line, 1)

	l, err = ParseLinkTxt(filepath.Join(build, "CMakeFiles/pre.dir/link.txt"), opt)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "pre Source line", l.Source.Line, 3)

	_, err = ParseLinkTxt(filepath.Join(build, "CMakeFiles/stat.dir/link.txt"), opt)
	if !errors.Is(err, ErrArchive) || !errors.Is(err, ErrNotLink) || !strings.HasSuffix(err.Error(), ": not a link command: it creates a static archive") {
		t.Errorf("static library: %v, want ErrArchive, an ErrNotLink", err)
	}
	_, err = ParseLinkTxt(filepath.Join(build, "CMakeFiles/bad.dir/link.txt"), opt)
	if !errors.Is(err, ErrResponseFile) || !strings.Contains(err.Error(), "bad.dir/link.txt:1: ") {
		t.Errorf("missing objects rsp: %v", err)
	}
	_, err = ParseLinkTxt(filepath.Join(build, "CMakeFiles/quote.dir/link.txt"), opt)
	if err == nil || !strings.Contains(err.Error(), "quote.dir/link.txt:1: ") {
		t.Errorf("unterminated quote: %v", err)
	}
	if _, err := ParseLinkTxt(filepath.Join(build, "nothere.txt"), opt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

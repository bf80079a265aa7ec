package elfobj

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestThinHonestCMake: a thin archive as CMake writes one with ar qcT
// (CMAKE_CXX_ARCHIVE_CREATE) into an archive output directory names its
// objects in a sibling directory of the build tree, ../CMakeFiles/...:
// they are read.
func TestThinHonestCMake(t *testing.T) {
	fx := compiled(t)
	testenv.NeedTools(t, "ar")
	build := t.TempDir()
	for _, p := range []string{fx.obj, fx.longObj} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(build, "CMakeFiles/foo.dir/src", filepath.Base(p)), b)
	}
	writeFile(t, filepath.Join(build, "CMakeCache.txt"), []byte("CMAKE_HOME_DIRECTORY:INTERNAL=/src\n"))
	if err := os.MkdirAll(filepath.Join(build, "lib/deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Run where CMake runs it: the target's build directory, the archive
	// named by its path there.
	if err := run(build, "ar", "qcT", "lib/deep/libfoo.a", "CMakeFiles/foo.dir/src/fix.o", "CMakeFiles/foo.dir/src/a_long_member_name_for_gnu.o"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(build, "lib/deep/libfoo.a")
	objs, errs := Open([]string{p}, Options{})
	if len(errs) > 0 {
		t.Fatalf("Open: %q", errTexts(t, errs))
	}
	want := []string{p + "(../../CMakeFiles/foo.dir/src/fix.o)", p + "(../../CMakeFiles/foo.dir/src/a_long_member_name_for_gnu.o)"}
	if !slices.Equal(paths(objs), want) {
		t.Errorf("objects %q, want %q", paths(objs), want)
	}
	// The same archive reached through a symbolic link to its directory.
	link := filepath.Join(t.TempDir(), "lib")
	if err := os.Symlink(filepath.Join(build, "lib/deep"), link); err != nil {
		t.Fatal(err)
	}
	if objs, errs := Open([]string{filepath.Join(link, "libfoo.a")}, Options{}); len(errs) > 0 || len(objs) != 2 {
		t.Errorf("through a link: %d objects, errors %q", len(objs), errTexts(t, errs))
	}
}

// TestThinMemberConfined: a thin member outside the archive's build tree
// is not read, and the error names the archive and the member.
func TestThinMemberConfined(t *testing.T) {
	root := t.TempDir()
	build := filepath.Join(root, "build")
	writeFile(t, filepath.Join(build, "build.ninja"), []byte("# meson\n"))
	writeFile(t, filepath.Join(root, "secret.o"), []byte("not ELF"))
	writeFile(t, filepath.Join(build, "in.o"), []byte("not ELF"))
	for name, target := range map[string]string{"out.o": "../secret.o", "zero.o": "/dev/zero", "up.o": filepath.Join(root, "secret.o")} {
		if err := os.Symlink(target, filepath.Join(build, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(build, "fifo.o"), 0o644); err != nil {
		t.Fatal(err)
	}
	passwd := strings.Repeat("../", strings.Count(build, "/")+1) + "etc/passwd"
	tests := []struct {
		member string
		want   string
	}{
		{passwd, `thin archive member "` + passwd + `" is /etc/passwd, outside the archive's build tree ` + build},
		{"/etc/passwd", `thin archive member "/etc/passwd" is /etc/passwd, outside`},
		{"/dev/zero", `thin archive member "/dev/zero" is /dev/zero, outside`},
		{"../out.o", `thin archive member "../out.o" is ` + filepath.Join(root, "secret.o") + ", outside"},
		{"../up.o", `thin archive member "../up.o" is ` + filepath.Join(root, "secret.o") + ", outside"},
		{"../zero.o", `thin archive member "../zero.o" is /dev/zero, outside`},
		{"../fifo.o", "(../fifo.o): thin archive member: " + build + "/sub/../fifo.o: not a regular file but a FIFO"},
	}
	for _, tc := range tests {
		t.Run(tc.member, func(t *testing.T) {
			// The archive in a subdirectory: its members are still in the
			// build tree above it.
			p := filepath.Join(build, "sub/libthin.a")
			writeFile(t, p, buildThin([]arFile{{"../in.o", []byte("12")}, {tc.member, []byte("12")}}, nil))
			objs, errs := Open([]string{p}, Options{})
			got := errTexts(t, errs)
			if len(objs) != 0 || len(got) != 1 || !strings.HasPrefix(got[0], p) || !strings.Contains(got[0], tc.want) {
				t.Errorf("objects %q, errors %q; want one error with %q", paths(objs), got, tc.want)
			}
		})
	}
	// Without a build directory above it, the tree is the archive's own
	// directory.
	alone := filepath.Join(root, "alone")
	writeFile(t, filepath.Join(alone, "lib/libthin.a"), buildThin([]arFile{{"../sibling.o", []byte("12")}}, nil))
	writeFile(t, filepath.Join(alone, "sibling.o"), []byte("not ELF"))
	_, errs := Open([]string{filepath.Join(alone, "lib/libthin.a")}, Options{})
	if got := errTexts(t, errs); len(got) != 1 || !strings.Contains(got[0], `"../sibling.o" is `+filepath.Join(alone, "sibling.o")+", outside the archive's build tree "+filepath.Join(alone, "lib")) {
		t.Errorf("errors %q, want ../sibling.o refused", got)
	}
}

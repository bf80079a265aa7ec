package elfobj

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// fixtures are ELF files compiled once per test process with the system
// compiler, so that tests read what real toolchains write.
type fixtures struct {
	dir     string
	obj     string // fix.o: defines fix_answer and fix_state
	longObj string // a_long_member_name_for_gnu.o: needs fix_answer
	so      string // libfix.so.1.2: SONAME libfix.so.1, RUNPATH $ORIGIN/../lib
	// uses is libuses.so: NEEDED libfix.so.1 and libc.so.6, RUNPATH $ORIGIN
	uses     string
	objData  []byte
	soData   []byte
	usesData []byte
}

var fix struct {
	once sync.Once
	dir  string // removed by TestMain
	f    *fixtures
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.dir != "" {
		os.RemoveAll(fix.dir)
	}
	os.Exit(code)
}

// compiled returns the compiled fixtures, building them on first use.
func compiled(tb testing.TB) *fixtures {
	tb.Helper()
	testenv.NeedTools(tb, "cc")
	fix.once.Do(func() { fix.f, fix.err = buildFixtures() })
	if fix.err != nil {
		tb.Fatal(fix.err)
	}
	return fix.f
}

// compiledIfAvailable is compiled for fuzz seeds: nil without a compiler.
func compiledIfAvailable() *fixtures {
	if _, err := exec.LookPath("cc"); err != nil {
		return nil
	}
	fix.once.Do(func() { fix.f, fix.err = buildFixtures() })
	return fix.f
}

func buildFixtures() (*fixtures, error) {
	dir, err := os.MkdirTemp("", "elfobj-fixtures-")
	if err != nil {
		return nil, err
	}
	fix.dir = dir
	f := &fixtures{
		dir:     dir,
		obj:     filepath.Join(dir, "fix.o"),
		longObj: filepath.Join(dir, "a_long_member_name_for_gnu.o"),
		so:      filepath.Join(dir, "libfix.so.1.2"),
		uses:    filepath.Join(dir, "libuses.so"),
	}
	src := map[string]string{
		"fix.c":  "int fix_state = 1;\nint fix_answer(void) { return 42 + fix_state; }\n",
		"long.c": "extern int fix_answer(void);\nint long_member_fn(void) { return fix_answer() + 1; }\n",
		"uses.c": "extern int fix_answer(void);\nint uses_fix(void) { return fix_answer() + 1; }\n",
	}
	for name, text := range src {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	cmds := [][]string{
		{"cc", "-c", "-fPIC", "-o", f.obj, "fix.c"},
		{"cc", "-c", "-fPIC", "-o", f.longObj, "long.c"},
		{"cc", "-shared", "-fPIC", "-Wl,-soname,libfix.so.1", "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN/../lib", "-o", f.so, "fix.c"},
		{"cc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN", "-o", f.uses, "uses.c", "-L.", "-l:libfix.so.1.2", "-lc"},
	}
	for _, c := range cmds {
		if err := run(dir, c...); err != nil {
			return nil, err
		}
	}
	if f.objData, err = os.ReadFile(f.obj); err != nil {
		return nil, err
	}
	if f.soData, err = os.ReadFile(f.so); err != nil {
		return nil, err
	}
	if f.usesData, err = os.ReadFile(f.uses); err != nil {
		return nil, err
	}
	return f, nil
}

func run(dir string, args ...string) error {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func paths(objs []*Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Path)
	}
	return out
}

// errTexts checks that every error is an *Error and returns their texts.
func errTexts(t *testing.T, errs []error) []string {
	t.Helper()
	var out []string
	for _, err := range errs {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("error %q (%T) is not an *Error", err, err)
		}
		out = append(out, err.Error())
	}
	return out
}

func hasSymbol(o *Object, name string, defined bool) bool {
	for i := range o.Symbols {
		if o.Symbols[i].Name == name && o.Symbols[i].Defined() == defined {
			return true
		}
	}
	return false
}

// tree lays out a directory the way a build or install tree looks.
func tree(t *testing.T, fx *fixtures) string {
	root := filepath.Join(t.TempDir(), "root")
	writeFile(t, filepath.Join(root, "lib", "libfix.so.1.2"), fx.soData)
	symlink(t, "libfix.so.1.2", filepath.Join(root, "lib", "libfix.so.1"))
	symlink(t, "libfix.so.1", filepath.Join(root, "lib", "libfix.so"))
	writeFile(t, filepath.Join(root, "notes.txt"), []byte("not an ELF file\n"))
	writeFile(t, filepath.Join(root, "fake.whl"), []byte("not a zip\n"))
	writeFile(t, filepath.Join(root, "obj", "fix.o"), fx.objData)
	writeFile(t, filepath.Join(root, "libgo.a"), buildGNU([]arFile{
		{"fix.o", fx.objData}, {"README", []byte("text member\n")},
	}, []arSym{{"fix_answer", 0}}, false))
	writeFile(t, filepath.Join(root, "dist", "pkg-1.0-py3-none-linux_x86_64.whl"), buildZip(t, []zipEntry{
		{name: "pkg/libfix.so.1.2", data: fx.soData},
		{name: "pkg/__init__.py", data: []byte("")},
	}))
	symlink(t, ".", filepath.Join(root, "loop"))
	symlink(t, "lib", filepath.Join(root, "linkdir"))
	symlink(t, "nowhere", filepath.Join(root, "broken"))
	return root
}

func TestOpenDirectory(t *testing.T) {
	fx := compiled(t)
	root := tree(t, fx)
	whl := filepath.Join(root, "dist", "pkg-1.0-py3-none-linux_x86_64.whl")
	want := []string{
		whl + "!pkg/libfix.so.1.2",
		filepath.Join(root, "lib", "libfix.so"), // first of three names for one file
		filepath.Join(root, "libgo.a") + "(fix.o)",
		filepath.Join(root, "obj", "fix.o"),
	}
	for _, workers := range []int{0, 1, 8} {
		objs, errs := Open([]string{root}, Options{Workers: workers})
		// The dangling link is reported, never skipped silently.
		if len(errs) != 1 || !errors.Is(errs[0], ErrDanglingLink) || !strings.Contains(errs[0].Error(), filepath.Join(root, "broken")+": ") {
			t.Fatalf("workers=%d: errors %q, want one for the dangling link %s", workers, errTexts(t, errs), filepath.Join(root, "broken"))
		}
		if got := paths(objs); !reflect.DeepEqual(got, want) {
			t.Fatalf("workers=%d: paths\n got %q\nwant %q", workers, got, want)
		}
	}
	objs, _ := Open([]string{root}, Options{})
	byPath := map[string]*Object{}
	for _, o := range objs {
		byPath[o.Path] = o
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, "lib", "libfix.so.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	so := byPath[want[1]]
	if so.Real != real || so.Dir != filepath.Join(root, "lib") || so.Soname != "libfix.so.1" {
		t.Errorf("lib: Real %q Dir %q Soname %q; want %q %q libfix.so.1", so.Real, so.Dir, so.Soname, real, filepath.Join(root, "lib"))
	}
	if !slices.Equal(so.Runpath, []string{"$ORIGIN/../lib"}) || !hasSymbol(so, "fix_answer", true) {
		t.Errorf("lib: Runpath %q, fix_answer defined %v", so.Runpath, hasSymbol(so, "fix_answer", true))
	}
	m := byPath[want[2]]
	if m.Archive != filepath.Join(root, "libgo.a") || m.Member != "fix.o" || m.Real != "" || !hasSymbol(m, "fix_state", true) {
		t.Errorf("member: Archive %q Member %q Real %q", m.Archive, m.Member, m.Real)
	}
	w := byPath[want[0]]
	if w.Wheel != whl || w.Entry != "pkg/libfix.so.1.2" || w.Dir != whl+"!pkg" {
		t.Errorf("wheel entry: Wheel %q Entry %q Dir %q", w.Wheel, w.Entry, w.Dir)
	}
}

func TestOpenExplicit(t *testing.T) {
	fx := compiled(t)
	root := tree(t, fx)
	so := filepath.Join(root, "lib", "libfix.so.1.2")
	writeFile(t, filepath.Join(root, "trunc.so"), fx.soData[:len(fx.soData)/2])
	tests := []struct {
		name     string
		paths    []string
		want     []string
		wantErrs []string // substrings, in order
	}{
		{
			name:     "non-ELF inputs are errors, the rest is read",
			paths:    []string{filepath.Join(root, "notes.txt"), so, filepath.Join(root, "fake.whl")},
			want:     []string{so},
			wantErrs: []string{"notes.txt: not an ELF file, ar archive or wheel", "fake.whl: not an ELF file, ar archive or wheel"},
		},
		{
			name:     "missing file",
			paths:    []string{filepath.Join(root, "missing.so"), so},
			want:     []string{so},
			wantErrs: []string{"missing.so: stat: no such file or directory"},
		},
		{
			name:     "truncated ELF",
			paths:    []string{filepath.Join(root, "trunc.so")},
			wantErrs: []string{"trunc.so: truncated"},
		},
		{
			name:  "one file under two explicit names",
			paths: []string{so, filepath.Join(root, "lib", "libfix.so.1")},
			want:  []string{filepath.Join(root, "lib", "libfix.so.1")},
		},
		{
			name:  "explicit symlinked directory is walked",
			paths: []string{filepath.Join(root, "linkdir")},
			want:  []string{filepath.Join(root, "linkdir", "libfix.so")},
		},
		{
			name:  "paths are cleaned",
			paths: []string{root + "/lib/../lib//libfix.so.1.2"},
			want:  []string{so},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, errs := Open(tt.paths, Options{})
			if got := paths(objs); !slices.Equal(got, tt.want) {
				t.Errorf("paths\n got %q\nwant %q", got, tt.want)
			}
			got := errTexts(t, errs)
			if len(got) != len(tt.wantErrs) {
				t.Fatalf("errors %q, want %d matching %q", got, len(tt.wantErrs), tt.wantErrs)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.wantErrs[i]) {
					t.Errorf("error %d: %q does not contain %q", i, got[i], tt.wantErrs[i])
				}
			}
		})
	}
}

func TestOpenTruncatedELF(t *testing.T) {
	fx := compiled(t)
	dir := t.TempDir()
	for _, n := range []int{4, 20, 63, 64, 1000, len(fx.soData) / 2, len(fx.soData) - 1} {
		p := filepath.Join(dir, fmt.Sprintf("cut%d.so", n))
		writeFile(t, p, fx.soData[:n])
		objs, errs := Open([]string{p}, Options{})
		if len(objs) != 0 || len(errs) != 1 {
			t.Errorf("cut at %d: %d objects, errors %q; want one error", n, len(objs), errTexts(t, errs))
			continue
		}
		if msg := errs[0].Error(); !strings.HasPrefix(msg, p+": ") ||
			!(strings.Contains(msg, "truncated") || strings.Contains(msg, "malformed")) {
			t.Errorf("cut at %d: error %q does not say the file is truncated or malformed", n, msg)
		}
	}
}

func TestOpenFile(t *testing.T) {
	fx := compiled(t)
	root := tree(t, fx)
	other := filepath.Join(root, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, "../lib/libfix.so.1.2", filepath.Join(other, "libfix.so.1"))
	real, err := filepath.EvalSymlinks(filepath.Join(root, "lib", "libfix.so.1.2"))
	if err != nil {
		t.Fatal(err)
	}
	// $ORIGIN is the directory of the name opened, not of the link target.
	o, err := OpenFile(filepath.Join(other, "libfix.so.1"), "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Dir != other || o.Real != real || o.Path != filepath.Join(other, "libfix.so.1") {
		t.Errorf("Dir %q Real %q Path %q; want %q %q", o.Dir, o.Real, o.Path, other, real)
	}
	for _, name := range []string{"notes.txt", "missing", "lib"} {
		if _, err := OpenFile(filepath.Join(root, name), "", Options{}); err == nil {
			t.Errorf("OpenFile(%s): no error", name)
		} else if !strings.HasPrefix(err.Error(), filepath.Join(root, name)+": ") {
			t.Errorf("OpenFile(%s): error %q does not start with the path", name, err)
		}
	}
}

func TestParseFixtures(t *testing.T) {
	fx := compiled(t)
	o, err := Parse("fix.o", "", bytes.NewReader(fx.objData), int64(len(fx.objData)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if o.TypeName() != "REL" || !hasSymbol(o, "fix_answer", true) || !hasSymbol(o, "fix_state", true) {
		t.Errorf("fix.o: type %s, symbols %v", o.TypeName(), o.Symbols)
	}
}

// FuzzParse feeds Parse mutated ELF images: it must return an error, never
// panic or allocate without bound.
func FuzzParse(f *testing.F) {
	if fx := compiledIfAvailable(); fx != nil {
		f.Add(fx.soData)
		f.Add(fx.objData)
	}
	addMalformedSeeds(f)
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/usr/lib/x86_64-linux-gnu/libpthreadpool.so.0"); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF"))
	f.Add([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// With and without initializers (their decoder reads the symbol
		// tables an entry at a time), each with the relocation flags.
		if _, err := Parse("fuzz.so", ".", bytes.NewReader(data), int64(len(data)), Options{References: true}); err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Path != "fuzz.so" {
				t.Fatalf("error %q is not an *Error naming the input", err)
			}
		}
		o, err := Parse("fuzz.so", ".", bytes.NewReader(data), int64(len(data)), Options{Initializers: true, References: true})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Path != "fuzz.so" {
				t.Fatalf("error %q is not an *Error naming the input", err)
			}
			return
		}
		if o.Path != "fuzz.so" {
			t.Fatalf("Path %q", o.Path)
		}
	})
}

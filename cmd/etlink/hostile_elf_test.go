package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// elfShape is a structural impossibility patched into a library gcc
// builds (libuses.so: NEEDED libfix.so.1 and libc.so.6, RUNPATH
// $ORIGIN); want is what the error must say. elfobj's malformed_test.go
// has every shape and what glibc's loader does with each.
type elfShape struct {
	name  string
	patch func(t *testing.T, d []byte, f *elf.File)
	want  string
}

var elfShapes = []elfShape{
	{"DT_NEEDED outside .dynstr", func(t *testing.T, d []byte, f *elf.File) {
		setDynEntry(t, d, f, elf.DT_NEEDED, -1, 0x4000)
	}, "DT_NEEDED (dynamic entry 0) names offset 0x4000, outside .dynstr"},
	{".dynstr not ending in NUL", func(t *testing.T, d []byte, f *elf.File) {
		s := f.Section(".dynstr")
		d[s.Offset+s.Size-1] = 'x'
	}, "does not end in a NUL byte"},
	{"no DT_NULL", func(t *testing.T, d []byte, f *elf.File) {
		for setDynEntry(t, d, f, elf.DT_NULL, elf.DT_DEBUG, 0) {
		}
	}, "has no DT_NULL entry"},
	{"DT_STRTAB in no PT_LOAD", func(t *testing.T, d []byte, f *elf.File) {
		setDynEntry(t, d, f, elf.DT_STRTAB, -1, 0x10000000)
	}, "DT_STRTAB (address 0x10000000"},
	{"PT_DYNAMIC past the end of the file", func(t *testing.T, d []byte, f *elf.File) {
		phoff := f.ByteOrder.Uint64(d[32:])
		for i, p := range f.Progs {
			if p.Type == elf.PT_DYNAMIC {
				f.ByteOrder.PutUint64(d[phoff+uint64(i)*56+8:], uint64(len(d))+0x1000) // p_offset
			}
		}
	}, "(PT_DYNAMIC, offset 0x"},
}

// setDynEntry sets the first dynamic entry tagged tag to newTag (-1: tag
// unchanged) and val; false when there is none (DT_NULL alone may run out).
func setDynEntry(t *testing.T, d []byte, f *elf.File, tag, newTag elf.DynTag, val uint64) bool {
	t.Helper()
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	for off := ds.Offset; off+16 <= ds.Offset+ds.Size; off += 16 {
		if elf.DynTag(f.ByteOrder.Uint64(d[off:])) == tag {
			if newTag >= 0 {
				f.ByteOrder.PutUint64(d[off:], uint64(newTag))
			}
			f.ByteOrder.PutUint64(d[off+8:], val)
			return true
		}
	}
	if tag != elf.DT_NULL {
		t.Fatalf("no %s entry", tag)
	}
	return false
}

// buildELFShapeLibs compiles libfix.so.1, libuses.so (which needs it) and
// libgood.so (RUNPATH /home/ci/build/lib: a finding check reports) in dir.
func buildELFShapeLibs(t *testing.T, dir string) {
	t.Helper()
	writeTree(t, dir, map[string]string{
		"fix.c":  "int fix_state = 1;\nint fix_answer(void) { return 42 + fix_state; }\n",
		"uses.c": "extern int fix_answer(void);\nint uses_fix(void) { return fix_answer() + 1; }\n",
	})
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-Wl,-soname,libfix.so.1", "-o", "libfix.so.1", "fix.c"},
		{"-shared", "-fPIC", "-Wl,--no-as-needed", "-Wl,--enable-new-dtags", "-Wl,-rpath,$ORIGIN", "-o", "libuses.so", "uses.c", "-L.", "-l:libfix.so.1", "-lc"},
		{"-shared", "-fPIC", "-Wl,-soname,libgood.so", "-Wl,--enable-new-dtags", "-Wl,-rpath,/home/ci/build/lib", "-o", "libgood.so", "fix.c"},
	} {
		cmd := exec.Command("gcc", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// TestHostileELF runs scan, tree and check on a directory holding a
// library patched into each shape and a good library: exit 2, the error
// names the bad file and says what is wrong with it, the good library is
// still reported, within 5 s and 1 GB, and the inputs are left as they
// were.
func TestHostileELF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on malformed libraries")
	}
	testenv.NeedTools(t, "gcc")
	src := t.TempDir()
	buildELFShapeLibs(t, src)
	uses, err := os.ReadFile(filepath.Join(src, "libuses.so"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(src, "libgood.so"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range elfShapes {
		t.Run(s.name, func(t *testing.T) {
			data := bytes.Clone(uses)
			f, err := elf.NewFile(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if f.Class != elf.ELFCLASS64 {
				t.Fatalf("gcc builds %s; the patches are for 64-bit files", f.Class)
			}
			s.patch(t, data, f)
			dir := t.TempDir()
			bad, goodPath := filepath.Join(dir, "libbad.so"), filepath.Join(dir, "libgood.so")
			for p, b := range map[string][]byte{bad: data, goodPath: good} {
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := hashTree(t, dir)
			for _, cmd := range []string{"scan", "tree", "check"} {
				r := runHostile(t, cmd, dir, "-q", "--format", "json")
				if r.elapsed > 5*time.Second {
					t.Errorf("%s took %v", cmd, r.elapsed)
				}
				if r.maxRSS > 1<<30 {
					t.Errorf("%s: peak RSS %d MB", cmd, r.maxRSS>>20)
				}
				if r.code != exitError || !strings.Contains(r.stderr, bad+": ") || !strings.Contains(r.stderr, s.want) {
					t.Errorf("%s: exit %d, stderr %q; want exit 2 and an error naming %s that says %q", cmd, r.code, r.stderr, bad, s.want)
				}
				if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "fatal error") {
					t.Errorf("%s crashed: %s", cmd, r.stderr)
				}
				// The good library is an object scan lists, a tree's root,
				// the file of check's RUNPATH finding.
				if !strings.Contains(r.stdout, `"`+goodPath+`"`) {
					t.Errorf("%s: the good library beside it is not reported: %s", cmd, r.stdout)
				}
			}
			if after := hashTree(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("the inputs changed")
			}
		})
	}
}

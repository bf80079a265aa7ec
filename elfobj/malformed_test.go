package elfobj

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// malformedShape is one structural impossibility patched into a library
// compiled by the system's compiler: base picks the fixture, patch
// changes its bytes (f is the fixture as debug/elf reads it), and the
// error must contain want. What glibc's ld.so (2.36, x86_64) does with
// each was found by building the file and running
// LD_BIND_NOW=1 /lib64/ld-linux-x86-64.so.2 --list ./file and
// python3 -c 'import ctypes; ctypes.CDLL("./file")' beside libfix.so.1;
// ld's, for objects, by linking them with cc -shared.
type malformedShape struct {
	name  string
	base  func(fx *fixtures) []byte
	patch func(t testing.TB, data []byte, f *elf.File)
	want  string
}

func usesLib(fx *fixtures) []byte { return fx.usesData }
func fixLib(fx *fixtures) []byte  { return fx.soData }
func fixObj(fx *fixtures) []byte  { return fx.objData }

// versionedLib is testdata's libversioned.so.1 (x86_64), built with a
// version script (testdata/build.sh): it defines versions.
func versionedLib(*fixtures) []byte {
	data, err := os.ReadFile("../testdata/elf/x86_64/libversioned.so.1")
	if err != nil {
		panic(err)
	}
	return data
}

var malformedShapes = []malformedShape{
	// ld.so reads the name at DT_STRTAB+0x4000, wherever that lands
	// ("_array_entry", in .dynsym's neighbours), and fails: "_array_entry:
	// cannot open shared object file"; so does dlopen.
	{"DT_NEEDED outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_NEEDED, -1, 0x4000)
	}, "DT_NEEDED (dynamic entry 0) names offset 0x4000, outside .dynstr"},
	// Loaded by path, nothing reads a soname: ld.so and dlopen load it;
	// the next dlopen of another name compares that name with whatever
	// the offset reaches (_dl_name_match_p).
	{"DT_SONAME outside .dynstr", fixLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_SONAME, -1, 0x4000)
	}, "DT_SONAME (dynamic entry 0) names offset 0x4000, outside .dynstr"},
	// The search path is bytes of another section: "libfix.so.1: cannot
	// open shared object file", by ld.so and dlopen.
	{"DT_RUNPATH outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_RUNPATH, -1, 0x4000)
	}, "DT_RUNPATH (dynamic entry 2) names offset 0x4000, outside .dynstr"},
	{"DT_RPATH outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_RUNPATH, elf.DT_RPATH, 0x4000)
	}, "DT_RPATH (dynamic entry 2) names offset 0x4000, outside .dynstr"},
	// The last string, RUNPATH's "$ORIGIN", runs on into .gnu.version:
	// "libfix.so.1: cannot open shared object file" (ld.so, dlopen).
	{".dynstr not ending in NUL", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		s := f.Section(".dynstr")
		d[s.Offset+s.Size-1] = 'x'
	}, "string table .dynstr ("},
	// ld.so walks on past the section, into .got, to the first zero tag:
	// it loads here only because the words it reads there happen to be
	// tags it ignores.
	{"no DT_NULL", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		for setDyn(t, d, f, elf.DT_NULL, elf.DT_DEBUG, 0) {
		}
	}, "has no DT_NULL entry"},
	// ld.so and dlopen read names at an unmapped address: SIGSEGV.
	{"DT_STRTAB in no PT_LOAD", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_STRTAB, -1, 0x10000000)
	}, "DT_STRTAB (address 0x10000000, DT_STRSZ 0x"},
	// Every name is read one byte on: "ibfix.so.1: cannot open shared
	// object file" (ld.so, dlopen), where a reader of the section headers
	// sees libfix.so.1.
	{"DT_STRTAB not .dynstr's address", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_STRTAB, -1, f.Section(".dynstr").Addr+1)
	}, "is not the address of .dynstr"},
	// ld.so and dlopen: SIGSEGV (names read from address 0 plus offset).
	{"no DT_STRTAB", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setDyn(t, d, f, elf.DT_STRTAB, elf.DT_DEBUG, 0)
	}, "has DT_NEEDED entries but no DT_STRTAB"},
	// ld.so reads the dynamic section at PT_DYNAMIC's address, not its
	// offset, and loads this one; its contents are still not in the file
	// its header describes (readelf: "the dynamic segment offset + size
	// exceeds the size of the file").
	{"PT_DYNAMIC past the end of the file", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setProg(t, d, f, elf.PT_DYNAMIC, 8, uint64(len(d))+0x1000) // p_offset
	}, "(PT_DYNAMIC, offset 0x"},
	// ld.so and dlopen read the dynamic section there: SIGSEGV.
	{"PT_DYNAMIC in no PT_LOAD", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setProg(t, d, f, elf.PT_DYNAMIC, 16, 0x40000000) // p_vaddr
	}, "(PT_DYNAMIC, address 0x40000000, size 0x"},
	// ld.so: "failed to map segment from shared object"; dlopen maps it
	// (a page past the end of the file faults when touched).
	{"PT_LOAD past the end of the file", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setProg(t, d, f, elf.PT_LOAD, 32, uint64(len(d))+1) // the first PT_LOAD's p_filesz
	}, "(PT_LOAD, offset 0x0, size 0x"},
	// ld.so lists it; dlopen's first lookup in the table (LD_BIND_NOW
	// binds at once): SIGSEGV.
	{"dynamic symbol outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		setSymName(t, d, f, elf.SHT_DYNSYM, 1, 0x7fffff00)
	}, "dynamic symbol 1 names offset 0x7fffff00, outside .dynstr"},
	// ld.so and dlopen: "libc.so.6: version `_array_entry' not found
	// (required by ./libuses.so)".
	{"version need outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		vn := f.SectionByType(elf.SHT_GNU_VERNEED)
		aux := f.ByteOrder.Uint32(d[vn.Offset+8:])
		f.ByteOrder.PutUint32(d[vn.Offset+uint64(aux)+8:], 0x4000) // vna_name
	}, "version need 2 names offset 0x4000, outside .dynstr"},
	// ld.so: "Inconsistency detected by ld.so: dl-version.c: 204:
	// _dl_check_map_versions: Assertion `needed != NULL' failed!", and
	// dlopen takes the process down with it (exit 127).
	{"version need's library outside .dynstr", usesLib, func(t testing.TB, d []byte, f *elf.File) {
		vn := f.SectionByType(elf.SHT_GNU_VERNEED)
		f.ByteOrder.PutUint32(d[vn.Offset+4:], 0x4000) // vn_file
	}, "the library of version need 2 names offset 0x4000, outside .dynstr"},
	// The file's own version (index 1) is not looked up: ld.so and dlopen
	// load it.
	{"version definition outside .dynstr", versionedLib, func(t testing.TB, d []byte, f *elf.File) {
		vd := f.SectionByType(elf.SHT_GNU_VERDEF)
		aux := f.ByteOrder.Uint32(d[vd.Offset+12:])
		f.ByteOrder.PutUint32(d[vd.Offset+uint64(aux):], 0x4000) // vda_name
	}, "version definition 1 names offset 0x4000, outside .dynstr"},
	// ld: "invalid string offset 2147483392 >= 50 for section .strtab".
	{"object symbol outside .strtab", fixObj, func(t testing.TB, d []byte, f *elf.File) {
		setSymName(t, d, f, elf.SHT_SYMTAB, -1, 0x7fffff00)
	}, "names offset 0x7fffff00, outside .strtab"},
	// ld: "error adding symbols" (nm prints the last names as "(null)").
	{".strtab not ending in NUL", fixObj, func(t testing.TB, d []byte, f *elf.File) {
		s := f.Section(".strtab")
		d[s.Offset+s.Size-1] = 'x'
	}, "string table .strtab ("},
}

// setDyn sets the first dynamic entry tagged tag to newTag (-1: tag
// unchanged) and val, and reports whether there was one (DT_NULL alone may
// be missing: its loop ends so).
func setDyn(t testing.TB, d []byte, f *elf.File, tag elf.DynTag, newTag elf.DynTag, val uint64) bool {
	t.Helper()
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	for off := ds.Offset; off+16 <= ds.Offset+ds.Size; off += 16 {
		if elf.DynTag(f.ByteOrder.Uint64(d[off:])) != tag {
			continue
		}
		if newTag >= 0 {
			f.ByteOrder.PutUint64(d[off:], uint64(newTag))
		}
		f.ByteOrder.PutUint64(d[off+8:], val)
		return true
	}
	if tag != elf.DT_NULL {
		t.Fatalf("no %s entry", tag)
	}
	return false
}

// setProg sets the 64-bit field at off in the first program header of
// type typ.
func setProg(t testing.TB, d []byte, f *elf.File, typ elf.ProgType, off int, val uint64) {
	t.Helper()
	phoff := f.ByteOrder.Uint64(d[32:])
	for i, p := range f.Progs {
		if p.Type == typ {
			f.ByteOrder.PutUint64(d[phoff+uint64(i)*56+uint64(off):], val)
			return
		}
	}
	t.Fatalf("no %s", typ)
}

// setSymName sets the name offset of symbol i (-1: the last) of the
// table of type typ.
func setSymName(t testing.TB, d []byte, f *elf.File, typ elf.SectionType, i int, name uint32) {
	t.Helper()
	s := f.SectionByType(typ)
	if s == nil {
		t.Fatalf("no %s", typ)
	}
	if i < 0 {
		i = int(s.Size/elf.Sym64Size) - 1
	}
	f.ByteOrder.PutUint32(d[s.Offset+uint64(i)*elf.Sym64Size:], name)
}

// malformed returns the shape's file: its fixture's bytes, patched.
func (m malformedShape) malformed(t testing.TB, fx *fixtures) []byte {
	t.Helper()
	data := bytes.Clone(m.base(fx))
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if f.Class != elf.ELFCLASS64 {
		t.Fatalf("the compiler builds %s; the patches are for 64-bit files", f.Class)
	}
	m.patch(t, data, f)
	return data
}

// TestMalformedImages: each structural impossibility is an *Error naming
// the file and saying what is wrong, the same from the dynamic reader and
// from debug/elf's, with or without the options that change what is read
// (Only looks names up where they lie; Initializers and References read
// more tables), and through OpenFile and Open from disk; the fixture it
// was patched from reads clean.
func TestMalformedImages(t *testing.T) {
	fx := compiled(t)
	for _, base := range [][]byte{fx.usesData, fx.soData, fx.objData} {
		if _, err := Parse("base", "", bytes.NewReader(base), int64(len(base)), Options{}); err != nil {
			t.Fatalf("the unpatched fixture: %v", err)
		}
	}
	only := &symset.Set{}
	only.Add("uses_fix")
	dir := t.TempDir()
	for _, m := range malformedShapes {
		t.Run(m.name, func(t *testing.T) {
			data := m.malformed(t, fx)
			var first string
			for _, opt := range []Options{{}, {Only: only}, {Initializers: true, References: true}} {
				for _, fast := range []bool{true, false} {
					_, err := parse("evil.so", "", bytes.NewReader(data), int64(len(data)), opt, fast)
					var e *Error
					if !errors.As(err, &e) || e.Path != "evil.so" || !strings.Contains(err.Error(), m.want) {
						t.Fatalf("fast %v, options %+v: error %v, want an *Error for evil.so containing %q", fast, opt, err, m.want)
					}
					if first == "" {
						first = err.Error()
					} else if err.Error() != first {
						t.Errorf("fast %v, options %+v: error %q, another read said %q", fast, opt, err, first)
					}
				}
			}
			p := filepath.Join(dir, strings.ReplaceAll(m.name, " ", "_"))
			writeFile(t, p, data)
			if _, err := OpenFile(p, "", Options{}); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
				t.Errorf("OpenFile: error %v, want one naming %s", err, p)
			}
			objs, errs := Open([]string{p, fx.so}, Options{})
			if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), p+": ") || len(objs) != 1 || objs[0].Path != fx.so {
				t.Errorf("Open: objects %v, errors %v; want %s read and one error naming %s", paths(objs), errs, fx.so, p)
			}
		})
	}
}

// TestRealFilesReadClean: the checks pass the files real toolchains
// write: the system's C and C++ runtimes, the compiled fixtures, and the
// debug file objcopy splits from one (its sections NOBITS, its segments'
// file sizes zero).
func TestRealFilesReadClean(t *testing.T) {
	fx := compiled(t)
	testenv.NeedTools(t, "objcopy")
	debug := filepath.Join(t.TempDir(), "libuses.debug")
	if out, err := exec.Command("objcopy", "--only-keep-debug", fx.uses, debug).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, out)
	}
	files := []string{fx.uses, fx.so, fx.obj, debug}
	for _, lib := range []string{"libc.so.6", "libstdc++.so.6", "libm.so.6"} {
		p := filepath.Join(systemLibDir, lib)
		testenv.NeedFiles(t, p)
		files = append(files, p)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, fast := range []bool{true, false} {
			o, err := parse(p, "", bytes.NewReader(data), int64(len(data)), Options{}, fast)
			if err != nil {
				t.Errorf("fast %v: %v", fast, err)
				continue
			}
			if p != debug && o.Type != elf.ET_REL && len(o.Symbols) == 0 {
				t.Errorf("%s (fast %v): no dynamic symbols", p, fast)
			}
		}
	}
}

// addMalformedSeeds seeds a fuzz target with each malformed shape, when
// there is a compiler to build their fixtures.
func addMalformedSeeds(f *testing.F) {
	fx := compiledIfAvailable()
	if fx == nil {
		return
	}
	for _, m := range malformedShapes {
		f.Add(m.malformed(f, fx))
	}
}

package elfobj

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// systemLibs are the real libraries the dynamic reader must read exactly as
// debug/elf does: torch's, the third-party code the e2e wheel grafts, and a
// large versioned C++ runtime.
var systemLibs = []string{"libtorch", "libc10", "libpthreadpool", "libcpuinfo", "libXNNPACK", "libprotobuf", "libstdc++"}

const systemLibDir = "/usr/lib/x86_64-linux-gnu"

// elfFixtures lists the ELF files under testdata, found by magic.
func elfFixtures(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, 4)
		if n, _ := f.ReadAt(head, 0); IsELF(head[:n]) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no ELF fixtures under testdata")
	}
	return files
}

// systemLibFiles lists the real files of systemLibs, each once.
func systemLibFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	seen := map[string]bool{}
	for _, prefix := range systemLibs {
		matches, _ := filepath.Glob(filepath.Join(systemLibDir, prefix+"*.so*"))
		if len(matches) == 0 {
			testenv.Missing(t, "%s/%s*.so*", systemLibDir, prefix)
			continue
		}
		for _, m := range matches {
			real, err := filepath.EvalSymlinks(m)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			files = append(files, real)
		}
	}
	return files
}

// parsed is one file read by the dynamic reader from the file and from
// memory (as wheel entries are read).
type parsed struct {
	file, mem       *Object
	fileErr, memErr error
}

func parseFast(t *testing.T, path string) parsed {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p parsed
	p.file, p.fileErr = parseFile(t, path, Options{}, true)
	p.mem, p.memErr = parse(path, filepath.Dir(path), bytes.NewReader(data), int64(len(data)), Options{}, true)
	return p
}

// parseSlow reads path through debug/elf, the reference.
func parseSlow(t *testing.T, path string) (*Object, error) {
	t.Helper()
	return parseFile(t, path, Options{}, false)
}

// parseFile parses the file at path as Parse would read it from disk (fast)
// or through debug/elf alone.
func parseFile(t *testing.T, path string, opt Options, fast bool) (*Object, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return parse(path, filepath.Dir(path), f, fi.Size(), opt, fast)
}

// sameObject reports how got differs from want, or "" when they deep-equal.
func sameObject(want, got *Object, wantErr, gotErr error) string {
	if fmt.Sprint(wantErr) != fmt.Sprint(gotErr) {
		return fmt.Sprintf("error %v, want %v", gotErr, wantErr)
	}
	if reflect.DeepEqual(want, got) {
		return ""
	}
	if want == nil || got == nil {
		return fmt.Sprintf("object %v, want %v", got, want)
	}
	if len(want.Symbols) != len(got.Symbols) {
		return fmt.Sprintf("%d symbols, want %d", len(got.Symbols), len(want.Symbols))
	}
	for i := range want.Symbols {
		if !reflect.DeepEqual(want.Symbols[i], got.Symbols[i]) {
			return fmt.Sprintf("symbol %d: %+v, want %+v", i, got.Symbols[i], want.Symbols[i])
		}
	}
	w, g := *want, *got
	w.Symbols, g.Symbols = nil, nil
	return fmt.Sprintf("object\n %#v\nwant\n %#v", g, w)
}

// TestDynsymMatchesDebugELF holds the dynamic reader to debug/elf's answer
// on every ELF fixture and on real, large, versioned libraries. Every file is
// read before any is compared, so an Object that kept a reference into the
// reader's reused buffers would show.
func TestDynsymMatchesDebugELF(t *testing.T) {
	files := elfFixtures(t)
	sys := systemLibFiles(t)
	all := append(files, sys...)
	fast := make([]parsed, len(all))
	for i, path := range all {
		fast[i] = parseFast(t, path)
	}
	for i, path := range all {
		t.Run(strings.TrimLeft(strings.TrimPrefix(path, "../"), "/"), func(t *testing.T) {
			want, wantErr := parseSlow(t, path)
			if d := sameObject(want, fast[i].file, wantErr, fast[i].fileErr); d != "" {
				t.Errorf("from the file: %s", d)
			}
			if d := sameObject(want, fast[i].mem, wantErr, fast[i].memErr); d != "" {
				t.Errorf("from memory: %s", d)
			}
		})
	}
	// The comparison proves nothing if the reader declined the real
	// libraries and left them to debug/elf.
	for _, path := range sys {
		if !dynsymReads(t, path) {
			t.Errorf("%s: the dynamic reader declined it", path)
		}
	}
}

// dynsymReads reports whether the dynamic reader reads path itself.
func dynsymReads(t *testing.T, path string) bool {
	t.Helper()
	ef, src, done, err := sourceOf(t, path)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ok, err := readDynsym(ef, src, &Object{}, Options{}, "")
	return ok && err == nil
}

// sourceOf opens path as the dynamic reader's tests read it: debug/elf's
// File and a section source; done closes both. err is elf.NewFile's.
func sourceOf(t *testing.T, path string) (ef *elf.File, src *sectionSource, done func(), err error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if ef, err = elf.NewFile(f); err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	fi, _ := f.Stat()
	src = newSource(f, fi.Size())
	return ef, src, func() { src.close(); f.Close() }, nil
}

// TestDynsymDeclines checks that what debug/elf reads differently from the
// plain bytes (compressed or SHT_NOBITS tables) or rejects (tables of the
// wrong size, bad version records) goes to debug/elf, whose error is kept.
func TestDynsymDeclines(t *testing.T) {
	path := filepath.Join("..", "testdata", "elf", "x86_64", "libversioned.so.1")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Section header fields, little-endian ELF64: sh_type at 4, sh_flags at
	// 8, sh_size at 32.
	shoff := int(ef.ByteOrder.Uint64(data[40:]))
	header := func(typ elf.SectionType) int {
		for i, s := range ef.Sections {
			if s.Type == typ {
				return shoff + i*64
			}
		}
		t.Fatalf("no %v section", typ)
		return 0
	}
	cases := []struct {
		name string
		edit func(b []byte)
	}{
		{"dynstr NOBITS", func(b []byte) {
			link := ef.SectionByType(elf.SHT_DYNSYM).Link
			ef.ByteOrder.PutUint32(b[shoff+int(link)*64+4:], uint32(elf.SHT_NOBITS))
		}},
		{"versym compressed", func(b []byte) {
			ef.ByteOrder.PutUint64(b[header(elf.SHT_GNU_VERSYM)+8:], uint64(elf.SHF_COMPRESSED))
		}},
		{"dynsym compressed", func(b []byte) {
			ef.ByteOrder.PutUint64(b[header(elf.SHT_DYNSYM)+8:], uint64(elf.SHF_COMPRESSED))
		}},
		{"dynsym odd size", func(b []byte) {
			h := header(elf.SHT_DYNSYM) + 32
			ef.ByteOrder.PutUint64(b[h:], ef.ByteOrder.Uint64(b[h:])-1)
		}},
		{"dynamic odd size", func(b []byte) {
			h := header(elf.SHT_DYNAMIC) + 32
			ef.ByteOrder.PutUint64(b[h:], ef.ByteOrder.Uint64(b[h:])-1)
		}},
		{"dynsym bad link", func(b []byte) { ef.ByteOrder.PutUint32(b[header(elf.SHT_DYNSYM)+40:], 0) }},
		{"verdef version 2", func(b []byte) {
			off := ef.SectionByType(elf.SHT_GNU_VERDEF).Offset
			ef.ByteOrder.PutUint16(b[off:], 2)
		}},
		{"verneed version 2", func(b []byte) {
			off := ef.SectionByType(elf.SHT_GNU_VERNEED).Offset
			ef.ByteOrder.PutUint16(b[off:], 2)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := bytes.Clone(data)
			c.edit(b)
			want, wantErr := parse("lib.so", "", bytes.NewReader(b), int64(len(b)), Options{}, false)
			got, gotErr := parse("lib.so", "", bytes.NewReader(b), int64(len(b)), Options{}, true)
			if d := sameObject(want, got, wantErr, gotErr); d != "" {
				t.Error(d)
			}
			f, err := elf.NewFile(bytes.NewReader(b))
			if err != nil {
				t.Skipf("debug/elf rejects the headers: %v", err)
			}
			src := newSource(bytes.NewReader(b), int64(len(b)))
			defer src.close()
			if ok, _ := readDynsym(f, src, &Object{}, Options{}, ""); ok {
				t.Errorf("the dynamic reader read it; it should leave it to debug/elf (which says %v)", wantErr)
			}
		})
	}
}

// addELFSeeds seeds a fuzz target with the small ELF fixtures, whole.
func addELFSeeds(f *testing.F) {
	for _, dir := range []string{"elf/x86_64", "elf/aarch64", "broken"} {
		paths, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 && IsELF(b) {
				f.Add(b)
			}
		}
	}
}

// FuzzDynsym: the dynamic reader never panics, and on any input gives what
// debug/elf gives: the same Object or the same error. Run it with
// -fuzzminimizetime 1s: the seeds are whole ELF files, and minimizing one at
// the default minute per input stalls a short run.
func FuzzDynsym(f *testing.F) {
	addELFSeeds(f)
	addMalformedSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := parse("fuzz.so", "", bytes.NewReader(data), int64(len(data)), Options{}, false)
		got, gotErr := parse("fuzz.so", "", bytes.NewReader(data), int64(len(data)), Options{}, true)
		if d := sameObject(want, got, wantErr, gotErr); d != "" {
			t.Error(d)
		}
		if gotErr != nil && strings.Contains(gotErr.Error(), "panicked") && !strings.Contains(fmt.Sprint(wantErr), "panicked") {
			t.Errorf("the dynamic reader panicked: %v", gotErr)
		}
		if wantErr == nil {
			only := someNames(want, true)
			got, err := parse("fuzz.so", "", bytes.NewReader(data), int64(len(data)), Options{Only: only}, true)
			if d := onlyDiff(want, only, got, err); d != "" {
				t.Errorf("with Options.Only: %s", d)
			}
			opt := Options{Only: only, OnlyDefs: otherNames(want)}
			got, err = parse("fuzz.so", "", bytes.NewReader(data), int64(len(data)), opt, true)
			if d := keptDiff(want, opt, got, err); d != "" {
				t.Errorf("with Options.OnlyDefs: %s", d)
			}
			// Looked up in a hash table the input may have garbled, the
			// names find what ld.so would: never a symbol the table does
			// not hold, nor any other part of the Object changed.
			only = someNames(want, false)
			got, err = parse("fuzz.so", "", bytes.NewReader(data), int64(len(data)), Options{Only: only}, true)
			if err == nil {
				key := func(s Symbol) string { // versions compared by value
					v := s
					v.SymVersion = nil
					return fmt.Sprintf("%+v %s %v %s", v, s.Version(), s.Hidden(), s.Library())
				}
				kept := map[string]int{}
				for _, s := range want.Symbols {
					if only.Has(s.Name) {
						kept[key(s)]++
					}
				}
				for _, s := range got.Symbols {
					if kept[key(s)]--; kept[key(s)] < 0 {
						t.Errorf("looked up: kept %v, which the table does not hold", s)
					}
				}
				g, w := *got, *want
				g.Symbols, w.Symbols, g.Partial = nil, nil, false
				if !reflect.DeepEqual(g, w) {
					t.Errorf("looked up: the rest of the object differs:\n %#v\nwant\n %#v", g, w)
				}
			}
		}
	})
}

// TestOnlyKeepsTheNamesAskedFor holds Options.Only to its contract on every
// ELF fixture and the large system libraries, through the dynamic reader and
// through debug/elf.
func TestOnlyKeepsTheNamesAskedFor(t *testing.T) {
	for _, path := range append(elfFixtures(t), systemLibFiles(t)...) {
		t.Run(strings.TrimLeft(strings.TrimPrefix(path, "../"), "/"), func(t *testing.T) {
			full, err := parseSlow(t, path)
			if err != nil {
				return // errors are TestDynsymMatchesDebugELF's
			}
			for _, prefix := range []bool{true, false} {
				only := someNames(full, prefix)
				for _, fast := range []bool{true, false} {
					got, err := parseFile(t, path, Options{Only: only}, fast)
					if d := onlyDiff(full, only, got, err); d != "" {
						t.Errorf("fast=%v, prefix=%v: %s", fast, prefix, d)
					}
					// Definitions only, of names defined and undefined.
					opt := Options{Only: only, OnlyDefs: otherNames(full)}
					got, err = parseFile(t, path, opt, fast)
					if d := keptDiff(full, opt, got, err); d != "" {
						t.Errorf("OnlyDefs, fast=%v, prefix=%v: %s", fast, prefix, d)
					}
				}
			}
		})
	}
}

// otherNames is every third name of o's symbols from the second: none of
// someNames' (where names do not repeat).
func otherNames(o *Object) *symset.Set {
	names := &symset.Set{}
	for i := 1; i < len(o.Symbols); i += 3 {
		names.Add(o.Symbols[i].Name)
	}
	return names
}

// someNames is every third name of o's symbols, and with prefix a prefix
// (which makes the reader test every symbol rather than look names up).
func someNames(o *Object, prefix bool) *symset.Set {
	only := &symset.Set{}
	if prefix {
		only.AddPrefix("_ZNSt")
	}
	for i := 0; i < len(o.Symbols); i += 3 {
		only.Add(o.Symbols[i].Name)
	}
	return only
}

// onlyDiff says how got, read with Options{Only: only}, differs from full
// filtered by only: the same symbols in the same order, the rest of the
// Object the same, and Partial set.
func onlyDiff(full *Object, only *symset.Set, got *Object, err error) string {
	return keptDiff(full, Options{Only: only}, got, err)
}

// keptDiff is onlyDiff for any Options: got must hold the symbols of full
// that opt keeps.
func keptDiff(full *Object, opt Options, got *Object, err error) string {
	if err != nil {
		return fmt.Sprintf("error %v; the full read had none", err)
	}
	var want []Symbol
	for _, s := range full.Symbols {
		if opt.keeps(s.Name, s.Defined(), opt.initName(full.Path)) {
			want = append(want, s)
		}
	}
	if !got.Partial {
		return "not marked partial"
	}
	if !reflect.DeepEqual(got.Symbols, want) && len(got.Symbols)+len(want) > 0 {
		return fmt.Sprintf("kept %d symbols %v, want %d %v", len(got.Symbols), got.Symbols, len(want), want)
	}
	g, w := *got, *full
	g.Symbols, w.Symbols, g.Partial = nil, nil, false
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("the rest of the object differs:\n %#v\nwant\n %#v", g, w)
	}
	return ""
}

// TestUnterminatedDynstr: a .dynstr whose last byte is not NUL, so that
// its last name runs past its end (which debug/elf read as "", an export
// without a name), is an error naming the file, by either reader, with
// Options.Only (which looks names up where they lie) as without.
func TestUnterminatedDynstr(t *testing.T) {
	data, f := versionedFixture(t)
	dynstr := f.Section(".dynstr")
	if dynstr == nil {
		t.Fatal("no .dynstr")
	}
	for i := dynstr.Size - 24; i < dynstr.Size; i++ {
		data[dynstr.Offset+i] = 'x'
	}
	only := &symset.Set{}
	only.Add("")
	want := fmt.Sprintf("u.so: malformed ELF: string table .dynstr (%d bytes) does not end in a NUL byte", dynstr.Size)
	for _, opt := range []Options{{}, {Only: only}} {
		for _, fast := range []bool{false, true} {
			_, err := parse("u.so", "", bytes.NewReader(data), int64(len(data)), opt, fast)
			if fmt.Sprint(err) != want {
				t.Errorf("Only %v, fast %v: error %v, want %s", opt.Only != nil, fast, err, want)
			}
		}
	}
}

package elfobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

type arFile struct {
	name string
	data []byte
}

// arSym says which member (index into the files) defines a symbol.
type arSym struct {
	name   string
	member int
}

// arHeader formats a 60-byte member header.
func arHeader(name string, size int) string {
	return fmt.Sprintf("%-16s%-12d%-6d%-6d%-8s%-10d`\n", name, 0, 0, 0, "100644", size)
}

// padded appends ar's alignment byte after odd-sized data.
func padded(b []byte) []byte {
	if len(b)%2 == 1 {
		return append(b, '\n')
	}
	return b
}

// buildGNU writes a GNU archive: "/" (or "/SYM64/") index when syms are
// given, "//" long-name table for names over 15 bytes, "name/" otherwise.
func buildGNU(files []arFile, syms []arSym, sym64 bool) []byte {
	return buildSysV(arMagic, files, syms, sym64)
}

// buildThin writes a GNU thin archive naming files (with their sizes) that
// are not stored in it; every name goes through the long-name table, as ar
// does for thin archives.
func buildThin(files []arFile, syms []arSym) []byte {
	return buildSysV(thinMagic, files, syms, false)
}

func buildSysV(magic string, files []arFile, syms []arSym, sym64 bool) []byte {
	thin := magic == thinMagic
	var long bytes.Buffer
	names := make([]string, len(files))
	for i, f := range files {
		if len(f.name) > 15 || thin {
			names[i] = fmt.Sprintf("/%d", long.Len())
			long.WriteString(f.name + "/\n")
		} else {
			names[i] = f.name + "/"
		}
	}
	w := 4
	if sym64 {
		w = 8
	}
	var strtab bytes.Buffer
	for _, s := range syms {
		strtab.WriteString(s.name + "\x00")
	}
	indexSize := w + len(syms)*w + strtab.Len()
	off := len(magic)
	if len(syms) > 0 {
		off += arHeaderLen + len(padded(make([]byte, indexSize)))
	}
	if long.Len() > 0 {
		off += arHeaderLen + len(padded(long.Bytes()))
	}
	offsets := make([]int, len(files))
	for i, f := range files {
		offsets[i] = off
		off += arHeaderLen
		if !thin {
			off += len(padded(slices.Clone(f.data)))
		}
	}
	var b bytes.Buffer
	b.WriteString(magic)
	if len(syms) > 0 {
		index := make([]byte, w)
		put(index, w, uint64(len(syms)))
		for _, s := range syms {
			index = append(index, make([]byte, w)...)
			put(index[len(index)-w:], w, uint64(offsets[s.member]))
		}
		index = append(index, strtab.Bytes()...)
		name := "/"
		if sym64 {
			name = "/SYM64/"
		}
		b.WriteString(arHeader(name, len(index)))
		b.Write(padded(index))
	}
	if long.Len() > 0 {
		b.WriteString(arHeader("//", long.Len()))
		b.Write(padded(long.Bytes()))
	}
	for i, f := range files {
		b.WriteString(arHeader(names[i], len(f.data)))
		if !thin {
			b.Write(padded(slices.Clone(f.data)))
		}
	}
	return b.Bytes()
}

func put(b []byte, w int, v uint64) {
	if w == 8 {
		binary.BigEndian.PutUint64(b, v)
	} else {
		binary.BigEndian.PutUint32(b, uint32(v))
	}
}

// buildBSD writes a BSD archive as Apple's ar does: "#1/len" names stored
// after the header (NUL-padded to 4 bytes) and a "__.SYMDEF SORTED" index of
// little-endian ranlib structs. With short, names up to 16 bytes go in the
// header instead, and the index is a plain "__.SYMDEF".
func buildBSD(files []arFile, syms []arSym, short bool) []byte {
	indexName := "__.SYMDEF SORTED"
	if short {
		indexName = "__.SYMDEF"
	}
	type entry struct {
		field string // the header's name field
		name  []byte // stored after the header
		data  []byte
	}
	entry1 := func(name string, data []byte) entry {
		if short && len(name) <= 16 {
			return entry{field: name, data: data}
		}
		n := []byte(name)
		for len(n)%4 != 0 {
			n = append(n, 0)
		}
		return entry{field: fmt.Sprintf("#1/%d", len(n)), name: n, data: data}
	}
	var strtab bytes.Buffer
	strx := make([]int, len(syms))
	for i, s := range syms {
		strx[i] = strtab.Len()
		strtab.WriteString(s.name + "\x00")
	}
	for strtab.Len()%4 != 0 {
		strtab.WriteByte(0)
	}
	indexSize := 4 + 8*len(syms) + 4 + strtab.Len()
	ents := []entry{entry1(indexName, make([]byte, indexSize))}
	for _, f := range files {
		ents = append(ents, entry1(f.name, f.data))
	}
	offsets := make([]int, len(ents))
	off := len(arMagic)
	for i, e := range ents {
		offsets[i] = off
		off += arHeaderLen + len(padded(append(slices.Clone(e.name), e.data...)))
	}
	index := ents[0].data[:0]
	index = binary.LittleEndian.AppendUint32(index, uint32(8*len(syms)))
	for i, s := range syms {
		index = binary.LittleEndian.AppendUint32(index, uint32(strx[i]))
		index = binary.LittleEndian.AppendUint32(index, uint32(offsets[s.member+1]))
	}
	index = binary.LittleEndian.AppendUint32(index, uint32(strtab.Len()))
	index = append(index, strtab.Bytes()...)
	ents[0].data = index
	var b bytes.Buffer
	b.WriteString(arMagic)
	for _, e := range ents {
		body := append(slices.Clone(e.name), e.data...)
		b.WriteString(arHeader(e.field, len(body)))
		b.Write(padded(body))
	}
	return b.Bytes()
}

var testFiles = []arFile{
	{"short.o", []byte("short member data")},
	{"a_very_long_member_name.o", []byte("odd")},
	{"x.o", []byte("xx")},
}

var testSyms = []arSym{{"sym_short", 0}, {"sym_long", 1}, {"sym_long2", 1}, {"sym_x", 2}}

// archiveCases are valid archives with what reading them must give; they
// also seed FuzzReadArchive.
func archiveCases() []struct {
	name  string
	data  []byte
	thin  bool
	files []arFile
	syms  []arSym
} {
	type c = struct {
		name  string
		data  []byte
		thin  bool
		files []arFile
		syms  []arSym
	}
	return []c{
		{"gnu with long names and index", buildGNU(testFiles, testSyms, false), false, testFiles, testSyms},
		{"gnu SYM64 index", buildGNU(testFiles, testSyms, true), false, testFiles, testSyms},
		{"gnu without index or long names", buildGNU(testFiles[2:], nil, false), false, testFiles[2:], nil},
		{"bsd #1/ names", buildBSD(testFiles, testSyms, false), false, testFiles, testSyms},
		{"bsd short names", buildBSD(testFiles[:1], testSyms[:1], true), false, testFiles[:1], testSyms[:1]},
		{"thin", buildThin(testFiles, testSyms), true, testFiles, testSyms},
		{"empty", []byte(arMagic), false, nil, nil},
	}
}

func TestReadArchive(t *testing.T) {
	const path = "dir/lib.a"
	for _, tt := range archiveCases() {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ReadArchive(path, bytes.NewReader(tt.data), int64(len(tt.data)))
			if err != nil {
				t.Fatal(err)
			}
			if a.Thin != tt.thin || a.Path != path {
				t.Errorf("Thin %v Path %q, want %v %q", a.Thin, a.Path, tt.thin, path)
			}
			if len(a.Members) != len(tt.files) {
				t.Fatalf("%d members, want %d: %+v", len(a.Members), len(tt.files), a.Members)
			}
			for i, m := range a.Members {
				f := tt.files[i]
				if m.Name != f.name || m.Size != int64(len(f.data)) {
					t.Errorf("member %d: %q size %d, want %q size %d", i, m.Name, m.Size, f.name, len(f.data))
				}
				if tt.thin {
					if want := filepath.Join("dir", f.name); m.External != want {
						t.Errorf("member %d: External %q, want %q", i, m.External, want)
					}
					continue
				}
				if got := tt.data[m.DataOffset : m.DataOffset+m.Size]; !bytes.Equal(got, f.data) {
					t.Errorf("member %d: data %q, want %q", i, got, f.data)
				}
				if got := string(tt.data[m.Offset+58 : m.Offset+60]); got != arTerm {
					t.Errorf("member %d: Offset %#x is not a header", i, m.Offset)
				}
			}
			var got, want []string
			for _, e := range a.Index {
				name := "<none>"
				if e.Member >= 0 {
					name = a.Members[e.Member].Name
				}
				got = append(got, e.Symbol+"="+name)
			}
			for _, s := range tt.syms {
				want = append(want, s.name+"="+tt.files[s.member].name)
			}
			if !slices.Equal(got, want) {
				t.Errorf("index\n got %q\nwant %q", got, want)
			}
		})
	}
}

// setField overwrites a header field of the member whose header is at off.
func setField(b []byte, off, field, width int, val string) []byte {
	b = slices.Clone(b)
	copy(b[off+field:off+field+width], fmt.Sprintf("%-*s", width, val))
	return b
}

func TestReadArchiveErrors(t *testing.T) {
	gnu := buildGNU(testFiles, testSyms, false)
	ref, err := ReadArchive("lib.a", bytes.NewReader(gnu), int64(len(gnu)))
	if err != nil {
		t.Fatal(err)
	}
	last := int(ref.Members[2].Offset)
	index := 8 // the "/" member's header
	bsd := buildBSD(testFiles, testSyms, false)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"not an archive", []byte("!<arch>x"), `lib.a: not an ar archive: magic "!<arch>x"`},
		{"too short", []byte("!<ar"), "lib.a: not an ar archive: 4 bytes is shorter than the magic"},
		{"truncated data", gnu[:len(gnu)-1], fmt.Sprintf(`lib.a: member "x.o" at offset %#x: size 2 runs past the end of the archive (%d bytes)`, last, len(gnu)-1)},
		{"truncated header", gnu[:last+30], fmt.Sprintf("lib.a: member header at offset %#x: truncated: 30 bytes left, a header needs 60", last)},
		{"size not a number", setField(gnu, last, 48, 10, "12x"), fmt.Sprintf(`lib.a: member header at offset %#x: size field "12x" is not a number`, last)},
		{"negative size", setField(gnu, last, 48, 10, "-2"), `size field "-2" is not a number`},
		{"lying member size", setField(gnu, last, 48, 10, "9999999999"), `member "x.o" at offset ` + fmt.Sprintf("%#x", last) + ": size 9999999999 runs past the end"},
		{"lying index size", setField(gnu, index, 48, 10, "4000000000"), `member "/" at offset 0x8: size 4000000000 runs past the end`},
		{"bad terminator", setField(gnu, last, 58, 2, "xx"), fmt.Sprintf("lib.a: member header at offset %#x: bad terminator \"xx\"", last)},
		{"lying index count", func() []byte {
			b := slices.Clone(gnu)
			binary.BigEndian.PutUint32(b[index+arHeaderLen:], 0xffffffff)
			return b
		}(), "lib.a: symbol index at offset 0x8: declares 4294967295 symbols, but its"},
		{"index names missing", func() []byte {
			b := slices.Clone(gnu)
			end := index + arHeaderLen + 4 + 4*len(testSyms)
			for i := end; i < len(b) && b[i] != '\n'; i++ {
				if b[i] == 0 {
					b[i] = 'z'
				}
			}
			return b
		}(), "holds names for"},
		{"long name outside table", setField(gnu, int(ref.Members[1].Offset), 0, 16, "/9999"), "long-name offset 9999 is outside the"},
		{"long name without table", []byte(arMagic + arHeader("/0", 2) + "ab"), `name "/0" refers to a long-name table, but none precedes it`},
		{"garbage long-name reference", []byte(arMagic + arHeader("/x1", 2) + "ab"), `name "/x1" is neither a name nor a long-name reference`},
		{"bsd name longer than member", setField(bsd, int(bsdOffset(t, bsd, 1)), 48, 10, "3"), "BSD name length"},
		{"bsd lying ranlib size", func() []byte {
			b := slices.Clone(bsd)
			binary.LittleEndian.PutUint32(b[8+arHeaderLen+len("__.SYMDEF SORTED"):], 0x7ffffff8)
			return b
		}(), "lib.a: symbol index at offset 0x8: ranlib array of 2147483640 bytes does not fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a *Archive
			var err error
			alloc := allocated(func() { a, err = ReadArchive("lib.a", bytes.NewReader(tt.data), int64(len(tt.data))) })
			if err == nil {
				t.Fatalf("no error; members %+v", a.Members)
			}
			var e *Error
			if !errors.As(err, &e) || e.Path != "lib.a" {
				t.Errorf("error %q (%T) is not an *Error naming lib.a", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error\n got %q\nwant %q", err, tt.want)
			}
			if alloc > 1<<20 {
				t.Errorf("allocated %d bytes for a %d-byte archive", alloc, len(tt.data))
			}
		})
	}
}

// bsdOffset finds the header offset of the i-th member of a BSD archive.
func bsdOffset(t *testing.T, b []byte, i int) int64 {
	a, err := ReadArchive("lib.a", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return a.Members[i].Offset
}

// allocated reports the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRealAr reads archives written by GNU ar from objects cc compiled.
func TestRealAr(t *testing.T) {
	fx := compiled(t)
	testenv.NeedTools(t, "ar")
	dir := t.TempDir()
	obj := filepath.Join(dir, "obj")
	for _, p := range []string{fx.obj, fx.longObj} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(obj, filepath.Base(p)), b)
	}
	if err := run(dir, "ar", "rcs", "libfix.a", "obj/fix.o", "obj/a_long_member_name_for_gnu.o"); err != nil {
		t.Fatal(err)
	}
	if err := run(dir, "ar", "rcsT", "libthin.a", "obj/fix.o", "obj/a_long_member_name_for_gnu.o"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file    string
		thin    bool
		members []string
	}{
		{"libfix.a", false, []string{"fix.o", "a_long_member_name_for_gnu.o"}},
		{"libthin.a", true, []string{"obj/fix.o", "obj/a_long_member_name_for_gnu.o"}},
	}
	wantIndex := map[string]int{"fix_state": 0, "fix_answer": 0, "long_member_fn": 1}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			a, err := ReadArchive(p, bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range a.Members {
				names = append(names, m.Name)
				if tt.thin && m.External != filepath.Join(dir, m.Name) {
					t.Errorf("%s: External %q", m.Name, m.External)
				}
			}
			if a.Thin != tt.thin || !slices.Equal(names, tt.members) {
				t.Errorf("Thin %v members %q, want %v %q", a.Thin, names, tt.thin, tt.members)
			}
			got := map[string]int{}
			for _, e := range a.Index {
				got[e.Symbol] = e.Member
			}
			if len(got) != len(wantIndex) {
				t.Errorf("index %v, want %v", got, wantIndex)
			}
			for sym, m := range wantIndex {
				if g, ok := got[sym]; !ok || g != m {
					t.Errorf("index: %s -> member %d (present %v), want %d", sym, g, ok, m)
				}
			}
			objs, errs := Open([]string{p}, Options{})
			if len(errs) > 0 {
				t.Fatalf("Open: %q", errTexts(t, errs))
			}
			var paths []string
			for _, o := range objs {
				paths = append(paths, o.Path)
				if o.Archive != p || o.Dir != "" || o.Real != "" {
					t.Errorf("%s: Archive %q Dir %q Real %q", o.Path, o.Archive, o.Dir, o.Real)
				}
			}
			// Members come in archive order, the order a linker scans them.
			want := []string{p + "(" + tt.members[0] + ")", p + "(" + tt.members[1] + ")"}
			if !slices.Equal(paths, want) {
				t.Errorf("Open paths %q, want %q", paths, want)
			}
			if len(objs) == 2 && (!hasSymbol(objs[1], "fix_answer", false) || !hasSymbol(objs[0], "fix_answer", true)) {
				t.Errorf("member symbols wrong: %v / %v", objs[0].Symbols, objs[1].Symbols)
			}
		})
	}
}

func TestThinMemberMissing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "libthin.a")
	writeFile(t, p, buildThin([]arFile{{"gone.o", []byte("12")}}, nil))
	objs, errs := Open([]string{p}, Options{})
	got := errTexts(t, errs)
	if len(objs) != 0 || len(got) != 1 || !strings.HasPrefix(got[0], p+"(gone.o): thin archive member: ") {
		t.Errorf("objects %q, errors %q; want one error for the missing member", paths(objs), got)
	}
}

func TestIsArchive(t *testing.T) {
	for in, want := range map[string]bool{"!<arch>\n": true, "!<thin>\n...": true, "!<arch>": false, "\x7fELF": false, "": false} {
		if got := IsArchive([]byte(in)); got != want {
			t.Errorf("IsArchive(%q) = %v", in, got)
		}
	}
}

// FuzzReadArchive: any input gives an archive whose members lie inside it, or
// an *Error naming it; never a panic or an allocation the input does not
// justify.
func FuzzReadArchive(f *testing.F) {
	for _, c := range archiveCases() {
		f.Add(c.data)
	}
	if fx := compiledIfAvailable(); fx != nil {
		f.Add(buildGNU([]arFile{{"fix.o", fx.objData}}, []arSym{{"fix_answer", 0}}, false))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadArchive("fuzz.a", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Path != "fuzz.a" {
				t.Fatalf("error %q is not an *Error naming the input", err)
			}
			return
		}
		for _, m := range a.Members {
			if m.Offset < 8 || m.DataOffset < m.Offset || m.Size < 0 ||
				(!a.Thin && m.DataOffset+m.Size > int64(len(data))) {
				t.Fatalf("member %+v outside the %d-byte archive", m, len(data))
			}
		}
		for _, e := range a.Index {
			if e.Member < -1 || e.Member >= len(a.Members) {
				t.Fatalf("index entry %+v: member out of range", e)
			}
		}
		if !a.Thin { // thin members would be opened from disk
			memberObjects(a, bytes.NewReader(data), Options{})
		}
	})
}

// An index entry whose offset is no member's header keeps its symbol and
// says so with Member -1, rather than failing the whole archive.
func TestReadArchiveDanglingIndex(t *testing.T) {
	b := buildGNU(testFiles, testSyms, false)
	binary.BigEndian.PutUint32(b[8+arHeaderLen+4:], 0x10) // sym_short -> offset 0x10
	a, err := ReadArchive("lib.a", bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Index) != len(testSyms) || a.Index[0] != (IndexEntry{"sym_short", -1}) || a.Index[1] != (IndexEntry{"sym_long", 1}) {
		t.Errorf("index %+v", a.Index)
	}
}

package elfobj

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The two ar magics: a regular archive holds its members' data, a GNU thin
// archive only names files that sit next to it.
const (
	arMagic     = "!<arch>\n"
	thinMagic   = "!<thin>\n"
	arHeaderLen = 60
	arTerm      = "`\n"
)

// IsArchive reports whether the header bytes start an ar archive, regular or thin.
func IsArchive(head []byte) bool {
	return bytes.HasPrefix(head, []byte(arMagic)) || bytes.HasPrefix(head, []byte(thinMagic))
}

// Archive is the table of contents of an ar archive: its members and its
// symbol index, which is what a static linker consults to decide which
// members to extract.
type Archive struct {
	Path string
	// Thin marks a GNU thin archive: member data lives in External files.
	Thin    bool
	Members []Member
	// Index is the archive's symbol index (GNU "/" or "/SYM64/", BSD
	// "__.SYMDEF"), in the order the archive lists it.
	Index []IndexEntry
}

// Member is one file stored in (or, for thin archives, named by) an archive.
type Member struct {
	Name string
	// Offset is the offset of the member's header, the value symbol indexes
	// refer to.
	Offset int64
	// DataOffset and Size locate the member's bytes in the archive (for a
	// BSD "#1/len" name, after the name). For thin archives Size is the size
	// the header records for the external file.
	DataOffset int64
	Size       int64
	// External is the file a thin archive member's data is in, resolved
	// against the archive's directory as GNU ld does.
	External string
}

// IndexEntry maps a symbol of the archive's index to the member defining it.
type IndexEntry struct {
	Symbol string
	// Member indexes Archive.Members; -1 when no member header sits at the
	// offset the index gives.
	Member int
}

// indexKind is the layout of a symbol index member.
type indexKind int

const (
	gnuIndex32 indexKind = iota // "/": big-endian 32-bit count and offsets
	gnuIndex64                  // "/SYM64/": big-endian 64-bit
	bsdIndex32                  // "__.SYMDEF": ranlib structs of 32-bit words
	bsdIndex64                  // "__.SYMDEF_64": ranlib_64 structs
)

// rawIndex is a symbol index member found while scanning, decoded once all
// member offsets are known.
type rawIndex struct {
	kind      indexKind
	off, data int64
	size      int64
}

// arReader scans one archive. Every size read from the archive is checked
// against the archive's size before anything is allocated for it.
type arReader struct {
	path      string
	r         io.ReaderAt
	size      int64
	ar        *Archive
	longNames []byte
	indexes   []rawIndex
}

// ReadArchive reads the table of contents of the ar archive of size bytes in
// r: GNU (with "//" long names and "/" or "/SYM64/" indexes), BSD ("#1/len"
// names, "__.SYMDEF" indexes) and GNU thin archives. path names it in errors
// and is the directory thin members are relative to: they must lie in the
// archive's build tree (confineThin). Member data is not read.
func ReadArchive(path string, r io.ReaderAt, size int64) (*Archive, error) {
	rd := &arReader{path: path, r: r, size: size, ar: &Archive{Path: path}}
	if err := rd.readMagic(); err != nil {
		return nil, err
	}
	for off := int64(len(arMagic)); off < size; {
		next, err := rd.member(off)
		if err != nil {
			return nil, err
		}
		off = next
	}
	if err := rd.decodeIndexes(); err != nil {
		return nil, err
	}
	if err := rd.confineThin(); err != nil {
		return nil, err
	}
	return rd.ar, nil
}

func (rd *arReader) readMagic() error {
	if rd.size < int64(len(arMagic)) {
		return errorf(rd.path, "not an ar archive: %d bytes is shorter than the magic", rd.size)
	}
	magic, err := rd.read(0, int64(len(arMagic)), "archive magic")
	if err != nil {
		return err
	}
	switch string(magic) {
	case arMagic:
	case thinMagic:
		rd.ar.Thin = true
	default:
		return errorf(rd.path, "not an ar archive: magic %q", magic)
	}
	return nil
}

// read returns n bytes at off, which the caller has checked lie inside the
// archive; what names the bytes in the error of a short read.
func (rd *arReader) read(off, n int64, what string) ([]byte, error) {
	if off < 0 || n < 0 || n > rd.size-off {
		return nil, errorf(rd.path, "%s at offset %#x: %d bytes run past the end of the archive (%d bytes)", what, off, n, rd.size)
	}
	buf := make([]byte, n)
	if m, err := rd.r.ReadAt(buf, off); m < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, errorf(rd.path, "%s at offset %#x: %w", what, off, err)
	}
	return buf, nil
}

// header is a member header's fields as stored.
type header struct {
	off  int64
	name string // the 16-byte name field without trailing blanks
	size int64
}

// member reads the member whose header is at off and returns the offset of
// the next header.
func (rd *arReader) member(off int64) (int64, error) {
	h, err := rd.header(off)
	if err != nil {
		return 0, err
	}
	data := off + arHeaderLen
	name, err := rd.name(h, &data)
	if err != nil {
		return 0, err
	}
	size := h.size - (data - off - arHeaderLen) // a BSD name counts in the size
	special := rd.special(h, name, data, size)
	if !special && rd.ar.Thin {
		rd.ar.Members = append(rd.ar.Members, Member{Name: name, Offset: off, DataOffset: data, Size: size, External: rd.external(name)})
		return data, nil // thin member data is not in the archive
	}
	if size > rd.size-data {
		return 0, errorf(rd.path, "member %q at offset %#x: size %d runs past the end of the archive (%d bytes)", name, off, size, rd.size)
	}
	if h.name == "//" {
		if rd.longNames, err = rd.read(data, size, "long-name table"); err != nil {
			return 0, err
		}
	}
	if !special {
		rd.ar.Members = append(rd.ar.Members, Member{Name: name, Offset: off, DataOffset: data, Size: size})
	}
	next := data + size
	next += next & 1 // members are 2-byte aligned
	return min(next, rd.size), nil
}

// header parses the fixed 60-byte header at off.
func (rd *arReader) header(off int64) (header, error) {
	if rd.size-off < arHeaderLen {
		return header{}, errorf(rd.path, "member header at offset %#x: truncated: %d bytes left, a header needs %d", off, rd.size-off, arHeaderLen)
	}
	b, err := rd.read(off, arHeaderLen, "member header")
	if err != nil {
		return header{}, err
	}
	if string(b[58:60]) != arTerm {
		return header{}, errorf(rd.path, "member header at offset %#x: bad terminator %q, want %q", off, b[58:60], arTerm)
	}
	field := strings.TrimRight(string(b[48:58]), " ")
	size, ok := decimal(field)
	if !ok {
		return header{}, errorf(rd.path, "member header at offset %#x: size field %q is not a number", off, field)
	}
	return header{off: off, name: strings.TrimRight(string(b[:16]), " "), size: size}, nil
}

// decimal parses an unsigned decimal field; strconv would accept a sign.
func decimal(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// name resolves a header's name: GNU "name/", "/123" long-name references,
// BSD "#1/len" names stored after the header (advancing *data past them) and
// plain BSD names.
func (rd *arReader) name(h header, data *int64) (string, error) {
	switch n := h.name; {
	case n == "/" || n == "//" || n == "/SYM64/":
		return n, nil
	case strings.HasPrefix(n, "#1/"):
		return rd.bsdName(h, data)
	case strings.HasPrefix(n, "/"):
		return rd.longName(h)
	default:
		return strings.TrimSuffix(n, "/"), nil
	}
}

func (rd *arReader) bsdName(h header, data *int64) (string, error) {
	field := h.name[len("#1/"):]
	n, ok := decimal(field)
	if !ok {
		return "", errorf(rd.path, "member header at offset %#x: BSD name length %q is not a number", h.off, field)
	}
	if n > h.size {
		return "", errorf(rd.path, "member header at offset %#x: BSD name length %d exceeds the member size %d", h.off, n, h.size)
	}
	b, err := rd.read(*data, n, "BSD member name")
	if err != nil {
		return "", err
	}
	*data += n
	return string(bytes.TrimRight(b, "\x00")), nil
}

// longName looks a "/123" reference up in the "//" table. Entries end in
// "/\n" (GNU; thin archives keep paths with slashes there) or "\n". Nested
// archives in thin archives append ":origin", which names no file here.
func (rd *arReader) longName(h header) (string, error) {
	field, _, _ := strings.Cut(h.name[1:], ":")
	ref, ok := decimal(field)
	if !ok && strings.HasSuffix(h.name, "/") {
		return strings.TrimSuffix(h.name, "/"), nil // a short absolute thin member
	}
	if !ok {
		return "", errorf(rd.path, "member header at offset %#x: name %q is neither a name nor a long-name reference", h.off, h.name)
	}
	if rd.longNames == nil {
		return "", errorf(rd.path, "member header at offset %#x: name %q refers to a long-name table, but none precedes it", h.off, h.name)
	}
	if ref >= int64(len(rd.longNames)) {
		return "", errorf(rd.path, "member header at offset %#x: long-name offset %d is outside the %d-byte long-name table", h.off, ref, len(rd.longNames))
	}
	s := rd.longNames[ref:]
	if i := bytes.IndexAny(s, "\n\x00"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSuffix(string(s), "/"), nil
}

// special records index and long-name members, which are not files of the
// archive, and reports whether the member was one.
func (rd *arReader) special(h header, name string, data, size int64) bool {
	kind := indexKind(-1)
	switch {
	case h.name == "//":
		return true
	case h.name == "/" && len(rd.indexes) > 0:
		return true // COFF's second linker member: not an ELF index
	case h.name == "/":
		kind = gnuIndex32
	case h.name == "/SYM64/":
		kind = gnuIndex64
	case name == "__.SYMDEF" || name == "__.SYMDEF SORTED":
		kind = bsdIndex32
	case name == "__.SYMDEF_64" || name == "__.SYMDEF_64 SORTED":
		kind = bsdIndex64
	default:
		return false
	}
	rd.indexes = append(rd.indexes, rawIndex{kind: kind, off: h.off, data: data, size: size})
	return true
}

// external is where GNU ld looks for a thin member: relative names are
// relative to the archive's directory. The name is appended, not joined:
// as for ld, the system resolves a "..", after the symbolic links before
// it (lib/../x is not x when lib is a link).
func (rd *arReader) external(name string) string {
	dir := filepath.Dir(rd.path)
	if filepath.IsAbs(name) || dir == "." {
		return name
	}
	return dir + string(filepath.Separator) + name
}

// confineThin checks that the members of a thin archive lie in its build
// tree once symbolic links are resolved: the archive is untrusted, and a
// member "../../etc/passwd", "/dev/zero" or a link out of the tree would
// make etlink read any file of the machine. GNU ar stores a member
// relative to the archive, or absolute: CMake's objects sit beside its
// archive's directory (lib/libfoo.a names ../CMakeFiles/foo.dir/a.cpp.o),
// so the tree is the build directory above the archive, the nearest
// holding CMakeCache.txt or build.ninja (CMake, Meson), else the
// archive's directory. A member that does not exist is left to the
// reader to report.
func (rd *arReader) confineThin() error {
	if !rd.ar.Thin || len(rd.ar.Members) == 0 {
		return nil
	}
	root := thinRoot(filepath.Dir(rd.path))
	for _, m := range rd.ar.Members {
		real, err := filepath.EvalSymlinks(m.External)
		if err == nil {
			real, err = filepath.Abs(real)
		}
		if err != nil {
			continue
		}
		if root == "" || !within(real, root) {
			return errorf(rd.path, "thin archive member %q is %s, outside the archive's build tree %s: not read", m.Name, real, cmp.Or(root, filepath.Dir(rd.path)))
		}
	}
	return nil
}

// thinRoot is the tree a thin archive in dir may name members in (links
// resolved), or "" when dir is not on disk (a wheel's entry).
func thinRoot(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return ""
	}
	for d := real; ; d = filepath.Dir(d) {
		if isBuildDir(d) {
			return d
		}
		if d == filepath.Dir(d) {
			return real
		}
	}
}

// isBuildDir reports whether dir is the top of a CMake or Meson build
// directory.
func isBuildDir(dir string) bool {
	for _, f := range []string{"CMakeCache.txt", "build.ninja"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// within reports whether path lies under dir.
func within(path, dir string) bool {
	if !strings.HasSuffix(dir, string(filepath.Separator)) { // all but "/"
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// decodeIndexes turns the symbol indexes into entries pointing at members.
func (rd *arReader) decodeIndexes() error {
	if len(rd.indexes) == 0 {
		return nil
	}
	byOffset := make(map[int64]int, len(rd.ar.Members))
	for i, m := range rd.ar.Members {
		byOffset[m.Offset] = i
	}
	for _, ix := range rd.indexes {
		tab, err := rd.read(ix.data, ix.size, "symbol index")
		if err != nil {
			return err
		}
		var syms []string
		var offs []uint64
		if ix.kind == gnuIndex32 || ix.kind == gnuIndex64 {
			syms, offs, err = gnuSymbols(tab, ix.kind)
		} else {
			syms, offs, err = bsdSymbols(tab, ix.kind)
		}
		if err != nil {
			return errorf(rd.path, "symbol index at offset %#x: %w", ix.off, err)
		}
		for i, s := range syms {
			m, ok := byOffset[int64(offs[i])]
			if !ok {
				m = -1
			}
			rd.ar.Index = append(rd.ar.Index, IndexEntry{Symbol: s, Member: m})
		}
	}
	return nil
}

// gnuSymbols decodes a GNU index: a big-endian count, count member offsets,
// then count NUL-terminated names.
func gnuSymbols(tab []byte, kind indexKind) ([]string, []uint64, error) {
	w := 4
	if kind == gnuIndex64 {
		w = 8
	}
	if len(tab) < w {
		return nil, nil, fmt.Errorf("%d bytes is too short for the symbol count", len(tab))
	}
	count := word(tab, w, binary.BigEndian)
	// Each symbol needs an offset and at least a NUL: check before allocating.
	if limit := uint64(len(tab)-w) / uint64(w+1); count > limit {
		return nil, nil, fmt.Errorf("declares %d symbols, but its %d bytes hold at most %d", count, len(tab), limit)
	}
	offs := make([]uint64, count)
	for i := range offs {
		offs[i] = word(tab[w+i*w:], w, binary.BigEndian)
	}
	names, err := cstrings(tab[w+int(count)*w:], int(count))
	return names, offs, err
}

// bsdSymbols decodes a BSD index: the byte size of an array of (name offset,
// member offset) pairs, the array, the byte size of the string table, the
// table. Words are in the writer's byte order, little-endian on every
// platform still producing these, so big-endian is tried only when
// little-endian sizes do not fit.
func bsdSymbols(tab []byte, kind indexKind) ([]string, []uint64, error) {
	w := 4
	if kind == bsdIndex64 {
		w = 8
	}
	syms, offs, err := bsdSymbolsOrder(tab, w, binary.LittleEndian)
	if err != nil {
		if s, o, err2 := bsdSymbolsOrder(tab, w, binary.BigEndian); err2 == nil {
			return s, o, nil
		}
	}
	return syms, offs, err
}

func bsdSymbolsOrder(tab []byte, w int, order binary.ByteOrder) ([]string, []uint64, error) {
	if len(tab) < w {
		return nil, nil, fmt.Errorf("%d bytes is too short for the ranlib array size", len(tab))
	}
	arr := word(tab, w, order)
	if arr%uint64(2*w) != 0 || arr > uint64(len(tab)-w) || uint64(len(tab)-w)-arr < uint64(w) {
		return nil, nil, fmt.Errorf("ranlib array of %d bytes does not fit the %d-byte index", arr, len(tab))
	}
	strs := tab[w+int(arr):]
	strSize := word(strs, w, order)
	strs = strs[w:]
	if strSize > uint64(len(strs)) {
		return nil, nil, fmt.Errorf("string table of %d bytes does not fit the %d-byte index", strSize, len(tab))
	}
	strs = strs[:strSize]
	n := int(arr) / (2 * w)
	names, offs := make([]string, n), make([]uint64, n)
	for i := range n {
		e := tab[w+i*2*w:]
		strx := word(e, w, order)
		if strx >= uint64(len(strs)) {
			return nil, nil, fmt.Errorf("symbol %d: name offset %d is outside the %d-byte string table", i, strx, len(strs))
		}
		names[i] = cstring(strs[strx:])
		offs[i] = word(e[w:], w, order)
	}
	return names, offs, nil
}

// word reads a w-byte (4 or 8) unsigned integer.
func word(b []byte, w int, order binary.ByteOrder) uint64 {
	if w == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

// cstrings splits n NUL-terminated strings off the front of b.
func cstrings(b []byte, n int) ([]string, error) {
	out := make([]string, 0, n)
	for len(out) < n {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return nil, fmt.Errorf("declares %d symbols, but holds names for %d", n, len(out))
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out, nil
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// The dynamic reader: what readDynamic gets from debug/elf, read with one
// ReadAt per section and decoded without a string allocation per symbol.
//
// debug/elf's File.DynString reads .dynamic and its string table again on
// every call (readDynamic makes four), and File.DynamicSymbols copies every
// name into a string of its own and searches the version tables once per
// symbol. Here .dynamic, .dynsym, the string tables and .gnu.version,
// .gnu.version_d and .gnu.version_r are each read once; each string table
// becomes one string, and every name, needed library, path and version is a
// substring of it (so version names are shared, not copied per symbol).
//
// The reader handles the files debug/elf reads without complaint, and gives
// the same Object for them, field by field. Anything else (a section debug/elf
// would decompress or refuse to read, a table of the wrong size, a version
// record it rejects) makes readDynsym decline, and Parse reads the file
// through debug/elf: its answer, and its error, stay the reference.

// sectionSource reads sections of one image with one ReadAt each, into
// scratch buffers reused from file to file (scratch.go): the tables are
// decoded and dropped, and the strings an Object keeps are copied out of
// them.
type sectionSource struct {
	r       io.ReaderAt
	size    uint64
	scratch []byte   // the buffer being filled
	held    [][]byte // earlier buffers, still under slices handed out
	// span holds the image's bytes from spanOff, read at once by reserve.
	span    []byte
	spanOff uint64
	// sparse says the tables are read a piece at a time, where the few
	// symbols the index picks lie (Options.picks, sparsePicks), not whole.
	sparse bool
	// hdr is what lightFile decoded the headers into, nil until then.
	hdr *headerArrays
}

// headers returns src's header arrays, given back by close.
func (src *sectionSource) headers() *headerArrays {
	if src.hdr == nil {
		src.hdr = headerPool.Get().(*headerArrays)
		src.hdr.file = elf.File{}
	}
	return src.hdr
}

func newSource(r io.ReaderAt, size int64) *sectionSource {
	return &sectionSource{r: r, size: uint64(size), scratch: takeScratch(headSize)}
}

// close gives the scratch buffers back; nothing bytes returned may be used after.
func (src *sectionSource) close() {
	for _, b := range append(src.held, src.scratch) {
		putScratch(b)
	}
	src.scratch, src.held = nil, nil
	if src.hdr != nil {
		headerPool.Put(src.hdr)
		src.hdr = nil
	}
}

// grow makes room for n more bytes in the scratch buffer. A buffer too small
// is held until close: slices of it may still be in use.
func (src *sectionSource) grow(n int) {
	if len(src.scratch)+n <= cap(src.scratch) {
		return
	}
	src.held = append(src.held, src.scratch)
	src.scratch = takeScratch(n)
}

// alloc returns n bytes of the scratch buffer, valid until close.
func (src *sectionSource) alloc(n int) []byte {
	src.grow(n)
	start := len(src.scratch)
	src.scratch = src.scratch[:start+n]
	return src.scratch[start : start+n : start+n]
}

// reserve makes room in the scratch buffer for every table readDynsym may
// read of f, at once: one buffer of the right size rather than a chain of
// outgrown ones. When the tables lie together, as linkers lay them out
// (.dynsym, .dynstr, .gnu.version, .gnu.version_r, one after the other in
// the first segment), it reads them with one ReadAt, and read serves them
// from that span.
func (src *sectionSource) reserve(f *elf.File) {
	var n, together, lo, hi uint64
	lo = src.size
	for _, s := range dynTableSections(f) {
		if !src.inFile(s) || !plain(s) || s.FileSize == 0 {
			continue
		}
		n += s.FileSize
		if s.Type != elf.SHT_DYNAMIC { // in the data segment, away from the rest
			together += s.FileSize
			lo, hi = min(lo, s.Offset), max(hi, s.Offset+s.FileSize)
		}
	}
	if n == 0 || n > src.size { // a table can only be as large as the file
		return
	}
	if together > 0 && hi-lo <= together+together/4+64<<10 {
		src.grow(int(n - together + hi - lo))
		if b, ok := src.read(lo, hi-lo); ok {
			src.spanOff, src.span = lo, b
			return
		}
	}
	src.grow(int(n))
}

// dynTableSections lists the sections readDynsym reads: the dynamic
// section, the GNU hash table, the dynamic symbol and version tables, and
// the string tables they link to.
func dynTableSections(f *elf.File) []*elf.Section {
	var out []*elf.Section
	add := func(s *elf.Section) {
		if s != nil && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, typ := range []elf.SectionType{elf.SHT_DYNAMIC, elf.SHT_GNU_HASH, elf.SHT_DYNSYM, elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED} {
		s := f.SectionByType(typ)
		add(s)
		if s != nil && (typ == elf.SHT_DYNAMIC || typ == elf.SHT_DYNSYM) && s.Link > 0 && int(s.Link) < len(f.Sections) {
			add(f.Sections[s.Link])
		}
	}
	return out
}

// inFile reports whether a section lies inside the image.
func (src *sectionSource) inFile(s *elf.Section) bool {
	end := s.Offset + s.FileSize
	return end >= s.Offset && end <= src.size
}

// bytes reads a section into the scratch buffer, valid until close.
func (src *sectionSource) bytes(s *elf.Section) ([]byte, bool) {
	return src.read(s.Offset, s.FileSize)
}

// read reads n bytes at off into the scratch buffer, valid until close;
// false when they are not all inside the image.
func (src *sectionSource) read(off, n uint64) ([]byte, bool) {
	if end := off + n; end < off || end > src.size {
		return nil, false
	}
	if at := off - src.spanOff; src.span != nil && off >= src.spanOff && at+n <= uint64(len(src.span)) {
		return src.span[at : at+n : at+n], true
	}
	b := src.alloc(int(n))
	if got, _ := src.r.ReadAt(b, int64(off)); got < len(b) {
		return nil, false
	}
	return b, true
}

// head is the image's first bytes, as readHead read them.
func (src *sectionSource) head() []byte {
	if h, ok := src.r.(*headReader); ok {
		return h.head
	}
	return nil
}

// headReader serves reads of an image's first bytes (ELF header and program
// headers, which checkHeader and elf.NewFile read piecemeal) from one read.
type headReader struct {
	r    io.ReaderAt
	head []byte
}

const headSize = 4096

// readHead reads the head of src's image into its scratch buffer, and
// returns a reader that serves from it until src is closed.
func (src *sectionSource) readHead() *headReader {
	head := src.alloc(int(min(src.size, headSize)))
	n, _ := src.r.ReadAt(head, 0)
	h := &headReader{r: src.r, head: head[:n]}
	src.r = h
	return h
}

func (h *headReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= 0 && off+int64(len(p)) <= int64(len(h.head)) {
		return copy(p, h.head[off:]), nil
	}
	return h.r.ReadAt(p, off)
}

// dynTables is one image's dynamic information being decoded.
type dynTables struct {
	f    *elf.File
	src  *sectionSource
	bo   binary.ByteOrder
	strs []strtabRead // string tables asked for; an image links one or two
	// interned holds the version and library names copied out of the
	// string table, each once: usually a few dozen, searched in order;
	// past smallSet of them (a crafted table can hold 32767), by internedSet.
	interned    []string
	internedSet map[string]string
	// err is a malformation no reader should accept (a name outside .dynstr).
	err error
	// opt says which symbols to keep (Options.Only, OnlyDefs), and init
	// is the PyInit_ name kept with them (Options.ModuleInit), or "".
	opt  Options
	init string
	// hashes are the names' hashes for Options.Index (nameHashes).
	hashes []byte
	// picked are the symbols the index picked, whole (pickedSymbols).
	picked []pickedSymbol
	// gnu is the GNU hash table, once hashTable has read it.
	gnu struct {
		read, ok bool
		h        hashTable
	}
}

// intern copies a string out of the scratch buffer, once per distinct value.
func (t *dynTables) intern(s string) string {
	if s == "" {
		return ""
	}
	if t.internedSet != nil {
		if c, ok := t.internedSet[s]; ok {
			return c
		}
	} else {
		for _, c := range t.interned {
			if c == s {
				return c
			}
		}
	}
	c := strings.Clone(s)
	t.interned = append(t.interned, c)
	if len(t.interned) == smallSet {
		t.internedSet = make(map[string]string, 2*smallSet)
		for _, x := range t.interned {
			t.internedSet[x] = x
		}
	} else if t.internedSet != nil {
		t.internedSet[c] = c
	}
	return c
}

// smallSet is where a linear search stops being cheaper than a map.
const smallSet = 32

// strtabRead is a string table read, by its section index.
type strtabRead struct {
	link uint32
	tab  *strTable
}

// plain reports whether debug/elf's Section.Data would return s's bytes as
// they are in the file: no SHT_NOBITS, no compression.
func plain(s *elf.Section) bool {
	return s == nil || s.Type != elf.SHT_NOBITS && s.Flags&elf.SHF_COMPRESSED == 0 &&
		!strings.HasPrefix(s.Name, ".zdebug")
}

// strtab returns the string table a section links to, reading it once into
// the scratch buffer. The string is only valid until the source is closed:
// whatever goes into the Object is copied out of it (symbol names by
// nameCopier, the rest by strings.Clone).
// Sparse (sectionSource.sparse), the table is not read: its strings are,
// each when asked.
func (t *dynTables) strtab(link uint32) (*strTable, bool) {
	if link == 0 || link >= uint32(len(t.f.Sections)) || !plain(t.f.Sections[link]) {
		return nil, false
	}
	for _, r := range t.strs {
		if r.link == link {
			return r.tab, true
		}
	}
	sec := t.f.Sections[link]
	var tab *strTable
	switch {
	case t.src.sparse && t.src.inFile(sec):
		tab = &strTable{src: t.src, off: sec.Offset, size: int(sec.FileSize), sparse: true}
	case t.src.sparse:
		return nil, false
	default:
		b, ok := t.src.bytes(sec)
		if !ok {
			return nil, false
		}
		tab = wholeTable(unsafe.String(unsafe.SliceData(b), len(b)))
	}
	t.strs = append(t.strs, strtabRead{link, tab})
	return tab, true
}

// tabStringOK is debug/elf's getString on a string table held as a string:
// the NUL-terminated string at start, and whether there is one.
func tabStringOK(tab string, start int) (string, bool) {
	if start < 0 || start >= len(tab) {
		return "", false
	}
	if n := strings.IndexByte(tab[start:], 0); n >= 0 {
		return tab[start : start+n], true
	}
	return "", false
}

// tabString is tabStringOK's string, "" when there is none.
func tabString(tab string, start int) string {
	s, _ := tabStringOK(tab, start)
	return s
}

// readDynsym fills o's Soname, Needed, Rpath, Runpath and Symbols as
// readDynamic would, from f's sections read through src. It reports false,
// leaving o as it was, when the file needs debug/elf's reading.
// A symbol whose name lies outside the string table is an error: debug/elf
// would read it as a symbol without a name.
func readDynsym(f *elf.File, src *sectionSource, o *Object, opt Options, path string) (bool, error) {
	t := &dynTables{f: f, src: src, bo: f.ByteOrder, opt: opt, init: opt.initName(path)}
	if !src.sparse {
		src.reserve(f)
	}
	d := dynInfo{}
	if ds := f.SectionByType(elf.SHT_DYNAMIC); ds != nil {
		if !t.dynamic(ds, &d) {
			return false, t.err
		}
	}
	syms, ok := t.symbols()
	if t.err != nil {
		return false, t.err
	}
	if !ok {
		return false, nil
	}
	o.Soname, o.Needed, o.Rpath, o.Runpath, o.Symbols = d.soname, d.needed, d.rpath, d.runpath, syms
	o.nameHashes, o.picked = t.hashes, t.picked
	return true, nil
}

// dynInfo is what the dynamic section says.
type dynInfo struct {
	soname                 string
	hasSoname              bool
	needed, rpath, runpath []string
}

// dynamic decodes the dynamic section as File.DynString does: every entry
// up to the section's end (not only up to DT_NULL). A section the loader
// could not use (checkDynamic) is t.err.
func (t *dynTables) dynamic(ds *elf.Section, d *dynInfo) bool {
	if !plain(ds) {
		return false
	}
	data, ok := t.src.bytes(ds)
	if !ok {
		return false
	}
	entry := dynEntrySize(t.f)
	if len(data)%entry != 0 {
		return false
	}
	str, ok := t.strtab(ds.Link)
	if !ok {
		return false
	}
	if t.err = checkDynamic(t.f, data, t.f.Sections[ds.Link], str.terminated()); t.err != nil {
		return false
	}
	for ; len(data) > 0; data = data[entry:] {
		tag, val := dynEntry(t.bo, data, entry)
		switch tag {
		case elf.DT_NEEDED, elf.DT_SONAME, elf.DT_RPATH, elf.DT_RUNPATH:
			if s, ok := str.at(int(val)); ok {
				d.add(tag, strings.Clone(s))
			}
		}
	}
	return true
}

// add records one string entry; the first DT_SONAME is the soname.
func (d *dynInfo) add(tag elf.DynTag, s string) {
	switch tag {
	case elf.DT_NEEDED:
		d.needed = append(d.needed, s)
	case elf.DT_SONAME:
		if !d.hasSoname {
			d.soname, d.hasSoname = s, true
		}
	case elf.DT_RPATH:
		d.rpath = appendPaths(d.rpath, s)
	case elf.DT_RUNPATH:
		d.runpath = appendPaths(d.runpath, s)
	}
}

// appendPaths splits a DT_RPATH/DT_RUNPATH value as pathList does.
func appendPaths(out []string, v string) []string {
	for p := range strings.SplitSeq(v, ":") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// verName is what a .gnu.version index stands for: a version name and
// library, substrings of the string table, and the SymVersion values its
// symbols share (default and hidden), made when a kept symbol first asks:
// most libraries of a closure read for a few names keep none.
type verName struct {
	known         bool
	name, library string
	shown, hidden *SymVersion
}

// verTables keeps the tables versions decodes, a few dozen entries per
// library, for the next library read: the symbols keep the SymVersion
// values, not the table.
var verTables = sync.Pool{New: func() any { return new([]verName) }}

func putVerTable(t []verName) {
	clear(t) // drop the strings and versions it holds
	verTables.Put(&t)
}

// sym is the SymVersion of a symbol of this index, hidden or not: nil and
// hiddenUnversioned for a version of neither name nor library, which
// debug/elf reads as none.
func (v *verName) sym(t *dynTables, hidden bool) *SymVersion {
	if v.name == "" && v.library == "" {
		if hidden {
			return hiddenUnversioned
		}
		return nil
	}
	if v.shown == nil {
		name, library := t.intern(v.name), t.intern(v.library)
		v.shown, v.hidden = &SymVersion{Version: name, Library: library}, &SymVersion{Version: name, Hidden: true, Library: library}
	}
	if hidden {
		return v.hidden
	}
	return v.shown
}

// symbols decodes the dynamic symbol table as File.DynamicSymbols and
// readDynamic do: the null symbol and version nodes left out, names and
// versions from the table .dynsym links to.
func (t *dynTables) symbols() ([]Symbol, bool) {
	sec := t.f.SectionByType(elf.SHT_DYNSYM)
	if sec == nil {
		if t.opt.Index.indexable(t.opt) {
			t.hashes = []byte{} // no names: none asked for
		}
		return nil, true
	}
	if !plain(sec) {
		return nil, false
	}
	// Sparse, each symbol picked is read where it lies, as are its name
	// and version index.
	sparse := t.src.sparse
	var data []byte
	tableSize, ok := int(sec.FileSize), t.src.inFile(sec)
	if !sparse {
		data, ok = t.src.bytes(sec)
		tableSize = len(data)
	}
	size := elf.Sym32Size
	if t.f.Class == elf.ELFCLASS64 {
		size = elf.Sym64Size
	}
	if !ok || tableSize == 0 || tableSize%size != 0 {
		return nil, false
	}
	str, ok := t.strtab(sec.Link)
	if !ok {
		return nil, false
	}
	strSec := t.f.Sections[sec.Link]
	if !str.terminated() {
		t.err = unterminated(strSec.Name, strSec.Size)
		return nil, false
	}
	var vt versionTable
	if vs := t.f.SectionByType(elf.SHT_GNU_VERSYM); vs != nil {
		if vt.versym, vt.names, ok = t.versions(vs, str, strSec); !ok {
			return nil, false
		}
		defer putVerTable(vt.names)
		vt.n, vt.off = len(vt.versym), vs.Offset
		if sparse {
			vt.n = int(vs.FileSize)
		}
	}
	n := tableSize/size - 1
	tab := dynsymTable{sec: sec, data: data, size: size, le64: size == elf.Sym64Size && t.bo == binary.LittleEndian}
	if picks := t.opt.picks; len(picks) > 0 && picks[len(picks)-1] < n {
		return t.pickedSymbols(&tab, str, &vt, picks) // the index's
	} else if sparse {
		return nil, false // not the table the index picked from: read it whole
	}
	if t.opt.Index.indexable(t.opt) {
		if out, ok := t.learnSymbols(&tab, str, &vt, n); ok {
			return out, true
		}
	}
	var out []Symbol
	if t.opt.Only == nil {
		out = make([]Symbol, n)
	}
	// With a hash table to ask, only the first unhashed symbols and those
	// found may be kept (gnuhash.go).
	count, unhashed := n, n
	var found []int
	if t.opt.Only != nil && !t.opt.Only.HasPrefixes() {
		if u, f, ok := t.hashPicks(sec, n+1); ok {
			unhashed, found, count = u, f, u+len(f)
		}
	}
	k := 0 // symbols kept
	names := nameCopier{tab: str.tab}
	for j := range count {
		i := j
		if j >= unhashed {
			i = found[j-unhashed]
		}
		// The whole table, read: the common case decoded here, without a
		// call a symbol (a table holds hundreds of thousands).
		var name uint32
		var info, other uint8
		var shndx uint16
		var value, sz uint64
		if tab.le64 {
			name, info, other, shndx, value, sz = le64Symbol(data[(i+1)*elf.Sym64Size : (i+2)*elf.Sym64Size])
		} else {
			name, info, other, shndx, value, sz, _ = t.symbolAt(&tab, i)
		}
		if int(name) >= str.len() {
			t.err = badName(elf.SHT_DYNSYM, i+1, name, strSec.Name, str.len())
			return nil, false
		}
		var s *Symbol
		if t.opt.Only == nil {
			s = &out[k]
			s.Name = names.copy(int(name))
		} else {
			w, at := str.window(int(name))
			if at < 0 {
				return nil, false // the image could not be read there
			}
			keep, ok := t.kept(w, at, elf.SectionIndex(shndx) != elf.SHN_UNDEF)
			if !ok {
				continue
			}
			if k == len(out) {
				out = append(out, Symbol{})
			}
			s = &out[k]
			s.Name = keep
		}
		s.Value, s.Size = value, sz
		s.setAttrs(info, other, shndx)
		var hasVersion bool
		s.SymVersion = nil
		if j := (i + 1) * 2; j+2 <= len(vt.versym) {
			s.SymVersion, hasVersion = vt.version(t, elf.VersionIndex(t.bo.Uint16(vt.versym[j:])))
		}
		if s.versionNode(hasVersion) {
			continue // its slot is reused
		}
		k++
	}
	if t.opt.Index.indexable(t.opt) {
		t.hashes, _ = t.nameHashes(&tab, str.tab, n)
		// The symbols the next read's lookup would pick, kept whole now:
		// the index learns a file in one run, not in two.
		if _, ok := t.pickedSymbols(&tab, str, &vt, t.opt.Index.picksOf(t.opt, t.hashes, t.init)); !ok {
			t.hashes, t.picked, t.err = nil, nil, nil // not learnt: read again next run
		}
	}
	return out[:k:k], true
}

// learnSymbols reads the whole table tab of n symbols for the index
// (Options.Index), as the next read will ask it: the hash of every name
// (nameHashes), the symbols whose hashes are those of a name asked for
// (picksOf), whole (pickedSymbols), and the symbols of those that a read
// with t.opt keeps. A name kept is a name asked for, its hash a hash asked
// for: they are the symbols the scan in symbols keeps, but only the names
// picked are read, not one a symbol (most of a closure's names are never
// touched). The hashes of the symbols the GNU hash table holds are its
// own, as ld.so and the index's later lookups take them. false when a
// name lies outside the string table (the scan reports the first it
// decodes), or the picks could not be read.
func (t *dynTables) learnSymbols(tab *dynsymTable, str *strTable, vt *versionTable, n int) ([]Symbol, bool) {
	hashes, inTable := t.nameHashes(tab, str.tab, n)
	if !inTable {
		return nil, false
	}
	out, ok := t.pickedSymbols(tab, str, vt, t.opt.Index.picksOf(t.opt, hashes, t.init))
	if !ok {
		t.picked, t.err = nil, nil
		return nil, false
	}
	t.hashes = hashes
	return out, true
}

// dynsymTable is the dynamic symbol table being decoded: its section, and
// its bytes when read whole (nil when sparse).
type dynsymTable struct {
	sec  *elf.Section
	data []byte
	size int  // of one entry
	le64 bool // 64-bit little-endian, the common case
}

// versionTable is .gnu.version and the versions it indexes.
type versionTable struct {
	versym []byte // nil when sparse
	n      int    // its size in bytes
	off    uint64 // its offset in the file
	names  []verName
}

// symbolAt decodes symbol i of the table (0 is the first after the null
// symbol); ok is false when the image could not be read there.
func (t *dynTables) symbolAt(tab *dynsymTable, i int) (name uint32, info, other uint8, shndx uint16, value, size uint64, ok bool) {
	var raw []byte
	if tab.data == nil {
		if raw, ok = t.src.read(tab.sec.Offset+uint64((i+1)*tab.size), uint64(tab.size)); !ok {
			return 0, 0, 0, 0, 0, 0, false
		}
	} else {
		raw = tab.data[(i+1)*tab.size : (i+2)*tab.size]
	}
	switch {
	case tab.le64: // without the interface calls
		name, info, other, shndx, value, size = le64Symbol(raw)
	case tab.size == elf.Sym64Size:
		name, info, other, shndx = t.bo.Uint32(raw), raw[4], raw[5], t.bo.Uint16(raw[6:])
		value, size = t.bo.Uint64(raw[8:]), t.bo.Uint64(raw[16:])
	default:
		name = t.bo.Uint32(raw)
		value, size = uint64(t.bo.Uint32(raw[4:])), uint64(t.bo.Uint32(raw[8:]))
		info, other, shndx = raw[12], raw[13], t.bo.Uint16(raw[14:])
	}
	return name, info, other, shndx, value, size, true
}

// le64Symbol decodes a 64-bit little-endian symbol table entry.
func le64Symbol(raw []byte) (name uint32, info, other uint8, shndx uint16, value, size uint64) {
	_ = raw[23]
	return binary.LittleEndian.Uint32(raw), raw[4], raw[5], binary.LittleEndian.Uint16(raw[6:]),
		binary.LittleEndian.Uint64(raw[8:]), binary.LittleEndian.Uint64(raw[16:])
}

// versionOf is the version .gnu.version gives symbol i (which parallels
// .dynsym, null symbol included), and whether it gives one; ok is false
// when the image could not be read there.
func (t *dynTables) versionOf(vt *versionTable, i int) (sv *SymVersion, has, ok bool) {
	j := (i + 1) * 2
	if j+2 > vt.n {
		return nil, false, true
	}
	ve := vt.versym[min(j, len(vt.versym)):]
	if vt.versym == nil {
		if ve, ok = t.src.read(vt.off+uint64(j), 2); !ok {
			return nil, false, false
		}
	}
	sv, has = vt.version(t, elf.VersionIndex(t.bo.Uint16(ve)))
	return sv, has, true
}

// version is what the .gnu.version entry vi stands for, and whether it
// gives a version.
func (vt *versionTable) version(t *dynTables, vi elf.VersionIndex) (*SymVersion, bool) {
	switch ndx := vi.Index(); {
	case ndx <= 1: // local or global, unversioned
		if vi.IsHidden() {
			return hiddenUnversioned, true
		}
		return nil, true
	case int(ndx) < len(vt.names) && vt.names[ndx].known:
		return vt.names[ndx].sym(t, vi.IsHidden()), true
	}
	return nil, false
}

// versionNode reports whether s is a version definition's own symbol
// (absolute, value 0, named as its version), which debug/elf leaves out.
func (s *Symbol) versionNode(hasVersion bool) bool {
	return s.Section() == elf.SHN_ABS && s.Value == 0 && hasVersion && s.Name == s.Version()
}

// pickedSymbols decodes the symbols the index picked (Options.picks), each
// whole, kept or not, in t.picked: the index answers the next read that
// picks no others from them, without the file (Index.learn). The symbols
// returned are those the whole table's read keeps (keptPicks).
func (t *dynTables) pickedSymbols(tab *dynsymTable, str *strTable, vt *versionTable, picks []int) ([]Symbol, bool) {
	t.picked = make([]pickedSymbol, 0, len(picks))
	for _, i := range picks {
		name, info, other, shndx, value, size, ok := t.symbolAt(tab, i)
		if !ok {
			return nil, false
		}
		if int(name) >= str.len() {
			sec := t.f.Sections[tab.sec.Link]
			t.err = badName(elf.SHT_DYNSYM, i+1, name, sec.Name, str.len())
			return nil, false
		}
		w, at := str.window(int(name))
		if at < 0 {
			return nil, false // the image could not be read there
		}
		p := pickedSymbol{index: uint32(i), Symbol: Symbol{Name: strings.Clone(tabString(w, at)), Value: value, Size: size}}
		p.setAttrs(info, other, shndx)
		if p.SymVersion, p.hasVersion, ok = t.versionOf(vt, i); !ok {
			return nil, false
		}
		t.picked = append(t.picked, p)
	}
	return keptPicks(t.picked, t.opt, t.init), true
}

// pickedSymbol is a symbol the index picked, as the table holds it.
type pickedSymbol struct {
	index uint32 // in the table, the null symbol left out
	Symbol
	hasVersion bool // .gnu.version gives it one
}

// keptPicks are the symbols of picked that a read with opt keeps (the
// file's PyInit_ name init), as the whole table's read keeps them
// (keptPick).
func keptPicks(picked []pickedSymbol, opt Options, init string) []Symbol {
	out := make([]Symbol, 0, len(picked)) // at most; a narrowed read keeps nearly all
	for _, p := range picked {
		if s, ok := keptPick(p, opt, init); ok {
			out = append(out, s)
		}
	}
	return clip(out)
}

// keptPick is p as a read with opt keeps it (kept): a name opt asks for,
// not a version node. The name is the set's own copy, or copied: p's may
// be a view of a mapped index.
func keptPick(p pickedSymbol, opt Options, init string) (Symbol, bool) {
	return p.keptAs(opt.keptName(p.Name, p.Section() != elf.SHN_UNDEF, init))
}

// keptAs is p kept under name (keptName's answer: own, a copy made; ok,
// kept at all), unless it is a version node.
func (p pickedSymbol) keptAs(name string, own, ok bool) (Symbol, bool) {
	s := p.Symbol
	if !ok {
		return Symbol{}, false
	}
	if own {
		name = strings.Clone(name)
	}
	s.Name = name
	return s, !s.versionNode(p.hasVersion)
}

// clip is the symbols kept, nil for none (as a read that keeps none).
func clip(out []Symbol) []Symbol {
	if len(out) == 0 {
		return nil
	}
	return out[:len(out):len(out)]
}

// nameHashes returns the GNU hash of the name of each of the n symbols of
// data (the null symbol left out), its low bit replaced by whether the
// symbol is defined, as 4 little-endian bytes each: the hash table's own
// values for the symbols it holds (what ld.so compares a name's hash
// with), computed from the names for the others. A cold read of torch's
// closure takes the hashes of 300,000 symbols: the table's are copied as
// they lie, the names hashed in one pass each. inTable says whether every
// name lies inside str.
func (t *dynTables) nameHashes(tab *dynsymTable, str string, n int) (hashes []byte, inTable bool) {
	data, size := tab.data, tab.size
	out := make([]byte, 4*n)
	h, ok := t.hashTable(tab.sec, n+1)
	hashed := n // the first symbol (counting from 0 after the null one) the table holds
	if ok {
		hashed = int(h.symoff) - 1
	}
	if h.bo == binary.LittleEndian {
		copy(out[4*hashed:], h.chains[:4*(n-hashed)])
	} else {
		for i := hashed; i < n; i++ {
			binary.LittleEndian.PutUint32(out[4*i:], h.bo.Uint32(h.chains[(i-hashed)*4:]))
		}
	}
	for i := range hashed {
		binary.LittleEndian.PutUint32(out[4*i:], nameHash(str, t.bo.Uint32(data[(i+1)*size:]))) // st_name leads both classes' entries
	}
	shndx := 6 // st_shndx's offset in an entry
	if size == elf.Sym32Size {
		shndx = 14
	}
	le := t.bo == binary.LittleEndian
	inTable = true
	for i := range n {
		raw := data[(i+1)*size:]
		var name uint32
		var sec uint16
		if le {
			name, sec = binary.LittleEndian.Uint32(raw), binary.LittleEndian.Uint16(raw[shndx:])
		} else {
			name, sec = t.bo.Uint32(raw), t.bo.Uint16(raw[shndx:])
		}
		inTable = inTable && uint64(name) < uint64(len(str))
		v := out[4*i] &^ 1
		if elf.SectionIndex(sec) != elf.SHN_UNDEF {
			v |= 1
		}
		out[4*i] = v
	}
	return out, inTable
}

// nameHash is symset.GNUHash of the name at off in tab, read to its NUL in
// the same pass; the empty name's outside the table. The hash takes a
// name eight bytes at a time (gnuStep): byte by byte, each byte waits on
// the multiply of the one before, and a cold read of torch's closure
// hashes 1.4 MB of names.
func nameHash(tab string, off uint32) uint32 {
	h := uint32(5381)
	i := int(off)
	for ; i+8 <= len(tab); i += 8 {
		w := uint64(tab[i]) | uint64(tab[i+1])<<8 | uint64(tab[i+2])<<16 | uint64(tab[i+3])<<24 |
			uint64(tab[i+4])<<32 | uint64(tab[i+5])<<40 | uint64(tab[i+6])<<48 | uint64(tab[i+7])<<56
		if z := (w - 0x0101010101010101) &^ w & 0x8080808080808080; z != 0 {
			// The lowest byte z marks is the name's NUL (the bits above
			// it may be wrong): hash what comes before it.
			end := i + bits.TrailingZeros64(z)/8
			for ; i < end; i++ {
				h = h*33 + uint32(tab[i])
			}
			return h
		}
		h = h*gnuPow8 + gnuStep(w)
	}
	for ; i < len(tab) && tab[i] != 0; i++ {
		h = h*33 + uint32(tab[i])
	}
	return h
}

// gnuPow8 is 33 to the 8th, modulo 2^32: what eight bytes more multiply
// a GNU hash by.
const gnuPow8 = 33 * 33 * 33 * 33 * 33 * 33 * 33 * 33 & (1<<32 - 1)

// gnuStep is what the eight bytes of w, the first in its low byte, add to
// a GNU hash after multiplying it by gnuPow8: the sum of each byte times 33
// to the power of the bytes after it, summed in lanes a pair, then four,
// then all eight, none of which overflows into the next.
func gnuStep(w uint64) uint32 {
	const bytes, pairs = 0x00ff00ff00ff00ff, 0x0000ffff0000ffff
	w = (w&bytes)*33 + (w>>8)&bytes       // 16-bit lanes: b0*33 + b1, ...
	w = (w&pairs)*(33*33) + (w>>16)&pairs // 32-bit lanes: b0*33^3 + ... + b3
	return uint32(w)*(33*33*33*33) + uint32(w>>32)
}

// kept says whether the symbol named at off in str, a definition or not,
// is kept (Options.Only, OnlyDefs, ModuleInit), and gives its name: the
// set's own string, or a copy out of the table. Most names are not asked
// for: they are tested where they lie, most by their first bytes, without
// finding their end.
func (t *dynTables) kept(str string, off int, defined bool) (string, bool) {
	only, defs := t.opt.Only, t.opt.OnlyDefs
	if !defined {
		defs = nil
	}
	// Every name is terminated (a table that does not end in a NUL is an
	// error), so MayHaveAt, reading its bytes, rules on each.
	if !only.MayHaveEitherAt(defs, str, off) && (t.init == "" || !strings.HasPrefix(str[off:], t.init)) {
		return "", false
	}
	nm := tabString(str, off)
	c, own, ok := t.opt.keptName(nm, defined, t.init)
	if ok && !own {
		c = strings.Clone(c) // out of the table, which the source's close frees
	}
	return c, ok
}

// keptName says whether a symbol named name (defined or not; init the
// file's PyInit_ name) is kept by opt, and under which string: the set's
// own for a name Only or (a definition) OnlyDefs holds, own false; else
// name itself, own true.
func (opt Options) keptName(name string, defined bool, init string) (kept string, own, ok bool) {
	if c, ok := opt.Only.Member(name); ok {
		return c, false, true
	}
	if defined {
		if c, ok := opt.OnlyDefs.Member(name); ok {
			return c, false, true
		}
	}
	return name, true, opt.keeps(name, defined, init)
}

// badName is the error for the name of symbol index of a table of type typ
// outside its string table.
func badName(typ elf.SectionType, index int, off uint32, tab string, tabLen int) error {
	what := "symbol"
	if typ == elf.SHT_DYNSYM {
		what = "dynamic symbol"
	}
	return fmt.Errorf("malformed ELF: %s %d names offset %#x, outside %s (%d bytes)", what, index, off, tab, tabLen)
}

// nameCopier copies symbol names out of a string table into one string, in
// symbol order. .dynsym is in hash order, so its names are scattered all over
// .dynstr; every later pass over an Object's symbols (exports, references,
// the conflict filters) walks them in symbol order and touches each name, and
// finds them next to each other instead. The copy starts with room for the
// whole table, which the names nearly fill; names that repeat (one name
// under several versions) can overflow it, into a second string.
type nameCopier struct {
	tab string
	buf []byte
}

func (c *nameCopier) copy(start int) string {
	name := tabString(c.tab, start)
	if name == "" {
		return ""
	}
	if len(c.buf)+len(name) > cap(c.buf) {
		c.buf = make([]byte, 0, max(len(c.tab), len(name)))
	}
	i := len(c.buf)
	c.buf = append(c.buf, name...)
	// The bytes are written once, before the string is made, and never again.
	return unsafe.String(&c.buf[i], len(name))
}

// versions reads .gnu.version and the version definitions and needs it
// indexes into, as File.DynamicSymbols does (which reads the latter two only
// when .gnu.version exists). Sparse, .gnu.version is left to be read an
// entry at a time (nil). The table maps a version index to its name and,
// for needs, the library; needs take precedence, then definitions, each in
// file order, first match winning (File.gnuVersion's search order).
func (t *dynTables) versions(vs *elf.Section, str *strTable, strSec *elf.Section) ([]byte, []verName, bool) {
	vd, vn := t.f.SectionByType(elf.SHT_GNU_VERDEF), t.f.SectionByType(elf.SHT_GNU_VERNEED)
	if !plain(vs) || !plain(vd) || !plain(vn) {
		return nil, nil, false
	}
	var versym []byte
	if t.src.sparse {
		if !t.src.inFile(vs) {
			return nil, nil, false
		}
	} else if b, ok := t.src.bytes(vs); ok {
		versym = b
	} else {
		return nil, nil, false
	}
	table := (*verTables.Get().(*[]verName))[:0]
	set := func(ndx uint16, name, library string) {
		if ndx > 0x7fff {
			return // a symbol's index has 15 bits: never matched
		}
		if n := len(table); int(ndx) >= n {
			table = slices.Grow(table, int(ndx)+1-n)[:int(ndx)+1]
			clear(table[n:])
		}
		if !table[ndx].known {
			table[ndx] = verName{known: true, name: name, library: library}
		}
	}
	var records [2][]byte // the definitions' and the needs'
	for k, sec := range []*elf.Section{vd, vn} {
		if sec != nil {
			b, ok := t.src.bytes(sec)
			if !ok {
				return nil, nil, false
			}
			records[k] = b
		}
	}
	if t.err = checkVersionNames(t.bo, records[0], records[1], strSec); t.err != nil {
		return nil, nil, false
	}
	var defs []string // definitions' names: they go in after every need
	var defIndex []uint16
	ok := versionRecords(t.bo, records[0], records[1], func(ndx uint16, name uint32, named bool) {
		n := ""
		if named {
			n = str.string(int(name))
		}
		defs = append(defs, n)
		defIndex = append(defIndex, ndx)
	}, func(ndx uint16, file, name uint32) {
		set(ndx, str.string(int(name)), str.string(int(file)))
	})
	if !ok {
		return nil, nil, false
	}
	for k, name := range defs {
		set(defIndex[k], name, "")
	}
	return versym, table, true
}

// versionRecords walks the version definitions (vd) and needs (vn) as
// File.DynamicSymbols reads them, giving def each definition's index and
// name (its first auxiliary entry's, named false when it has none in the
// section: the others name its parents, which no symbol lookup uses), and
// need each need's index, library and name, as string table offsets. It
// returns false at a record debug/elf rejects.
func versionRecords(bo binary.ByteOrder, vd, vn []byte, def func(ndx uint16, name uint32, named bool), need func(ndx uint16, file, name uint32)) bool {
	for i := 0; i+20 <= len(vd); {
		if bo.Uint16(vd[i:]) != 1 {
			return false // "unexpected dynamic version"
		}
		ndx, cnt := bo.Uint16(vd[i+4:]), bo.Uint16(vd[i+6:])
		aux, next := bo.Uint32(vd[i+12:]), bo.Uint32(vd[i+16:])
		if cnt == 0 {
			return false // "dynamic version has no name"
		}
		if j := i + int(aux); j+8 <= len(vd) {
			def(ndx, bo.Uint32(vd[j:]), true)
		} else {
			def(ndx, 0, false)
		}
		if next == 0 {
			break
		}
		i += int(next)
	}
	for i := 0; i+16 <= len(vn); {
		if bo.Uint16(vn[i:]) != 1 {
			return false // "unexpected dynamic need version"
		}
		cnt, file := int(bo.Uint16(vn[i+2:])), bo.Uint32(vn[i+4:])
		aux, next := bo.Uint32(vn[i+8:]), bo.Uint32(vn[i+12:])
		j := i + int(aux)
		for range cnt {
			if j+16 > len(vn) {
				break
			}
			need(bo.Uint16(vn[j+6:]), file, bo.Uint32(vn[j+8:]))
			vnext := bo.Uint32(vn[j+12:])
			if vnext == 0 {
				break
			}
			j += int(vnext)
		}
		if next == 0 {
			break
		}
		i += int(next)
	}
	return true
}

// checkVersionNames rejects version records (vd, vn: versionRecords')
// whose names lie outside the string table str, which debug/elf reads as
// no version. ld.so reads them there: a need's version that reads as
// another string is "version ... not found", and the library is not
// loaded.
func checkVersionNames(bo binary.ByteOrder, vd, vn []byte, str *elf.Section) error {
	var err error
	outside := func(what string, ndx uint16, off uint32) {
		if err == nil && uint64(off) >= str.Size {
			err = fmt.Errorf("malformed ELF: %s %d names offset %#x, outside %s (%d bytes)", what, ndx, off, str.Name, str.Size)
		}
	}
	versionRecords(bo, vd, vn, func(ndx uint16, name uint32, named bool) {
		if named {
			outside("version definition", ndx, name)
		}
	}, func(ndx uint16, file, name uint32) {
		outside("the library of version need", ndx, file)
		outside("version need", ndx, name)
	})
	return err
}

// dynEntry decodes the dynamic-section entry at the start of data, of
// entry bytes (16 for ELF64, 8 for ELF32).
func dynEntry(bo binary.ByteOrder, data []byte, entry int) (elf.DynTag, uint64) {
	if entry == 16 {
		return elf.DynTag(bo.Uint64(data)), bo.Uint64(data[8:])
	}
	return elf.DynTag(bo.Uint32(data)), uint64(bo.Uint32(data[4:]))
}

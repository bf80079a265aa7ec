package elfobj

import (
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
)

// A wheel entry is never held whole: Parse reads a few tables and, for
// initializers, some code, of images that can be gigabytes. The entry is
// inflated as a stream, in passes, each keeping the byte ranges the
// reader needs as far as the passes before could tell (headPlan from the
// entry's first bytes, sectionPlan from its section headers), and Parse
// reads a sparseImage of them. Its reads outside them are recorded, and
// a pass more keeps those too (widen).

// span is the byte range [off, end) of an entry.
type span struct{ off, end int64 }

func (s span) len() int64 { return s.end - s.off }

// Bounds on what reading one ELF entry keeps.
const (
	// maxPasses bounds the inflations of one entry: the first keeps what
	// the ELF and program headers point at, which in the usual layout is
	// all Parse reads; the second the sections the section headers name,
	// when the first did not keep them; the others the reads Parse missed.
	maxPasses = 4
	// smallEntry is the size up to which an entry is kept whole from the
	// first pass: planning saves nothing worth a second inflation there.
	smallEntry = 4 << 20
	// maxKept is the most bytes of one entry kept at once. The largest
	// real libraries need a fraction of it: libtorch_cpu (120 MB, 84 MB
	// of code) keeps its first segment's 8 MB of tables, and its code
	// for initializers.
	maxKept = 384 << 20
	// maxSpeculative bounds a segment kept on the program headers' word
	// alone, before the section headers say which of it is needed.
	maxSpeculative = 64 << 20
	// maxCode bounds the code sections kept whole for initializers; past
	// it only the blocks the decoder reads are kept (more passes).
	maxCode = 256 << 20
	// shTailKept is how much is kept before the section headers, where
	// linkers put the section name table.
	shTailKept = 64 << 10
	// missBlock is what a missed read in a large section is rounded to:
	// the decoder reads code 64 KiB at a time (codeBlock).
	missBlock = codeBlock
)

// errNotKept is what a sparseImage answers a read outside what it keeps.
var errNotKept = errors.New("bytes not kept by this pass over the entry")

// sparseImage is what one pass kept of an entry of size bytes: the bytes
// of some ranges, sorted and disjoint. It records the reads asked outside
// them.
type sparseImage struct {
	size   int64
	kept   []keptRange
	mu     sync.Mutex
	missed []span
}

type keptRange struct {
	off  int64
	data []byte
}

func (r keptRange) end() int64 { return r.off + int64(len(r.data)) }

// newSparseImage makes room for the ranges want (normalized) of an entry
// of size bytes.
func newSparseImage(size int64, want []span) *sparseImage {
	img := &sparseImage{size: size, kept: make([]keptRange, len(want))}
	for i, s := range want {
		img.kept[i] = keptRange{s.off, make([]byte, s.len())}
	}
	return img
}

// ReadAt serves p from one kept range, or records the read and fails.
func (img *sparseImage) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= img.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := min(int64(len(p)), img.size-off)
	i := sort.Search(len(img.kept), func(i int) bool { return img.kept[i].end() > off })
	if i == len(img.kept) || img.kept[i].off > off || img.kept[i].end() < off+n {
		img.mu.Lock()
		img.missed = append(img.missed, span{off, off + n})
		img.mu.Unlock()
		return 0, errNotKept
	}
	r := img.kept[i]
	copy(p, r.data[off-r.off:off-r.off+n])
	if n < int64(len(p)) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// spans lists what img keeps.
func (img *sparseImage) spans() []span {
	out := make([]span, len(img.kept))
	for i, r := range img.kept {
		out[i] = span{r.off, r.end()}
	}
	return out
}

// fill copies the bytes of chunk, which starts at pos in the entry, into
// the kept ranges from index k on; it returns the first range still to
// fill.
func (img *sparseImage) fill(k int, chunk []byte, pos int64) int {
	end := pos + int64(len(chunk))
	for i := k; i < len(img.kept) && img.kept[i].off < end; i++ {
		r := img.kept[i]
		if lo, hi := max(r.off, pos), min(r.end(), end); lo < hi {
			copy(r.data[lo-r.off:], chunk[lo-pos:hi-pos])
		}
	}
	for k < len(img.kept) && img.kept[k].end() <= end {
		k++
	}
	return k
}

// normalize clips spans to [0, size), sorts and merges them.
func normalize(spans []span, size int64) []span {
	var out []span
	for _, s := range spans {
		s.off, s.end = max(s.off, 0), min(s.end, size)
		if s.off < s.end {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	merged := out[:0]
	for _, s := range out {
		if n := len(merged); n > 0 && s.off <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

func total(spans []span) int64 {
	var n int64
	for _, s := range spans {
		n += s.len()
	}
	return n
}

// covers says whether every byte of want is in have (both normalized).
func covers(have, want []span) bool {
	for _, w := range want {
		i := sort.Search(len(have), func(i int) bool { return have[i].end > w.off })
		if i == len(have) || have[i].off > w.off || have[i].end < w.end {
			return false
		}
	}
	return true
}

// headPlan is what the first pass keeps, from the entry's head alone: the
// head itself, the program and section header tables (and the section
// names before the latter), the dynamic segment, and whole the segments
// that hold what Parse reads in the usual layout: the first (the dynamic
// symbol, string, hash, version and relocation tables), the writable ones
// (.init_array, the GOT), and with initializers the code ones.
func headPlan(head []byte, opt Options) []span {
	want := []span{{0, int64(len(head))}}
	g, ok := decodeGeometry(head)
	if !ok {
		return want
	}
	want = append(want, span{g.phoff, g.phoff + g.phsize},
		span{g.shoff - min(g.shoff, shTailKept), g.shoff + g.shsize})
	var code int64
	for _, p := range g.progs(head) {
		switch {
		case p.Type == elf.PT_DYNAMIC, p.Type == elf.PT_LOAD && p.Flags&elf.PF_X == 0 && (p.Off == 0 || p.Flags&elf.PF_W != 0):
			if p.Filesz <= maxSpeculative {
				want = append(want, span{int64(p.Off), int64(p.Off + p.Filesz)})
			}
		case p.Type == elf.PT_LOAD && opt.Initializers:
			if code += int64(p.Filesz); code <= maxCode {
				want = append(want, span{int64(p.Off), int64(p.Off + p.Filesz)})
			}
		}
	}
	return want
}

// geometry is where an ELF header puts its tables.
type geometry struct {
	class                elf.Class
	bo                   binary.ByteOrder
	phoff, phsize, phent int64
	shoff, shsize        int64
}

// decodeGeometry reads the ELF header at the start of head. Offsets past
// what an int64 holds read as absent tables.
func decodeGeometry(head []byte) (geometry, bool) {
	if len(head) < 52 || !IsELF(head) {
		return geometry{}, false
	}
	g := geometry{class: elf.Class(head[elf.EI_CLASS]), bo: binary.LittleEndian}
	if elf.Data(head[elf.EI_DATA]) == elf.ELFDATA2MSB {
		g.bo = binary.BigEndian
	}
	var phoff, shoff uint64
	var phent, phnum, shent, shnum uint16
	switch {
	case g.class == elf.ELFCLASS64 && len(head) >= 64:
		phoff, shoff = g.bo.Uint64(head[32:]), g.bo.Uint64(head[40:])
		phent, phnum, shent, shnum = g.bo.Uint16(head[54:]), g.bo.Uint16(head[56:]), g.bo.Uint16(head[58:]), g.bo.Uint16(head[60:])
	case g.class == elf.ELFCLASS32:
		phoff, shoff = uint64(g.bo.Uint32(head[28:])), uint64(g.bo.Uint32(head[32:]))
		phent, phnum, shent, shnum = g.bo.Uint16(head[42:]), g.bo.Uint16(head[44:]), g.bo.Uint16(head[46:]), g.bo.Uint16(head[48:])
	default:
		return geometry{}, false
	}
	if phoff > 1<<62 || shoff > 1<<62 {
		return geometry{}, false
	}
	g.phoff, g.phsize, g.phent = int64(phoff), int64(phent)*int64(phnum), int64(phent)
	g.shoff, g.shsize = int64(shoff), int64(shent)*int64(shnum)
	return g, true
}

// progs decodes the program headers that lie in head.
func (g geometry) progs(head []byte) []elf.ProgHeader {
	want := 56
	if g.class == elf.ELFCLASS32 {
		want = 32
	}
	if g.phent < int64(want) || g.phoff+g.phsize > int64(len(head)) {
		return nil
	}
	var out []elf.ProgHeader
	for off := g.phoff; off < g.phoff+g.phsize; off += g.phent {
		b := head[off:]
		var p elf.ProgHeader
		if g.class == elf.ELFCLASS64 {
			p.Type, p.Flags = elf.ProgType(g.bo.Uint32(b)), elf.ProgFlag(g.bo.Uint32(b[4:]))
			p.Off, p.Filesz = g.bo.Uint64(b[8:]), g.bo.Uint64(b[32:])
		} else {
			p.Type, p.Off = elf.ProgType(g.bo.Uint32(b)), uint64(g.bo.Uint32(b[4:]))
			p.Filesz, p.Flags = uint64(g.bo.Uint32(b[16:])), elf.ProgFlag(g.bo.Uint32(b[24:]))
		}
		if p.Off <= 1<<62 && p.Filesz <= 1<<62 {
			out = append(out, p)
		}
	}
	return out
}

// sectionFile reads the section headers img keeps, or nil when they are
// not kept or malformed (Parse reports that), and where the reads that
// found them missed. Bytes not kept read as zeros: the names may be
// missing still, the headers' types and places are what a plan needs.
func sectionFile(img *sparseImage) (f *elf.File, missed []span) {
	r := &lenient{img: img}
	defer func() {
		if recover() != nil {
			f = nil // a malformed header: Parse reports it
		}
	}()
	f, err := elf.NewFile(r)
	if err != nil {
		return nil, r.missed
	}
	return f, r.missed
}

// lenient serves what img keeps, and zeros for the rest, noting where.
type lenient struct {
	img    *sparseImage
	missed []span
}

func (l *lenient) ReadAt(p []byte, off int64) (int, error) {
	n, err := l.img.ReadAt(p, off)
	if err != errNotKept {
		return n, err
	}
	l.missed = append(l.missed, span{off, off + int64(len(p))})
	clear(p)
	if end := l.img.size - off; end < int64(len(p)) {
		return int(end), io.EOF
	}
	return len(p), nil
}

// sectionPlan is what the sections of f that Parse reads in mode opt
// span: the dynamic reader's tables, relocations, initializer arrays,
// the symbol table, and the string tables they link to. (The section
// names are kept already: f was read from the pass's image.)
func sectionPlan(f *elf.File, opt Options) []span {
	rel := f.Type == elf.ET_REL
	var want []span
	keep := func(i uint32) {
		if int(i) < len(f.Sections) {
			if r, ok := fileRange(f.Sections[i]); ok {
				want = append(want, r)
			}
		}
	}
	for i, s := range f.Sections {
		need := false
		switch s.Type {
		case elf.SHT_DYNSYM, elf.SHT_DYNAMIC, elf.SHT_GNU_HASH, elf.SHT_HASH, elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF,
			elf.SHT_GNU_VERNEED, elf.SHT_INIT_ARRAY, elf.SHT_PREINIT_ARRAY, elf.SHT_SYMTAB_SHNDX:
			need = true
		case elf.SHT_SYMTAB:
			need = rel || opt.Initializers
		case elf.SHT_REL, elf.SHT_RELA:
			// A relocatable object's relocations of debugging sections
			// are most of it and never read.
			need = s.Flags&elf.SHF_ALLOC != 0 && (opt.References || opt.Initializers) ||
				rel && opt.Initializers && !debugTarget(f, s.Info)
		}
		if need {
			keep(uint32(i))
			keep(s.Link)
		}
	}
	return want
}

// debugTarget says whether section i of f holds debugging information.
func debugTarget(f *elf.File, i uint32) bool {
	if int(i) >= len(f.Sections) {
		return false
	}
	n := f.Sections[i].Name
	return len(n) > 6 && n[:6] == ".debug" || len(n) > 10 && n[:10] == ".gnu.debug"
}

// widen turns the reads Parse missed into ranges to keep. A read of code
// keeps all the code sections when they fit in maxCode: the decoder
// follows calls from one into the others (.text into .plt), each a pass
// more if kept one by one. Another read keeps its whole section when
// that fits, else the blocks around it (the decoder reads code a block
// at a time).
func widen(missed []span, f *elf.File) []span {
	out := make([]span, 0, len(missed))
	code := codeSections(f)
	for _, m := range missed {
		sec := fileSection(f, m.off)
		switch {
		case sec == nil:
			out = append(out, m)
		case sec.Flags&elf.SHF_EXECINSTR != 0 && total(code) <= maxCode:
			out = append(out, code...)
		default:
			r, _ := fileRange(sec)
			if r.len() > maxCode {
				r = span{max(r.off, m.off/missBlock*missBlock), max(m.end, min(r.end, (m.end+missBlock-1)/missBlock*missBlock))}
			}
			out = append(out, r)
		}
	}
	return out
}

// codeSections are the file ranges of f's executable sections.
func codeSections(f *elf.File) []span {
	if f == nil {
		return nil
	}
	var out []span
	for _, s := range f.Sections {
		if r, ok := fileRange(s); ok && s.Flags&elf.SHF_EXECINSTR != 0 {
			out = append(out, r)
		}
	}
	return out
}

// fileRange is where a section's bytes lie in the file, if it has any
// (NOBITS sections, and offsets no file reaches, have none).
func fileRange(s *elf.Section) (span, bool) {
	if s.Type == elf.SHT_NOBITS || s.Offset > 1<<62 || s.FileSize > 1<<62 {
		return span{}, false
	}
	return span{int64(s.Offset), int64(s.Offset + s.FileSize)}, true
}

// fileSection is the section of f whose file bytes hold off, if any.
func fileSection(f *elf.File, off int64) *elf.Section {
	if f == nil {
		return nil
	}
	for _, s := range f.Sections {
		if r, ok := fileRange(s); ok && off >= r.off && off < r.end {
			return s
		}
	}
	return nil
}

// keptTooMuch is the error of an entry whose reading would keep more
// than maxKept bytes.
func keptTooMuch(n int64) error {
	return fmt.Errorf("reading it needs %d bytes of it kept in memory, over the limit of %d", n, int64(maxKept))
}

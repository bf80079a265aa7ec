package elfobj

import (
	"bufio"
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"slices"
)

// symTable reads a symbol table (.symtab or .dynsym) an entry at a time,
// and names from its string table on demand, so that indexing a library of
// hundreds of thousands of symbols for its initializers holds neither
// debug/elf's []elf.Symbol nor a string per symbol.
type symTable struct {
	sec, str *elf.Section
	strData  string // the string table, when it is compressed (read whole)
	class    elf.Class
	bo       interface {
		Uint16([]byte) uint16
		Uint32([]byte) uint32
		Uint64([]byte) uint64
	}
}

// tableOf returns the symbol table of type typ and its string table; ok is
// false when f has none.
func tableOf(f *elf.File, typ elf.SectionType) (symTable, bool) {
	sec := f.SectionByType(typ)
	if sec == nil || int(sec.Link) >= len(f.Sections) || sec.Link == 0 {
		return symTable{}, false
	}
	t := symTable{sec: sec, str: f.Sections[sec.Link], class: f.Class, bo: f.ByteOrder}
	if t.str.Flags&elf.SHF_COMPRESSED != 0 {
		// ReadAt would read the compressed bytes: names come from the
		// inflated table instead.
		data, err := t.str.Data()
		if err != nil {
			return symTable{}, false
		}
		t.strData = string(data)
	}
	return t, true
}

func (t symTable) entSize() int {
	if t.class == elf.ELFCLASS64 {
		return elf.Sym64Size
	}
	return elf.Sym32Size
}

// rawSym is one entry of a symbol table, its name an offset.
type rawSym struct {
	name        uint32
	info        uint8
	shndx       uint16
	value, size uint64
}

// each calls fn for every symbol after the null one, with its index.
func (t symTable) each(fn func(i uint32, s rawSym)) error {
	r := bufio.NewReaderSize(t.sec.Open(), 64<<10)
	size := t.entSize()
	buf := make([]byte, size)
	for i := uint32(0); ; i++ {
		if _, err := io.ReadFull(r, buf); err == io.EOF {
			return nil
		} else if err != nil {
			if err == io.ErrUnexpectedEOF {
				return fmt.Errorf("symbol table %s: size is not a multiple of %d", t.sec.Name, size)
			}
			return fmt.Errorf("reading symbol table %s: %w", t.sec.Name, err)
		}
		if i == 0 {
			continue
		}
		fn(i, t.decode(buf))
	}
}

func (t symTable) decode(b []byte) rawSym {
	if t.class == elf.ELFCLASS64 {
		return rawSym{name: t.bo.Uint32(b), info: b[4], shndx: t.bo.Uint16(b[6:]), value: t.bo.Uint64(b[8:]), size: t.bo.Uint64(b[16:])}
	}
	return rawSym{name: t.bo.Uint32(b), value: uint64(t.bo.Uint32(b[4:])), size: uint64(t.bo.Uint32(b[8:])), info: b[12], shndx: t.bo.Uint16(b[14:])}
}

// sym reads entry i.
func (t symTable) sym(i uint32) (rawSym, bool) {
	size := t.entSize()
	off := int64(i) * int64(size)
	if i == 0 || off+int64(size) > int64(t.sec.Size) {
		return rawSym{}, false
	}
	b := make([]byte, size)
	if _, err := t.sec.ReadAt(b, off); err != nil {
		return rawSym{}, false
	}
	return t.decode(b), true
}

// name reads the NUL-terminated name at off in the string table; "" when
// it lies outside the table, as debug/elf reads such a name.
func (t symTable) name(off uint32) string {
	if t.strData != "" {
		return tabString(t.strData, int(off))
	}
	if uint64(off) >= t.str.Size {
		return ""
	}
	var out []byte
	buf := make([]byte, 256)
	for at := int64(off); at < int64(t.str.Size); at += int64(len(buf)) {
		n, err := t.str.ReadAt(buf, at)
		if i := slices.Index(buf[:n], 0); i >= 0 {
			return string(append(out, buf[:i]...))
		}
		out = append(out, buf[:n]...)
		if err != nil {
			break
		}
	}
	return string(out)
}

// funcIndex maps the addresses of an object's defined functions to their
// names and sizes: the symbol table's, then the dynamic table's, the first
// symbol seen at an address winning. Entries are sorted by address; names
// stay in the string tables until asked for.
type funcIndex struct {
	tabs    []symTable
	entries []funcEntry
	named   map[uint64]string // names read so far
}

type funcEntry struct {
	addr, size uint64
	name       uint32
	tab        uint8 // index in tabs
}

func newFuncIndex(tabs ...symTable) (*funcIndex, error) {
	return newSymIndex(func(s rawSym) bool { return elf.ST_TYPE(s.info) == elf.STT_FUNC }, tabs...)
}

// newObjIndex indexes the data objects (what a handoff names).
func newObjIndex(tabs ...symTable) (*funcIndex, error) {
	return newSymIndex(func(s rawSym) bool {
		t := elf.ST_TYPE(s.info)
		return t == elf.STT_OBJECT || t == elf.STT_TLS
	}, tabs...)
}

func newSymIndex(keep func(rawSym) bool, tabs ...symTable) (*funcIndex, error) {
	x := &funcIndex{tabs: tabs, named: map[uint64]string{}}
	n := 0
	for _, t := range tabs {
		n += int(t.sec.FileSize / uint64(t.entSize())) // within the file (checkSections)
	}
	x.entries = make([]funcEntry, 0, n) // at most every symbol: no copies as it grows
	for k, t := range tabs {
		err := t.each(func(_ uint32, s rawSym) {
			if keep(s) && elf.SectionIndex(s.shndx) != elf.SHN_UNDEF && s.value != 0 {
				x.entries = append(x.entries, funcEntry{addr: s.value, size: s.size, name: s.name, tab: uint8(k)})
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// Stable: of the symbols at one address, the first seen stays first.
	slices.SortStableFunc(x.entries, func(a, b funcEntry) int { return cmp.Compare(a.addr, b.addr) })
	x.entries = slices.CompactFunc(x.entries, func(a, b funcEntry) bool { return a.addr == b.addr })
	return x, nil
}

// view is a copy of x for another goroutine: the entries shared, the
// names read so far its own.
func (x *funcIndex) view() *funcIndex {
	return &funcIndex{tabs: x.tabs, entries: x.entries, named: map[uint64]string{}}
}

func (x *funcIndex) find(addr uint64) (*funcEntry, bool) {
	i, ok := slices.BinarySearchFunc(x.entries, addr, func(e funcEntry, a uint64) int { return cmp.Compare(e.addr, a) })
	if !ok {
		return nil, false
	}
	return &x.entries[i], true
}

// name is the name of the function at addr; ok is false when no symbol
// is there.
func (x *funcIndex) name(addr uint64) (string, bool) {
	if n, ok := x.named[addr]; ok {
		return n, true
	}
	e, ok := x.find(addr)
	if !ok {
		return "", false
	}
	n := x.tabs[e.tab].name(e.name)
	x.named[addr] = n
	return n, true
}

// containing is the name of the symbol whose extent holds addr.
func (x *funcIndex) containing(addr uint64) (string, bool) {
	i, ok := slices.BinarySearchFunc(x.entries, addr, func(e funcEntry, a uint64) int { return cmp.Compare(e.addr, a) })
	if !ok {
		if i == 0 {
			return "", false
		}
		i--
		if e := x.entries[i]; addr >= e.addr+e.size {
			return "", false
		}
	}
	return x.name(x.entries[i].addr)
}

// size is the size of the function at addr when its symbol gives one.
func (x *funcIndex) size(addr uint64) (uint64, bool) {
	e, ok := x.find(addr)
	if !ok || e.size == 0 {
		return 0, false
	}
	return e.size, true
}

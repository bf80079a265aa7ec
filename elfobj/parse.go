package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// elfMagic starts every ELF image.
var elfMagic = []byte("\x7fELF")

// IsELF reports whether the header bytes start an ELF image.
func IsELF(head []byte) bool { return bytes.HasPrefix(head, elfMagic) }

// IsELFFile reports whether the file p starts with the ELF magic.
func IsELFFile(p string) bool {
	f, _, err := datafile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(elfMagic))
	n, _ := io.ReadFull(f, head)
	return IsELF(head[:n])
}

// Parse reads one ELF image of size bytes from r. path names it in errors and
// in the Object; dir is what $ORIGIN expands to for it. A crafted image that
// makes debug/elf panic comes back as an error naming path.
//
// Shared objects and executables are read by the dynamic reader
// (dynsym.go); initializers are decoded with debug/elf's File for the
// sections and the symbol tables read an entry at a time (funcindex.go).
func Parse(path, dir string, r io.ReaderAt, size int64, opt Options) (*Object, error) {
	return parse(path, dir, r, size, opt, true)
}

// sparsePicks says whether the symbols picks names are better read one by
// one, each entry, name and version index where it lies (a few system
// calls each), than with the tables whole: when they are few for the
// tables' size. (Mapping the tables instead cost more: every unmapping
// stops the other threads to flush their TLBs, 1.5 ms a conflicts run;
// and on a VM that maps each page-table entry through the hypervisor,
// measured again with the unmappings batched into one, the page faults
// alone, some 600 at 20 to 30 us for torch's closure, cost more than
// copying its 22 MB of tables: a cold conflicts run took 16 ms more CPU.)
func sparsePicks(f *elf.File, picks []int) bool {
	if f == nil || len(picks) == 0 {
		return false
	}
	var size uint64
	for _, s := range dynTableSections(f) {
		if s.Type != elf.SHT_NOBITS && s.Type != elf.SHT_DYNAMIC {
			size += s.FileSize // the dynamic section, in the data segment, is read whole
		}
	}
	// A pick costs three or four reads, a few microseconds: about what
	// copying 32 KB of tables costs.
	return size > max(64<<10, uint64(len(picks))*32<<10)
}

// parse is Parse; with fast false every table is read through debug/elf,
// the reference the dynamic reader is tested against.
func parse(path, dir string, r io.ReaderAt, size int64, opt Options, fast bool) (obj *Object, err error) {
	defer func() {
		if p := recover(); p != nil {
			obj, err = nil, errorf(path, "malformed ELF (reader panicked: %v)", p)
		}
	}()
	var src *sectionSource
	image := r // the whole image, for the relocation sections
	if fast {
		src = newSource(r, size)
		defer src.close()
		if _, read := r.(*headReader); !read { // openHead read it
			r = src.readHead()
		}
	}
	if err := checkHeader(r, size); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	var f *elf.File
	if src != nil {
		f = lightFile(src)
	}
	light := f != nil
	if light {
		src.sparse = sparsePicks(f, opt.picks)
	}
	if !light {
		if f, err = elf.NewFile(r); err != nil {
			return nil, &Error{Path: path, Err: describe(err)}
		}
	}
	if err := checkSections(f, size); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	if err := checkSegments(f, size); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	o := &Object{Path: path, Dir: dir, Class: f.Class, Data: f.Data, Machine: f.Machine, Type: f.Type, Executable: f.Type == elf.ET_EXEC}
	for _, p := range f.Progs {
		// A PIE is ET_DYN too; only a program names an interpreter.
		o.Executable = o.Executable || p.Type == elf.PT_INTERP
		switch {
		case p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0:
			o.writable = append(o.writable, addrRange{p.Vaddr, p.Vaddr + p.Memsz})
		case p.Type == elf.PT_GNU_RELRO:
			o.relro = append(o.relro, addrRange{p.Vaddr, p.Vaddr + p.Memsz})
		}
	}
	var static []elf.Symbol
	fastDone := false
	if f.Type == elf.ET_DYN || f.Type == elf.ET_EXEC {
		if src != nil {
			fastDone, err = readDynsym(f, src, o, opt, path)
		}
		if light && !fastDone && err == nil {
			// The readers below need debug/elf's own File.
			if f, err = elf.NewFile(r); err != nil {
				return nil, &Error{Path: path, Err: describe(err)}
			}
		}
		if !fastDone && err == nil {
			// debug/elf reads the file: first reject what it would accept
			// wrongly, in the order the dynamic reader would.
			err = checkDynamicTables(f)
		}
	}
	switch {
	case err != nil, fastDone:
	case f.Type == elf.ET_REL:
		if err = checkSymbolNames(f, elf.SHT_SYMTAB); err != nil {
			break
		}
		// Read once: the initializers are decoded against the same table.
		if static, err = f.Symbols(); errors.Is(err, elf.ErrNoSymbols) {
			static, err = nil, nil
		}
		if err == nil {
			o.Symbols = staticSymbols(static)
		}
	default:
		err = readDynamic(f, o)
	}
	if err == nil && opt.References && f.Type != elf.ET_REL {
		err = readRefs(f, image, o)
		o.References = err == nil
	}
	if f.Type == elf.ET_REL {
		o.LTO = ltoOnly(f)
	}
	if err == nil && opt.Initializers {
		switch {
		case f.Type == elf.ET_REL:
			o.Initializers, err = relInitializers(f, static)
		case light && fastDone:
			// The dynamic reader's headers have no section readers: the
			// decoder reads sections through debug/elf's own File.
			var full *elf.File
			if full, err = elf.NewFile(r); err == nil {
				o.Initializers, err = dynInitializers(full, opt.maxProcs())
			}
		default:
			o.Initializers, err = dynInitializers(f, opt.maxProcs())
		}
	}
	if err != nil {
		return nil, &Error{Path: path, Err: describe(err)}
	}
	if opt.Only != nil {
		o.Partial = true
		if !fastDone {
			init := opt.initName(path)
			o.Symbols = slices.DeleteFunc(o.Symbols, func(s Symbol) bool { return !opt.keeps(s.Name, s.Defined(), init) })
		}
	}
	return o, nil
}

// ltoOnly reports whether a relocatable object holds GCC's LTO IR and no
// machine code (a "slim" LTO object, GCC's default with -flto).
func ltoOnly(f *elf.File) bool {
	lto := false
	for _, s := range f.Sections {
		switch {
		case strings.HasPrefix(s.Name, ".gnu.lto_"):
			lto = true
		case s.Flags&elf.SHF_EXECINSTR != 0 && s.Size > 0:
			return false
		}
	}
	return lto
}

// checkHeader checks the ELF header's tables against the file size, so that
// a truncated file is reported as such, with the numbers, rather than as the
// EOF of whichever read hit the end first.
func checkHeader(r io.ReaderAt, size int64) error {
	var h [64]byte
	n, _ := r.ReadAt(h[:], 0)
	if n < 52 || (h[elf.EI_CLASS] == byte(elf.ELFCLASS64) && n < 64) {
		return fmt.Errorf("truncated ELF: %d bytes, shorter than the ELF header", size)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h[elf.EI_DATA] == byte(elf.ELFDATA2MSB) {
		bo = binary.BigEndian
	}
	var phoff, shoff uint64
	var phent, phnum, shent, shnum uint16
	switch elf.Class(h[elf.EI_CLASS]) {
	case elf.ELFCLASS64:
		phoff, shoff = bo.Uint64(h[32:]), bo.Uint64(h[40:])
		phent, phnum, shent, shnum = bo.Uint16(h[54:]), bo.Uint16(h[56:]), bo.Uint16(h[58:]), bo.Uint16(h[60:])
	case elf.ELFCLASS32:
		phoff, shoff = uint64(bo.Uint32(h[28:])), uint64(bo.Uint32(h[32:]))
		phent, phnum, shent, shnum = bo.Uint16(h[42:]), bo.Uint16(h[44:]), bo.Uint16(h[46:]), bo.Uint16(h[48:])
	default:
		return fmt.Errorf("malformed ELF: unknown class %d", h[elf.EI_CLASS])
	}
	for _, t := range []struct {
		what       string
		off        uint64
		ent, count uint16
	}{{"program header table", phoff, phent, phnum}, {"section header table", shoff, shent, shnum}} {
		end := t.off + uint64(t.ent)*uint64(t.count)
		if t.count > 0 && (end < t.off || end > uint64(size)) {
			return fmt.Errorf("truncated ELF: %s (offset %#x, %d entries of %d bytes) ends past the end of the file (%d bytes)",
				t.what, t.off, t.count, t.ent, size)
		}
	}
	return nil
}

// checkDynamicTables rejects, before debug/elf reads them, the dynamic
// section and symbol table the dynamic reader rejects (checkDynamic, then
// checkSymbolNames), in its order: debug/elf would read names outside
// their table as empty, and drop the entries they belong to.
func checkDynamicTables(f *elf.File) error {
	if ds := f.SectionByType(elf.SHT_DYNAMIC); ds != nil && plain(ds) {
		str := linkedTable(f, ds)
		data, err := ds.Data()
		if str != nil && err == nil && len(data)%dynEntrySize(f) == 0 {
			if err := checkDynamic(f, data, str, endsInNUL(str)); err != nil {
				return err
			}
		}
	}
	return checkSymbolNames(f, elf.SHT_DYNSYM)
}

// linkedTable is the plain section s links to (its string table), or nil for
// a bad link, which debug/elf reports itself.
func linkedTable(f *elf.File, s *elf.Section) *elf.Section {
	if s.Link == 0 || int(s.Link) >= len(f.Sections) || !plain(f.Sections[s.Link]) {
		return nil
	}
	return f.Sections[s.Link]
}

// endsInNUL reports whether a string table read through debug/elf ends
// in a NUL byte (strTable.terminated).
func endsInNUL(str *elf.Section) bool {
	var last [1]byte
	if str.Size == 0 {
		return true
	}
	_, err := str.ReadAt(last[:], int64(str.Size-1))
	return err != nil || last[0] == 0 // unreadable: debug/elf reports it
}

// checkSymbolNames rejects a symbol table (of type typ) whose string table
// does not end in a NUL or whose names point outside it, which debug/elf
// reads as nameless symbols. The dynamic reader checks the same as it
// decodes.
func checkSymbolNames(f *elf.File, typ elf.SectionType) error {
	sec := f.SectionByType(typ)
	if sec == nil {
		return nil
	}
	str := linkedTable(f, sec)
	if str == nil {
		return nil
	}
	if !endsInNUL(str) {
		return unterminated(str.Name, str.Size)
	}
	if typ == elf.SHT_DYNSYM && f.SectionByType(elf.SHT_GNU_VERSYM) != nil {
		if err := checkVersionSections(f, str); err != nil {
			return err
		}
	}
	data, err := sec.Data()
	if err != nil {
		return nil // debug/elf reports it when it reads the table
	}
	size := elf.Sym32Size
	if f.Class == elf.ELFCLASS64 {
		size = elf.Sym64Size
	}
	for i := 1; (i+1)*size <= len(data); i++ {
		if name := f.ByteOrder.Uint32(data[i*size:]); uint64(name) >= str.Size {
			return badName(typ, i, name, str.Name, int(str.Size))
		}
	}
	return nil
}

// checkVersionSections is checkVersionNames on the version definitions
// and needs, read through debug/elf, when the dynamic reader would read
// them.
func checkVersionSections(f *elf.File, str *elf.Section) error {
	var records [2][]byte
	for k, typ := range []elf.SectionType{elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED} {
		sec := f.SectionByType(typ)
		if sec == nil {
			continue
		}
		if !plain(sec) {
			return nil // the dynamic reader leaves it to debug/elf
		}
		b, err := sec.Data()
		if err != nil {
			return nil // debug/elf reports it
		}
		records[k] = b
	}
	return checkVersionNames(f.ByteOrder, records[0], records[1], str)
}

// dynEntrySize is the size of one dynamic section entry.
func dynEntrySize(f *elf.File) int {
	if f.Class == elf.ELFCLASS64 {
		return 16
	}
	return 8
}

// checkDynamic holds a dynamic section (data, its entries as the file
// holds them) to what the loader needs of it: a DT_NULL to end it, a
// DT_STRTAB inside what a PT_LOAD maps from the file and at the address of
// the string table the section links to (str, whose last byte is NUL when
// terminated), and names (DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH)
// inside that table. glibc's ld.so checks none of these: it reads past the
// section's end, or a name at DT_STRTAB plus the offset wherever that
// lands (another string, another section, an unmapped page), so that such
// a file fails to load, or loads something else, or crashes the process
// (malformed_test.go has what it does with each).
func checkDynamic(f *elf.File, data []byte, str *elf.Section, terminated bool) error {
	entry := dynEntrySize(f)
	null, hasStrtab := false, false
	var strtab, strsz uint64
	var names []dynName
	for i := 0; (i+1)*entry <= len(data); i++ {
		e := data[i*entry:]
		tag, val := dynEntry(f.ByteOrder, e, entry)
		switch tag {
		case elf.DT_NULL:
			null = true
		case elf.DT_STRTAB:
			strtab, hasStrtab = val, true
		case elf.DT_STRSZ:
			strsz = val
		case elf.DT_NEEDED, elf.DT_SONAME, elf.DT_RPATH, elf.DT_RUNPATH:
			names = append(names, dynName{tag, i, val})
		}
	}
	switch {
	case !null:
		return fmt.Errorf("malformed ELF: the dynamic section (%d entries) has no DT_NULL entry to end it", len(data)/entry)
	case !hasStrtab && len(names) > 0:
		return fmt.Errorf("malformed ELF: the dynamic section has %s entries but no DT_STRTAB", names[0].tag)
	case hasStrtab && !loaded(f, strtab, max(strsz, 1)):
		return fmt.Errorf("malformed ELF: DT_STRTAB (address %#x, DT_STRSZ %#x) lies in no loaded segment's file contents", strtab, strsz)
	case hasStrtab && str.Flags&elf.SHF_ALLOC != 0 && str.Addr != strtab:
		return fmt.Errorf("malformed ELF: DT_STRTAB (address %#x) is not the address of %s (%#x), the string table the dynamic section's header links to", strtab, str.Name, str.Addr)
	case !terminated:
		return unterminated(str.Name, str.Size)
	}
	for _, n := range names {
		if n.off >= str.Size {
			return fmt.Errorf("malformed ELF: %s (dynamic entry %d) names offset %#x, outside %s (%d bytes)", n.tag, n.entry, n.off, str.Name, str.Size)
		}
	}
	return nil
}

// dynName is a dynamic entry that names a string.
type dynName struct {
	tag   elf.DynTag
	entry int
	off   uint64
}

// unterminated is the error for a string table whose last byte is not
// NUL: its last string runs past its end (debug/elf reads it as empty).
func unterminated(name string, size uint64) error {
	return fmt.Errorf("malformed ELF: string table %s (%d bytes) does not end in a NUL byte", name, size)
}

// loaded reports whether [addr, addr+n) lies in the file contents of one
// PT_LOAD segment: what the loader maps from the file.
func loaded(f *elf.File, addr, n uint64) bool {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+n >= addr && addr+n <= p.Vaddr+p.Filesz {
			return true
		}
	}
	return false
}

// checkSegments rejects program headers whose contents lie outside the
// file, and a PT_DYNAMIC that no PT_LOAD maps from the file: the loader
// reads the dynamic section at its address (glibc's l_ld is the load
// address plus PT_DYNAMIC's p_vaddr), not at its offset. A segment of no
// file contents (a debug file's: objcopy --only-keep-debug zeroes p_filesz
// with the sections) is not checked.
func checkSegments(f *elf.File, size int64) error {
	for i, p := range f.Progs {
		if end := p.Off + p.Filesz; p.Filesz > 0 && (end < p.Off || end > uint64(size)) {
			return fmt.Errorf("truncated or malformed ELF: program header %d (%s, offset %#x, size %#x) runs past the end of the file (%d bytes)",
				i, p.Type, p.Off, p.Filesz, size)
		}
	}
	for i, p := range f.Progs {
		if p.Type == elf.PT_DYNAMIC && p.Filesz > 0 && !loaded(f, p.Vaddr, p.Filesz) {
			return fmt.Errorf("malformed ELF: program header %d (PT_DYNAMIC, address %#x, size %#x) lies in no loaded segment's file contents",
				i, p.Vaddr, p.Filesz)
		}
	}
	return nil
}

// checkSections rejects headers whose sections lie outside the file before
// anything is allocated for them.
func checkSections(f *elf.File, size int64) error {
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS || s.Type == elf.SHT_NULL {
			continue
		}
		end := s.Offset + s.FileSize
		if end < s.Offset || end > uint64(size) {
			return fmt.Errorf("truncated or malformed ELF: section %q (offset %#x, size %#x) runs past the end of the file (%d bytes)",
				s.Name, s.Offset, s.FileSize, size)
		}
	}
	return nil
}

func readDynamic(f *elf.File, o *Object) error {
	if f.Section(".dynamic") != nil || f.SectionByType(elf.SHT_DYNAMIC) != nil {
		var err error
		if o.Needed, err = f.DynString(elf.DT_NEEDED); err != nil {
			return err
		}
		soname, err := f.DynString(elf.DT_SONAME)
		if err != nil {
			return err
		}
		if len(soname) > 0 {
			o.Soname = soname[0]
		}
		if o.Rpath, err = pathList(f, elf.DT_RPATH); err != nil {
			return err
		}
		if o.Runpath, err = pathList(f, elf.DT_RUNPATH); err != nil {
			return err
		}
	}
	if f.SectionByType(elf.SHT_DYNSYM) == nil {
		return nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return err
	}
	o.Symbols = make([]Symbol, 0, len(syms))
	vs := symVersions{}
	for i := range syms {
		if isVersionNode(&syms[i]) {
			continue
		}
		o.Symbols = append(o.Symbols, vs.convert(&syms[i]))
	}
	return nil
}

// isVersionNode reports whether a dynamic symbol only names a version
// definition (nm -D shows "0000000000000000 A V1"): the linker emits one per
// version node, and it is no definition anyone binds to.
func isVersionNode(s *elf.Symbol) bool {
	return s.Section == elf.SHN_ABS && s.Value == 0 && s.HasVersion && s.Name == s.Version
}

// pathList splits DT_RPATH/DT_RUNPATH values on ':' as ld.so does.
func pathList(f *elf.File, tag elf.DynTag) ([]string, error) {
	vals, err := f.DynString(tag)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ":") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// staticSymbols keeps the non-local symbols of a relocatable object's
// symbol table: what it defines for others and what it needs from them.
func staticSymbols(syms []elf.Symbol) []Symbol {
	if len(syms) == 0 {
		return nil
	}
	out := make([]Symbol, 0, len(syms)/2)
	vs := symVersions{}
	for i := range syms {
		if elf.ST_BIND(syms[i].Info) == elf.STB_LOCAL {
			continue
		}
		out = append(out, vs.convert(&syms[i]))
	}
	return out
}

// symVersions holds one SymVersion per distinct version of a table read
// through debug/elf, for its symbols to share.
type symVersions map[SymVersion]*SymVersion

func (vs symVersions) convert(s *elf.Symbol) Symbol {
	sym := Symbol{Name: s.Name, Value: s.Value, Size: s.Size}
	sym.setAttrs(s.Info, s.Other, uint16(s.Section))
	v := SymVersion{Version: s.Version, Library: s.Library}
	if s.HasVersion {
		v.Hidden = s.VersionIndex.IsHidden()
	}
	if v != (SymVersion{}) {
		p, ok := vs[v]
		if !ok {
			p = &v
			vs[v] = p
		}
		sym.SymVersion = p
	}
	return sym
}

// describe turns debug/elf's errors into messages that say what is wrong with
// the file rather than which read failed.
func describe(err error) error {
	var fe *elf.FormatError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("truncated ELF: %w", err)
	case errors.As(err, &fe):
		return fmt.Errorf("malformed ELF: %w", err)
	}
	return err
}

package elfobj

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io"
)

// What an image's own dynamic relocations say about one of its dynamic
// symbols (Symbol.Relocated, Symbol.Copied). The loader binds relocations,
// not symbol table entries: a definition no relocation of its image names
// is used by that image directly (a call resolved at link time,
// -Bsymbolic, a PC-relative access), so no lookup ever reaches it from
// there; an executable's copy relocation turns a library's variable into
// the executable's own storage, one variable and not two definitions.
const (
	refRelocated uint8 = 1 << iota
	refCopied
)

// copyRelocType is the machine's R_*_COPY, or 0 for a machine without one
// known here.
func copyRelocType(m elf.Machine) uint32 {
	switch m {
	case elf.EM_X86_64:
		return uint32(elf.R_X86_64_COPY)
	case elf.EM_386:
		return uint32(elf.R_386_COPY)
	case elf.EM_AARCH64:
		return uint32(elf.R_AARCH64_COPY)
	case elf.EM_ARM:
		return uint32(elf.R_ARM_COPY)
	case elf.EM_PPC64:
		return uint32(elf.R_PPC64_COPY)
	case elf.EM_PPC:
		return uint32(elf.R_PPC_COPY)
	case elf.EM_S390:
		return uint32(elf.R_390_COPY)
	case elf.EM_RISCV:
		return uint32(elf.R_RISCV_COPY)
	}
	return 0
}

// relocChunk is how many bytes of a relocation section are decoded at a
// time: a large library's .rela.dyn holds megabytes, none of which is kept.
const relocChunk = 64 << 10

// readRefs sets the relocation flags of o's symbols from the dynamic
// relocation sections (SHT_REL/SHT_RELA linked to .dynsym: .rela.dyn,
// .rela.plt). It reads through r, the image itself, by the section
// headers f holds (a lightFile's sections have no readers).
func readRefs(f *elf.File, r io.ReaderAt, o *Object) error {
	dynIdx := -1
	for i, s := range f.Sections {
		if s.Type == elf.SHT_DYNSYM {
			dynIdx = i
			break
		}
	}
	if dynIdx < 0 || len(o.Symbols) == 0 {
		return nil
	}
	symSize := uint64(elf.Sym32Size)
	if f.Class == elf.ELFCLASS64 {
		symSize = elf.Sym64Size
	}
	dynsym := f.Sections[dynIdx]
	nsyms := dynsym.FileSize / symSize
	flags := make([]uint8, nsyms)
	copyType := copyRelocType(f.Machine)
	for _, s := range f.Sections {
		if (s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL) || int(s.Link) != dynIdx {
			continue
		}
		if err := markRelocs(f, r, s, flags, copyType); err != nil {
			return err
		}
	}
	return applyRefs(f, r, dynsym, symSize, flags, o)
}

// markRelocs decodes one relocation section in chunks and sets, per
// symbol index it names, refRelocated and, for copy relocations, refCopied.
func markRelocs(f *elf.File, r io.ReaderAt, s *elf.Section, flags []uint8, copyType uint32) error {
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		return fmt.Errorf("malformed ELF: relocation section %s is compressed", s.Name)
	}
	ent := uint64(relocSize(f.Class, s.Type == elf.SHT_RELA))
	if s.FileSize%ent != 0 {
		return fmt.Errorf("malformed ELF: relocation section %s: size %d is not a multiple of %d", s.Name, s.FileSize, ent)
	}
	buf := make([]byte, min(s.FileSize, relocChunk/ent*ent))
	bo := f.ByteOrder
	for off := uint64(0); off < s.FileSize; {
		chunk := buf[:min(uint64(len(buf)), s.FileSize-off)]
		if _, err := r.ReadAt(chunk, int64(s.Offset+off)); err != nil {
			return fmt.Errorf("truncated ELF: relocation section %s: %w", s.Name, err)
		}
		off += uint64(len(chunk))
		for p := uint64(0); p < uint64(len(chunk)); p += ent {
			var sym, typ uint32
			if f.Class == elf.ELFCLASS64 {
				info := bo.Uint64(chunk[p+8:])
				sym, typ = uint32(info>>32), uint32(info)
			} else {
				info := bo.Uint32(chunk[p+4:])
				sym, typ = info>>8, info&0xff
			}
			if sym == 0 {
				continue // no symbol: RELATIVE, IRELATIVE, a module-local TLS offset
			}
			if uint64(sym) >= uint64(len(flags)) {
				return fmt.Errorf("malformed ELF: relocation section %s names symbol %d of %d", s.Name, sym, len(flags))
			}
			flags[sym] |= refRelocated
			if copyType != 0 && typ == copyType {
				flags[sym] |= refCopied
			}
		}
	}
	return nil
}

// applyRefs copies the flags of .dynsym's entries onto o.Symbols, which
// hold those entries in table order with some left out (the null symbol,
// version nodes, the names Options.Only did not ask for): each Symbol is
// matched to the next entry with its name and value. When none but the
// null symbol was left out (a wheel's object, read whole) the match is
// the table's order, and neither table is read.
func applyRefs(f *elf.File, r io.ReaderAt, dynsym *elf.Section, symSize uint64, flags []uint8, o *Object) error {
	if uint64(len(o.Symbols)) == uint64(len(flags))-1 {
		for k := range o.Symbols {
			o.Symbols[k].refs = flags[k+1]
		}
		return nil
	}
	if int(dynsym.Link) >= len(f.Sections) {
		return fmt.Errorf("malformed ELF: .dynsym links to section %d of %d", dynsym.Link, len(f.Sections))
	}
	strSec := f.Sections[dynsym.Link]
	buf := make([]byte, dynsym.FileSize+strSec.FileSize) // one allocation for both
	table, str := buf[:dynsym.FileSize], buf[dynsym.FileSize:]
	if _, err := r.ReadAt(table, int64(dynsym.Offset)); err != nil {
		return fmt.Errorf("truncated ELF: .dynsym: %w", err)
	}
	if _, err := r.ReadAt(str, int64(strSec.Offset)); err != nil {
		return fmt.Errorf("truncated ELF: %s: %w", strSec.Name, err)
	}
	bo := f.ByteOrder
	k := 0
	for i := uint64(1); i < uint64(len(flags)) && k < len(o.Symbols); i++ {
		raw := table[i*symSize : (i+1)*symSize]
		var value uint64
		if symSize == elf.Sym64Size {
			value = bo.Uint64(raw[8:])
		} else {
			value = uint64(bo.Uint32(raw[4:]))
		}
		s := &o.Symbols[k]
		if value != s.Value || !nameAt(str, int(bo.Uint32(raw)), s.Name) {
			continue
		}
		s.refs = flags[i]
		k++
	}
	if k < len(o.Symbols) {
		return fmt.Errorf("internal error: dynamic symbol %q not found in .dynsym", o.Symbols[k].Name)
	}
	return nil
}

// nameAt reports whether tabString reads name at off in the string table
// tab, comparing in place: no copy of the table, no search for its end.
func nameAt(tab []byte, off int, name string) bool {
	if off < 0 || off >= len(tab) {
		return name == ""
	}
	if name == "" {
		return bytes.IndexByte(tab[off:], 0) <= 0 // an empty string, or none
	}
	end := off + len(name)
	return end < len(tab) && tab[end] == 0 && string(tab[off:end]) == name
}

// ReadReferences sets Symbol.Relocated and Symbol.Copied on an object read
// without Options.References, from its file: a comparison needs them for
// the few libraries that define a symbol in question, not for every
// library of a closure. Only a standalone file (Real set) can be read
// again; for others it returns an error and the flags stay unknown.
func (o *Object) ReadReferences() error {
	if o.References {
		return nil
	}
	if o.Real == "" {
		return errorf(o.Path, "relocations: not a file of its own")
	}
	f, _, err := openHead(o.Real)
	if err != nil {
		return err
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return &Error{Path: o.Path, Err: describe(err)}
	}
	if err := readRefs(ef, f, o); err != nil {
		return &Error{Path: o.Path, Err: err}
	}
	o.References = true
	return nil
}

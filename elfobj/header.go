package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"sync"
)

// shTail is how much lightFile reads before the section headers, for the
// section name table (a few hundred bytes).
const shTail = 1024

// lightFile decodes what the dynamic reader uses of an image's headers
// (file header, program header types, section headers and names) into an
// *elf.File, the way elf.NewFile does but from the bytes src reads into its
// scratch buffer: elf.NewFile allocates a Section, a SectionReader and a
// name per section, a Prog per program header and copies of both tables,
// which for the hundreds of libraries of a closure was a third of what
// reading them allocated.
//
// It accepts only shared objects and executables whose headers elf.NewFile
// would read without complaint and to the same values; for anything else
// (a check elf.NewFile makes failing, extended section numbering, a
// compressed section, a relocatable object) it returns nil and the caller
// uses elf.NewFile, whose answer and error stay the reference. The result
// is only for reading section headers: its sections have no readers (Data
// and Open must not be called), and it lives no longer than src, whose
// header arrays it fills.
func lightFile(src *sectionSource) *elf.File {
	head := src.head()
	if len(head) < 16 || !IsELF(head) || elf.Version(head[elf.EI_VERSION]) != elf.EV_CURRENT {
		return nil
	}
	h := src.headers()
	f := &h.file
	f.Class, f.Data = elf.Class(head[elf.EI_CLASS]), elf.Data(head[elf.EI_DATA])
	f.Version, f.OSABI, f.ABIVersion = elf.EV_CURRENT, elf.OSABI(head[elf.EI_OSABI]), head[elf.EI_ABIVERSION]
	var bo binary.ByteOrder
	switch f.Data {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return nil
	}
	f.ByteOrder = bo
	var phoff, shoff uint64
	var phentsize, phnum, shentsize, shnum, shstrndx int
	var wantPh, wantSh int
	switch f.Class {
	case elf.ELFCLASS64:
		if len(head) < 64 {
			return nil
		}
		f.Type, f.Machine = elf.Type(bo.Uint16(head[16:])), elf.Machine(bo.Uint16(head[18:]))
		if elf.Version(bo.Uint32(head[20:])) != f.Version {
			return nil
		}
		f.Entry = bo.Uint64(head[24:])
		phoff, shoff = bo.Uint64(head[32:]), bo.Uint64(head[40:])
		phentsize, phnum = int(bo.Uint16(head[54:])), int(bo.Uint16(head[56:]))
		shentsize, shnum, shstrndx = int(bo.Uint16(head[58:])), int(bo.Uint16(head[60:])), int(bo.Uint16(head[62:]))
		wantPh, wantSh = 56, 64
	case elf.ELFCLASS32:
		if len(head) < 52 {
			return nil
		}
		f.Type, f.Machine = elf.Type(bo.Uint16(head[16:])), elf.Machine(bo.Uint16(head[18:]))
		if elf.Version(bo.Uint32(head[20:])) != f.Version {
			return nil
		}
		f.Entry = uint64(bo.Uint32(head[24:]))
		phoff, shoff = uint64(bo.Uint32(head[28:])), uint64(bo.Uint32(head[32:]))
		phentsize, phnum = int(bo.Uint16(head[42:])), int(bo.Uint16(head[44:]))
		shentsize, shnum, shstrndx = int(bo.Uint16(head[46:])), int(bo.Uint16(head[48:])), int(bo.Uint16(head[50:]))
		wantPh, wantSh = 32, 40
	default:
		return nil
	}
	if f.Type != elf.ET_DYN && f.Type != elf.ET_EXEC || int64(phoff) < 0 || int64(shoff) < 0 ||
		shnum == 0 || shoff == 0 || shstrndx >= shnum || phnum > 0 && phentsize < wantPh || shentsize < wantSh {
		return nil
	}
	ph, ok := src.read(phoff, uint64(phnum*phentsize))
	if !ok {
		return nil
	}
	progs := grown(h.progs, phnum)
	f.Progs = grown(h.progPtrs, phnum)
	h.progs, h.progPtrs = progs, f.Progs
	for i := range progs {
		b := ph[i*phentsize:]
		p := &progs[i].ProgHeader
		if f.Class == elf.ELFCLASS64 {
			p.Type, p.Flags = elf.ProgType(bo.Uint32(b)), elf.ProgFlag(bo.Uint32(b[4:]))
			p.Off, p.Vaddr, p.Paddr = bo.Uint64(b[8:]), bo.Uint64(b[16:]), bo.Uint64(b[24:])
			p.Filesz, p.Memsz, p.Align = bo.Uint64(b[32:]), bo.Uint64(b[40:]), bo.Uint64(b[48:])
		} else {
			p.Type, p.Off = elf.ProgType(bo.Uint32(b)), uint64(bo.Uint32(b[4:]))
			p.Vaddr, p.Paddr = uint64(bo.Uint32(b[8:])), uint64(bo.Uint32(b[12:]))
			p.Filesz, p.Memsz = uint64(bo.Uint32(b[16:])), uint64(bo.Uint32(b[20:]))
			p.Flags, p.Align = elf.ProgFlag(bo.Uint32(b[24:])), uint64(bo.Uint32(b[28:]))
		}
		if int64(p.Off) < 0 || int64(p.Filesz) < 0 {
			return nil
		}
		f.Progs[i] = &progs[i]
	}
	// The section name table lies just before the section headers, where
	// the linkers put it: one read takes both (shTail).
	lo := shoff - min(shoff, shTail)
	tail, ok := src.read(lo, shoff-lo+uint64(shnum*shentsize))
	if !ok {
		return nil
	}
	sh := tail[shoff-lo:]
	secs := grown(h.secs, shnum)
	f.Sections = grown(h.secPtrs, shnum)
	names := grown(h.names, shnum)
	h.secs, h.secPtrs, h.names = secs, f.Sections, names
	for i := range secs {
		b := sh[i*shentsize:]
		s := &secs[i].SectionHeader
		names[i] = bo.Uint32(b)
		s.Type = elf.SectionType(bo.Uint32(b[4:]))
		if f.Class == elf.ELFCLASS64 {
			s.Flags, s.Addr = elf.SectionFlag(bo.Uint64(b[8:])), bo.Uint64(b[16:])
			s.Offset, s.FileSize = bo.Uint64(b[24:]), bo.Uint64(b[32:])
			s.Link, s.Info = bo.Uint32(b[40:]), bo.Uint32(b[44:])
			s.Addralign, s.Entsize = bo.Uint64(b[48:]), bo.Uint64(b[56:])
		} else {
			s.Flags, s.Addr = elf.SectionFlag(bo.Uint32(b[8:])), uint64(bo.Uint32(b[12:]))
			s.Offset, s.FileSize = uint64(bo.Uint32(b[16:])), uint64(bo.Uint32(b[20:]))
			s.Link, s.Info = bo.Uint32(b[24:]), bo.Uint32(b[28:])
			s.Addralign, s.Entsize = uint64(bo.Uint32(b[32:])), uint64(bo.Uint32(b[36:]))
		}
		if int64(s.Offset) < 0 || int64(s.FileSize) < 0 || s.Flags&elf.SHF_COMPRESSED != 0 {
			return nil
		}
		s.Size = s.FileSize
		f.Sections[i] = &secs[i]
	}
	if shstrndx == 0 {
		return f // no section names
	}
	shstr := f.Sections[shstrndx]
	if shstr.Type != elf.SHT_STRTAB {
		return nil
	}
	var tab []byte
	if end := shstr.Offset + shstr.FileSize; shstr.Offset >= lo && end >= shstr.Offset && end <= shoff {
		tab = tail[shstr.Offset-lo : end-lo]
	} else if tab, ok = src.read(shstr.Offset, shstr.FileSize); !ok {
		return nil
	}
	str := string(tab) // the names outlive src in errors: one copy for all
	for i, s := range f.Sections {
		if s.Name, ok = tabStringOK(str, int(names[i])); !ok {
			return nil
		}
	}
	return f
}

// headerArrays are what lightFile decodes headers into, kept from file to
// file: for a closure's hundreds of libraries they were a megabyte of
// garbage per run.
type headerArrays struct {
	file     elf.File
	progs    []elf.Prog
	progPtrs []*elf.Prog
	secs     []elf.Section
	secPtrs  []*elf.Section
	names    []uint32
}

var headerPool = sync.Pool{New: func() any { return new(headerArrays) }}

// grown returns s with n zero elements, reusing its array when it is large
// enough.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

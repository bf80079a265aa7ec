package elfobj

import (
	"debug/elf"
	"fmt"
)

// reloc is one relocation entry, in either REL or RELA form.
type reloc struct {
	off    uint64 // section offset (relocatable objects) or address (linked objects)
	sym    uint32 // index into the linked symbol table; 0 for none
	typ    uint32
	addend int64 // RELA addend; 0 for REL (the addend is in place)
}

// readRelocs decodes a SHT_RELA or SHT_REL section. debug/elf applies
// relocations only to DWARF and offers no API for them.
func readRelocs(f *elf.File, s *elf.Section) ([]reloc, error) {
	rela := s.Type == elf.SHT_RELA
	ent := relocSize(f.Class, rela)
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("reading relocations %s: %w", s.Name, err)
	}
	if len(data)%ent != 0 {
		return nil, fmt.Errorf("relocation section %s: size %d is not a multiple of %d", s.Name, len(data), ent)
	}
	bo := f.ByteOrder
	out := make([]reloc, 0, len(data)/ent)
	for p := 0; p+ent <= len(data); p += ent {
		var r reloc
		if f.Class == elf.ELFCLASS64 {
			info := bo.Uint64(data[p+8:])
			r = reloc{off: bo.Uint64(data[p:]), sym: uint32(info >> 32), typ: uint32(info)}
			if rela {
				r.addend = int64(bo.Uint64(data[p+16:]))
			}
		} else {
			info := bo.Uint32(data[p+4:])
			r = reloc{off: uint64(bo.Uint32(data[p:])), sym: info >> 8, typ: info & 0xff}
			if rela {
				r.addend = int64(int32(bo.Uint32(data[p+8:])))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// relocSize is the size of one relocation entry.
func relocSize(c elf.Class, rela bool) int {
	switch {
	case c == elf.ELFCLASS64 && rela:
		return 24
	case c == elf.ELFCLASS64:
		return 16
	case rela:
		return 12
	}
	return 8
}

// isInitTable reports whether a section holds constructor pointers.
func isInitTable(s *elf.Section) (string, bool) {
	switch {
	case s.Type == elf.SHT_INIT_ARRAY, s.Name == ".init_array", len(s.Name) > 12 && s.Name[:12] == ".init_array.":
		return ".init_array", true
	case s.Name == ".ctors", len(s.Name) > 7 && s.Name[:7] == ".ctors.":
		return ".ctors", true
	}
	return "", false
}

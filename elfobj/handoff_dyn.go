package elfobj

import (
	"debug/elf"
	"fmt"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// The handoff walker's view of a shared object or executable: addresses are
// virtual addresses, what a RIP-relative operand refers to is the place it
// addresses, or, for a GOT slot, the symbol whose relocation fills it.

func (l *linked) code(addr uint64) ([]byte, bool) {
	s := l.section(addr)
	if s == nil || s.Flags&elf.SHF_EXECINSTR == 0 {
		return nil, false
	}
	// A function without a symbol's size is swept until a return (the
	// walker's rule) within the window.
	end, sized := min(s.Addr+s.Size, addr+handoffWindow), false
	if size, ok := l.funcs.size(addr); ok && addr+size <= s.Addr+s.Size {
		end, sized = addr+size, true
	}
	b, err := l.bytesAt(addr, end-addr)
	if err != nil {
		return nil, false
	}
	return b, sized
}

func (l *linked) memRef(pc uint64, inst x86asm.Inst) (hRef, bool, bool) {
	m, ok := memArg(inst)
	if !ok || m.Base != x86asm.RIP {
		return hRef{}, false, false
	}
	a := uint64(int64(pc) + int64(inst.Len) + m.Disp)
	if i, ok := l.got[a]; ok {
		r, ok := l.dynRef(i)
		return r, true, ok
	}
	if add, ok := l.rel[a]; ok && l.isGOT(a) {
		r, ok := l.refAt(uint64(add))
		return r, true, ok
	}
	r, ok := l.refAt(a)
	return r, false, ok
}

// immRef: a linked object's immediates are not taken for addresses (the
// position-independent code of shared libraries has none).
func (l *linked) immRef(uint64, x86asm.Inst) (hRef, bool) { return hRef{}, false }

func (l *linked) callTarget(pc uint64, inst x86asm.Inst) (hRef, bool) {
	rel, ok := inst.Args[0].(x86asm.Rel)
	if !ok {
		return hRef{}, false
	}
	t := uint64(int64(pc) + int64(inst.Len) + int64(rel))
	if l.inPLT(t) {
		// Through the PLT, also to the object's own exported functions
		// (default visibility, -fPIC): followed into their definition.
		if i, ok := l.got[l.pltSlot(t)]; ok {
			r, ok := l.dynRef(i)
			r.interposable = r.owned
			return r, ok
		}
		return hRef{}, false
	}
	return l.refAt(t)
}

// dynRef is the .dynsym entry i as a reference: the object's own definition
// when it defines the symbol, else a symbol defined elsewhere.
func (l *linked) dynRef(i uint32) (hRef, bool) {
	s, name, ok := l.dynSym(i)
	if !ok {
		return hRef{}, false
	}
	if elf.SectionIndex(s.shndx) == elf.SHN_UNDEF {
		return hRef{name: name}, true
	}
	if elf.ST_TYPE(s.info) == elf.STT_FUNC {
		return hRef{name: name, kind: "function", owned: true, fn: s.value}, true
	}
	return hRef{name: name, kind: dataKind(name), owned: true}, true
}

// refAt names the place at addr in the object: a function, a data symbol
// holding it, or an anonymous place in a data section.
func (l *linked) refAt(addr uint64) (hRef, bool) {
	s := l.sectionAny(addr)
	if s == nil {
		return hRef{}, false
	}
	if s.Flags&elf.SHF_EXECINSTR != 0 {
		if l.inPLT(addr) {
			return hRef{}, false
		}
		return hRef{name: l.name(addr), kind: "function", owned: true, fn: addr}, true
	}
	if name, ok := l.objs.containing(addr); ok && name != "" {
		return hRef{name: name, kind: dataKind(name), owned: true}, true
	}
	kind := anonKind(s)
	if strings.HasPrefix(s.Name, ".eh_frame") || strings.HasPrefix(s.Name, ".gcc_except_table") || s.Name == ".got" || s.Name == ".got.plt" {
		kind = ""
	}
	return hRef{name: fmt.Sprintf("%s+%#x", s.Name, addr-s.Addr), kind: kind, owned: true}, true
}

// sectionAny finds the allocated section holding addr, .bss included.
func (l *linked) sectionAny(addr uint64) *elf.Section {
	if s := l.section(addr); s != nil {
		return s
	}
	for _, s := range l.f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type == elf.SHT_NOBITS && addr >= s.Addr && addr < s.Addr+s.Size {
			return s
		}
	}
	return nil
}

func (l *linked) isGOT(addr uint64) bool {
	s := l.section(addr)
	return s != nil && (s.Name == ".got" || s.Name == ".got.plt")
}

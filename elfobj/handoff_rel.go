package elfobj

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// A relocatable object's code addresses for the handoff walker: the
// section's index above relSecShift, the offset below.
const relSecShift = 40

func relAddr(sec int, off uint64) uint64 { return uint64(sec)<<relSecShift | off }

func relSplit(addr uint64) (int, uint64) {
	return int(addr >> relSecShift), addr & (1<<relSecShift - 1)
}

// x86_64 relocation types the walker resolves operands with.
const (
	rX8664_64            = 1
	rX8664PC32           = 2
	rX8664PLT32          = 4
	rX8664GOTPCREL       = 9
	rX8664_32            = 10
	rX8664_32S           = 11
	rX8664PC64           = 24
	rX8664GOTPCRELX      = 41
	rX8664RexGOTPCRELX   = 42
	rX8664CodeGOTPCRELX4 = 43
)

func (ro *relObject) code(addr uint64) ([]byte, bool) {
	sec, off := relSplit(addr)
	fn := ro.funcAt(sec, off)
	if fn == nil || fn.start != off || sec >= len(ro.f.Sections) {
		return nil, false
	}
	data, err := ro.sectionData(sec)
	if err != nil || fn.end > uint64(len(data)) || fn.start >= fn.end {
		return nil, false
	}
	return data[fn.start:fn.end], true
}

func (ro *relObject) sectionData(sec int) ([]byte, error) {
	if d, ok := ro.data[sec]; ok {
		return d, nil
	}
	d, err := ro.f.Sections[sec].Data()
	if err != nil {
		return nil, err
	}
	ro.data[sec] = d
	return d, nil
}

// relocsIn returns the relocations applied inside the instruction at pc.
func (ro *relObject) relocsIn(pc uint64, n int) []reloc {
	sec, off := relSplit(pc)
	rs := ro.relocs[sec]
	i := sort.Search(len(rs), func(i int) bool { return rs[i].off >= off })
	j := i
	for j < len(rs) && rs[j].off < off+uint64(n) {
		j++
	}
	return rs[i:j]
}

func relocWidth(typ uint32) uint64 {
	if typ == rX8664_64 || typ == rX8664PC64 {
		return 8
	}
	return 4
}

func hasImm(inst x86asm.Inst) bool {
	for _, a := range inst.Args {
		if _, ok := a.(x86asm.Imm); ok {
			return true
		}
	}
	return false
}

// operandReloc picks the relocation of an instruction's immediate (imm) or
// of its displacement: an immediate is the instruction's last field.
func (ro *relObject) operandReloc(pc uint64, inst x86asm.Inst, imm bool) (reloc, bool) {
	_, off := relSplit(pc)
	end := off + uint64(inst.Len)
	withImm := hasImm(inst)
	for _, r := range ro.relocsIn(pc, inst.Len) {
		last := r.off+relocWidth(r.typ) == end
		if imm == (withImm && last) {
			return r, true
		}
	}
	return reloc{}, false
}

func (ro *relObject) memRef(pc uint64, inst x86asm.Inst) (hRef, bool, bool) {
	r, ok := ro.operandReloc(pc, inst, false)
	if !ok {
		return ro.sameSection(pc, inst)
	}
	ref, ok := ro.refOf(pc, inst, r)
	switch r.typ {
	case rX8664GOTPCREL, rX8664GOTPCRELX, rX8664RexGOTPCRELX, rX8664CodeGOTPCRELX4:
		return ref, true, ok
	}
	return ref, false, ok
}

// sameSection resolves a RIP-relative operand the assembler resolved
// itself, without a relocation: a place in the instruction's own section.
func (ro *relObject) sameSection(pc uint64, inst x86asm.Inst) (hRef, bool, bool) {
	m, ok := memArg(inst)
	if !ok || m.Base != x86asm.RIP {
		return hRef{}, false, false
	}
	sec, off := relSplit(pc)
	t := int64(off) + int64(inst.Len) + m.Disp
	if t < 0 {
		return hRef{}, false, false
	}
	if fn := ro.funcAt(sec, uint64(t)); fn != nil {
		return hRef{name: ro.sym(uint32(fn.sym)).Name, kind: "function", owned: true, fn: relAddr(sec, fn.start)}, false, true
	}
	return hRef{}, false, false
}

func memArg(inst x86asm.Inst) (x86asm.Mem, bool) {
	for _, a := range inst.Args {
		if m, ok := a.(x86asm.Mem); ok {
			return m, true
		}
	}
	return x86asm.Mem{}, false
}

func (ro *relObject) immRef(pc uint64, inst x86asm.Inst) (hRef, bool) {
	r, ok := ro.operandReloc(pc, inst, true)
	if !ok {
		return hRef{}, false
	}
	return ro.refOf(pc, inst, r)
}

func (ro *relObject) callTarget(pc uint64, inst x86asm.Inst) (hRef, bool) {
	rel, ok := inst.Args[0].(x86asm.Rel)
	if !ok {
		return hRef{}, false
	}
	if rs := ro.relocsIn(pc, inst.Len); len(rs) > 0 {
		return ro.refOf(pc, inst, rs[len(rs)-1])
	}
	// A call within the section, resolved by the assembler.
	sec, off := relSplit(pc)
	t := uint64(int64(off) + int64(inst.Len) + int64(rel))
	fn := ro.funcAt(sec, t)
	if fn == nil || fn.start != t {
		return hRef{}, false
	}
	return hRef{name: ro.sym(uint32(fn.sym)).Name, kind: "function", owned: true, fn: relAddr(sec, t)}, true
}

// refOf resolves relocation r of the instruction at pc to what it refers
// to: a PC-relative field's addend is relative to the field, the CPU adds
// the displacement to the next instruction's address.
func (ro *relObject) refOf(pc uint64, inst x86asm.Inst, r reloc) (hRef, bool) {
	s := ro.sym(r.sym)
	if s == nil {
		return hRef{}, false
	}
	_, off := relSplit(pc)
	add := r.addend
	switch r.typ {
	case rX8664PC32, rX8664PLT32, rX8664PC64, rX8664GOTPCREL, rX8664GOTPCRELX, rX8664RexGOTPCRELX, rX8664CodeGOTPCRELX4:
		add += int64(off + uint64(inst.Len) - r.off)
	}
	switch {
	case s.Section == elf.SHN_UNDEF:
		return hRef{name: s.Name}, true
	case s.Section == elf.SHN_COMMON:
		return hRef{name: s.Name, kind: "object", owned: true}, true
	case s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(ro.f.Sections):
		return hRef{}, false
	}
	sec := int(s.Section)
	at := s.Value
	if add >= 0 || uint64(-add) <= at {
		at = uint64(int64(at) + add)
	}
	if ro.executable(s.Section) {
		fn := ro.funcAt(sec, at)
		if fn == nil {
			return hRef{}, false
		}
		return hRef{name: ro.sym(uint32(fn.sym)).Name, kind: "function", owned: true, fn: relAddr(sec, fn.start)}, true
	}
	if ro.f.Sections[sec].Flags&elf.SHF_STRINGS != 0 {
		return hRef{name: s.Name, owned: true}, true // a string literal (.L.str, .LC0)
	}
	if elf.ST_TYPE(s.Info) == elf.STT_OBJECT || elf.ST_TYPE(s.Info) == elf.STT_TLS {
		return hRef{name: s.Name, kind: dataKind(s.Name), owned: true}, true
	}
	// A section symbol, or a local label (.LC0) the assembler kept for a
	// reference into a merged section: the data symbol there, if any.
	if name := ro.dataName(sec, at); name != "" {
		return hRef{name: name, kind: dataKind(name), owned: true}, true
	}
	name := s.Name
	if name == "" || elf.ST_TYPE(s.Info) == elf.STT_SECTION {
		name = fmt.Sprintf("%s+%#x", ro.f.Sections[sec].Name, at)
	}
	return hRef{name: name, kind: anonKind(ro.f.Sections[sec]), owned: true}, true
}

// anonKind says whether an unnamed place in a data section is an object a
// registration could hand over: merged strings and read-only constants are
// not; writable and relocated read-only data (.data.rel.ro) are.
func anonKind(s *elf.Section) string {
	if s.Flags&(elf.SHF_MERGE|elf.SHF_STRINGS) != 0 || strings.HasPrefix(s.Name, ".rodata") {
		return ""
	}
	return "object"
}

// dataName is the data symbol of section sec that holds offset off, or "".
func (ro *relObject) dataName(sec int, off uint64) string {
	spans := ro.objects[sec]
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start > off }) - 1
	if i >= 0 && (off < spans[i].end || off == spans[i].start) {
		return ro.sym(uint32(spans[i].sym)).Name
	}
	return ""
}

// indexObjects records the extent of every named data symbol.
func (ro *relObject) indexObjects() {
	for i := range ro.syms {
		s := &ro.syms[i]
		if elf.ST_TYPE(s.Info) != elf.STT_OBJECT || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		ro.objects[int(s.Section)] = append(ro.objects[int(s.Section)], fnSpan{sym: i + 1, start: s.Value, end: s.Value + s.Size})
	}
	for _, spans := range ro.objects {
		sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	}
}

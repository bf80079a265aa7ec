package elfobj

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// maxDepth bounds how deep initializers are followed through the object's
// own functions (initializer -> __static_initialization_and_destruction_0 ->
// a registrar's constructor -> ...).
const maxDepth = 12

// relObject indexes a relocatable object for following its initializers.
type relObject struct {
	f      *elf.File
	syms   []elf.Symbol     // index i is symbol i+1, as debug/elf returns them
	relocs map[int][]reloc  // by target section index, sorted by offset
	funcs  map[int][]fnSpan // by section index, sorted by start
	// objects are the named data symbols, by section, sorted by start;
	// data the sections' bytes read so far (for the handoff walk).
	objects map[int][]fnSpan
	data    map[int][]byte
}

type fnSpan struct {
	sym        int // symbol index
	start, end uint64
}

// relInitializers finds the initializers of a relocatable object from its
// .init_array/.ctors relocations, and what each calls from the relocations
// inside its code: exact, since these are the references the linker
// resolves. syms is f's symbol table (f.Symbols()).
func relInitializers(f *elf.File, syms []elf.Symbol) ([]Initializer, error) {
	if len(syms) == 0 {
		return nil, nil
	}
	ro, err := newRelObject(f, syms)
	if err != nil {
		return nil, err
	}

	var out []Initializer
	seen := map[int]bool{}
	for i, s := range f.Sections {
		source, ok := isInitTable(s)
		if !ok {
			continue
		}
		for _, r := range ro.relocs[i] {
			fn, name := ro.target(r.sym, r.addend)
			in := Initializer{Function: name, Source: source, Method: "relocations"}
			if fn != nil {
				seen[fn.sym] = true
				in.Calls = ro.calls(*fn)
				ro.handoffs(&in, int(ro.sym(uint32(fn.sym)).Section), fn.start)
			}
			out = append(out, in)
		}
	}
	// A _GLOBAL__sub_I_ function no table names (stripped tables, odd
	// toolchains) is still an initializer by the C++ ABI's naming.
	secs := make([]int, 0, len(ro.funcs))
	for sec := range ro.funcs {
		secs = append(secs, sec)
	}
	sort.Ints(secs)
	for _, sec := range secs {
		for _, sp := range ro.funcs[sec] {
			name := ro.sym(uint32(sp.sym)).Name
			if !seen[sp.sym] && strings.HasPrefix(name, "_GLOBAL__sub_I_") {
				in := Initializer{Function: name, Source: "symbol", Method: "relocations", Calls: ro.calls(sp)}
				ro.handoffs(&in, sec, sp.start)
				out = append(out, in)
			}
		}
	}
	return out, nil
}

// handoffs walks the initializer at sec+off for what it hands to code
// outside the object (x86_64; other machines' initializers are left
// undecided).
func (ro *relObject) handoffs(in *Initializer, sec int, off uint64) {
	if ro.f.Machine != elf.EM_X86_64 {
		in.Undecided = fmt.Sprintf("%s code is not decoded for what it hands on", MachineName(ro.f.Machine))
		return
	}
	hs, truncated := newHandoffWalk(ro).run(relAddr(sec, off))
	in.Handoffs = hs
	if truncated {
		in.Undecided = "the decoding budget ran out"
	}
}

// newRelObject indexes f's relocations, functions and data symbols.
func newRelObject(f *elf.File, syms []elf.Symbol) (*relObject, error) {
	ro := &relObject{f: f, syms: syms, relocs: map[int][]reloc{}, funcs: map[int][]fnSpan{},
		objects: map[int][]fnSpan{}, data: map[int][]byte{}}
	for _, s := range f.Sections {
		if s.Type != elf.SHT_RELA && s.Type != elf.SHT_REL {
			continue
		}
		rs, err := readRelocs(f, s)
		if err != nil {
			return nil, err
		}
		ro.relocs[int(s.Info)] = append(ro.relocs[int(s.Info)], rs...)
	}
	for sec := range ro.relocs {
		rs := ro.relocs[sec]
		sort.Slice(rs, func(i, j int) bool { return rs[i].off < rs[j].off })
	}
	ro.indexFuncs()
	ro.indexObjects()
	return ro, nil
}

func (ro *relObject) sym(i uint32) *elf.Symbol {
	if i == 0 || int(i) > len(ro.syms) {
		return nil
	}
	return &ro.syms[i-1]
}

// indexFuncs records every function's extent in its section.
func (ro *relObject) indexFuncs() {
	for i := range ro.syms {
		s := &ro.syms[i]
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		end := s.Value + s.Size
		if s.Size == 0 {
			if int(s.Section) < len(ro.f.Sections) {
				end = ro.f.Sections[s.Section].Size
			}
		}
		ro.funcs[int(s.Section)] = append(ro.funcs[int(s.Section)], fnSpan{sym: i + 1, start: s.Value, end: end})
	}
	for _, spans := range ro.funcs {
		sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	}
}

// funcAt finds the function of section sec that contains off.
func (ro *relObject) funcAt(sec int, off uint64) *fnSpan {
	spans := ro.funcs[sec]
	i := sort.Search(len(spans), func(i int) bool { return spans[i].start > off }) - 1
	if i >= 0 && off < spans[i].end {
		return &spans[i]
	}
	return nil
}

// target resolves a relocation's symbol and addend to a function of this
// object. Section-relative references (.text.startup + 0) name the section's
// function at that offset; a PC-relative call's addend is 4 short of it on
// x86_64, so that offset is tried too.
func (ro *relObject) target(symIdx uint32, addend int64) (*fnSpan, string) {
	s := ro.sym(symIdx)
	if s == nil {
		return nil, ""
	}
	if elf.ST_TYPE(s.Info) == elf.STT_SECTION {
		for _, off := range []int64{addend, addend + 4} {
			if off >= 0 {
				if fn := ro.funcAt(int(s.Section), s.Value+uint64(off)); fn != nil {
					return fn, ro.sym(uint32(fn.sym)).Name
				}
			}
		}
		return nil, ""
	}
	if s.Section != elf.SHN_UNDEF && s.Section < elf.SHN_LORESERVE {
		if fn := ro.funcAt(int(s.Section), s.Value); fn != nil && fn.start == s.Value {
			return fn, s.Name
		}
	}
	return nil, s.Name
}

// calls lists what fn references, following the object's own functions.
func (ro *relObject) calls(fn fnSpan) []string {
	var out []string
	seenName := map[string]bool{}
	visited := map[fnSpan]bool{}
	var walk func(fn fnSpan, depth int)
	walk = func(fn fnSpan, depth int) {
		if visited[fn] || depth > maxDepth {
			return
		}
		visited[fn] = true
		sec := ro.sym(uint32(fn.sym)).Section
		rs := ro.relocs[int(sec)]
		i := sort.Search(len(rs), func(i int) bool { return rs[i].off >= fn.start })
		relocated := map[uint64]bool{}
		for ; i < len(rs) && rs[i].off < fn.end; i++ {
			relocated[rs[i].off] = true
			callee, name := ro.target(rs[i].sym, rs[i].addend)
			if s := ro.sym(rs[i].sym); s != nil && elf.ST_TYPE(s.Info) != elf.STT_SECTION && name != "" && !seenName[name] {
				seenName[name] = true
				out = append(out, name)
			}
			if callee != nil && ro.executable(ro.sym(uint32(callee.sym)).Section) {
				walk(*callee, depth+1)
			}
		}
		// Calls within one section need no relocation: the assembler
		// resolves them (at -O0, _GLOBAL__sub_I_ calls the static-init
		// function this way).
		for _, t := range ro.localCalls(int(sec), fn, relocated) {
			if callee := ro.funcAt(int(sec), t); callee != nil {
				if name := ro.sym(uint32(callee.sym)).Name; name != "" && !seenName[name] {
					seenName[name] = true
					out = append(out, name)
				}
				walk(*callee, depth+1)
			}
		}
	}
	walk(fn, 0)
	return out
}

func (ro *relObject) executable(sec elf.SectionIndex) bool {
	return int(sec) < len(ro.f.Sections) && ro.f.Sections[sec].Flags&elf.SHF_EXECINSTR != 0
}

// localCalls decodes fn's code for direct calls and jumps whose target field
// carries no relocation, and returns their targets (section offsets).
func (ro *relObject) localCalls(sec int, fn fnSpan, relocated map[uint64]bool) []uint64 {
	if sec >= len(ro.f.Sections) {
		return nil
	}
	data, err := ro.f.Sections[sec].Data()
	if err != nil || fn.end > uint64(len(data)) || fn.start >= fn.end {
		return nil
	}
	var out []uint64
	code := data[fn.start:fn.end]
	switch ro.f.Machine {
	case elf.EM_X86_64:
		for pc := 0; pc < len(code); {
			inst, err := x86asm.Decode(code[pc:], 64)
			if err != nil || inst.Len == 0 {
				pc++ // not an instruction start we understand; resynchronise
				continue
			}
			if rel, ok := inst.Args[0].(x86asm.Rel); ok && (inst.Op == x86asm.CALL || inst.Op == x86asm.JMP) {
				field := fn.start + uint64(pc+inst.Len-4)
				if !relocated[field] {
					out = append(out, uint64(int64(fn.start)+int64(pc+inst.Len)+int64(rel)))
				}
			}
			pc += inst.Len
		}
	case elf.EM_AARCH64:
		for pc := 0; pc+4 <= len(code); pc += 4 {
			in := ro.f.ByteOrder.Uint32(code[pc:])
			if (in>>26 == 0b100101 || in>>26 == 0b000101) && !relocated[fn.start+uint64(pc)] {
				out = append(out, uint64(int64(fn.start)+int64(pc)+signExtend(in&(1<<26-1), 26)<<2))
			}
		}
	}
	return out
}

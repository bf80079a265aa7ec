package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"sort"
	"sync"
	"sync/atomic"

	"golang.org/x/arch/x86/x86asm"
)

// Relocation types the PLT/GOT resolution and DT_INIT_ARRAY reading need.
const (
	rX8664GlobDat  = 6
	rX8664JumpSlot = 7
	rX8664Relative = 8
	rA64GlobDat    = 1025
	rA64JumpSlot   = 1026
	rA64Relative   = 1027
)

// Bounds on decoding. A function without a symbol size is swept until a
// return no earlier branch jumps past; a jump farther than window is taken
// for a tail call or a cold block and followed as a function of its own.
// perInitializer and decodeBudget bound the instructions decoded per initializer
// and per object (torch's libraries have hundreds of initializers whose call
// graphs fan out into the library; each function is decoded once).
const (
	// maxLinkedDepth is shallower than maxDepth: a registration sits a few
	// calls below the initializer (initializer, static-init function, a
	// registrar's constructor), and deeper direct calls in a linked object
	// are library internals that only cost time.
	maxLinkedDepth = 6
	maxInsns       = 1 << 14
	window         = 1 << 14
	perInitializer = 1 << 16
	decodeBudget   = 1 << 22
)

// linked indexes a shared object or executable for following initializers
// through its machine code.
type linked struct {
	f    *elf.File
	exec []*elf.Section      // executable sections, by address
	data map[blockKey][]byte // sections' bytes, a block at a time
	// dynSyms are the .dynsym entries read so far, with their names.
	dynSyms map[uint32]namedSym
	got     map[uint64]uint32 // GOT slot -> the .dynsym index its JUMP_SLOT/GLOB_DAT relocation names
	dyn     symTable          // .dynsym, for those names
	rel     map[uint64]int64  // address -> RELATIVE addend
	funcs   *funcIndex        // function address -> symbol name and size
	objs    *funcIndex        // data object address -> symbol name and size (handoffs)
	isPLT   map[*elf.Section]bool
	inits   []Initializer
	// decoded caches each function's call targets and GOT slots.
	decoded map[uint64]decoded
	// spent counts instructions decoded, against decodeBudget.
	spent     int
	truncated bool
	last      *elf.Section // the section section() found last
}

type decoded struct{ targets, slots []uint64 }

// dynInitializers finds DT_INIT and the DT_INIT_ARRAY entries of a linked
// object and decodes each function to see what it calls: direct calls are
// followed into the object's own functions; calls into the PLT and through
// the GOT are resolved to the symbol whose JUMP_SLOT or GLOB_DAT relocation
// fills the slot. x86_64 is decoded with golang.org/x/arch's x86asm; aarch64
// with the handful of fixed-width encodings that matter (BL, B, B.cond, CBZ,
// TBZ, ADRP+LDR, RET). Calls through function pointers computed at run time
// are not seen. Other machines fall back to listing every imported function.
func dynInitializers(f *elf.File, workers int) ([]Initializer, error) {
	arr, _ := dynValue(f, elf.DT_INIT_ARRAY)
	arrSize, _ := dynValue(f, elf.DT_INIT_ARRAYSZ)
	initFn, hasInit := dynValue(f, elf.DT_INIT)
	if arrSize == 0 && !hasInit {
		return nil, nil
	}
	l := newLinked(f)
	if err := l.index(); err != nil {
		return nil, err
	}
	var entries []uint64
	if arrSize > 0 {
		slots, err := l.pointers(arr, arrSize)
		if err != nil {
			return nil, fmt.Errorf("DT_INIT_ARRAY at %#x: %w", arr, err)
		}
		entries = slots
	}
	method := "disassembly"
	var imported []string
	var walkAt []uint64 // x86_64 initializers, walked together
	if f.Machine != elf.EM_X86_64 && f.Machine != elf.EM_AARCH64 {
		method = "imports"
		var err error
		if imported, err = l.imports(); err != nil {
			return nil, err
		}
	}
	add := func(addr uint64, source string) {
		if addr == 0 || addr == ^uint64(0) { // unused slots hold 0 or -1
			return
		}
		in := Initializer{Function: l.name(addr), Source: source, Method: method}
		switch {
		case method == "imports":
			in.Calls = imported
		case f.Machine == elf.EM_X86_64:
			// One walk finds both what the initializer calls and what
			// it hands on: walkAll, below.
			walkAt = append(walkAt, addr)
		default:
			in.Calls = l.calls(addr)
			if l.truncated {
				in.Method = "disassembly (truncated: decoding budget spent)"
			}
			in.Undecided = fmt.Sprintf("%s code is not decoded for what it hands on", MachineName(f.Machine))
		}
		l.inits = append(l.inits, in)
	}
	if hasInit {
		add(initFn, "DT_INIT")
	}
	for _, e := range entries {
		add(e, "DT_INIT_ARRAY")
	}
	if len(walkAt) > 0 {
		l.walkAll(walkAt, workers)
	}
	return l.inits, nil
}

// walkAll walks the x86_64 initializers (l.inits, at addrs) for what they
// call and hand on, on up to two of workers (the processors the read was
// given: Options.Procs), each with its own caches over the shared index
// (libLLVM's 600 initializers take most of a retention run otherwise). The object's budget is applied afterwards, in table
// order, so that the answer does not depend on the workers: an initializer
// is walked when the walks before it spent less than the budget. A worker
// skips one only when the finished walks, all of them earlier in the
// table, have spent it already.
func (l *linked) walkAll(addrs []uint64, workers int) {
	type result struct {
		hs                []Handoff
		calls             []string
		spent             int
		walked, truncated bool
	}
	res := make([]result, len(addrs))
	workers = min(workers, 2, len(addrs))
	var next, spent atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value // a worker's panic, raised again here for the file's recover
	views := []*linked{l}   // made before any worker starts: l changes as it walks
	for range workers - 1 {
		views = append(views, l.view())
	}
	for _, v := range views {
		insts := map[uint64]x86asm.Inst{} // the worker's decoded instructions
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					failed.Store(fmt.Sprint(p))
				}
			}()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(addrs) {
					return
				}
				if spent.Load() >= decodeBudget {
					continue
				}
				w := newHandoffWalk(v)
				w.internal, w.called, w.insts, w.maxInsts = true, map[string]bool{}, insts, maxCachedInsts/workers
				hs, truncated := w.run(addrs[i])
				spent.Add(int64(w.spent))
				res[i] = result{hs, w.calls, w.spent, true, truncated}
			}
		})
	}
	wg.Wait()
	if p := failed.Load(); p != nil {
		panic(p)
	}
	total := 0
	base := len(l.inits) - len(addrs)
	for i, r := range res {
		in := &l.inits[base+i]
		if total >= decodeBudget || !r.walked {
			in.Undecided = "the decoding budget ran out"
		} else {
			total += r.spent
			in.Handoffs, in.Calls = r.hs, r.calls
			if r.truncated {
				in.Undecided = "the decoding budget ran out"
			}
		}
		if in.Undecided != "" {
			in.Method = "disassembly (truncated: decoding budget spent)"
		}
	}
}

// view is a worker's copy of l: the index shared, the caches its own.
func (l *linked) view() *linked {
	v := *l
	v.data, v.dynSyms, v.decoded, v.last, v.inits = map[blockKey][]byte{}, map[uint32]namedSym{}, map[uint64]decoded{}, nil, nil
	v.funcs, v.objs = l.funcs.view(), l.objs.view()
	return &v
}

func newLinked(f *elf.File) *linked {
	return &linked{f: f, data: map[blockKey][]byte{}, dynSyms: map[uint32]namedSym{}, got: map[uint64]uint32{}, rel: map[uint64]int64{},
		isPLT: map[*elf.Section]bool{}, decoded: map[uint64]decoded{}}
}

func dynValue(f *elf.File, tag elf.DynTag) (uint64, bool) {
	vals, err := f.DynValue(tag)
	if err != nil || len(vals) == 0 {
		return 0, false
	}
	return vals[0], true
}

// imports lists the functions the object imports: what an initializer could
// call when its code cannot be decoded.
func (l *linked) imports() ([]string, error) {
	var out []string
	err := l.dyn.each(func(_ uint32, s rawSym) {
		if elf.SectionIndex(s.shndx) == elf.SHN_UNDEF && elf.ST_TYPE(s.info) == elf.STT_FUNC {
			if n := l.dyn.name(s.name); n != "" {
				out = append(out, n)
			}
		}
	})
	return out, err
}

// index reads the relocations, symbols and executable sections.
func (l *linked) index() error {
	slot, rel := uint32(rX8664JumpSlot), uint32(rX8664Relative)
	glob := uint32(rX8664GlobDat)
	if l.f.Machine == elf.EM_AARCH64 {
		slot, rel, glob = rA64JumpSlot, rA64Relative, rA64GlobDat
	}
	var tabs []symTable
	// Prefer the full symbol table: it names local functions and gives sizes.
	if t, ok := tableOf(l.f, elf.SHT_SYMTAB); ok {
		tabs = append(tabs, t)
	}
	dyn, hasDyn := tableOf(l.f, elf.SHT_DYNSYM)
	if hasDyn {
		l.dyn = dyn
		tabs = append(tabs, dyn)
	}
	nDyn := uint32(0)
	if hasDyn {
		nDyn = uint32(dyn.sec.Size / uint64(dyn.entSize()))
	}
	for _, s := range l.f.Sections {
		switch {
		case (s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL) && s.Flags&elf.SHF_ALLOC != 0:
			rs, err := readRelocs(l.f, s)
			if err != nil {
				return err
			}
			for _, r := range rs {
				switch {
				case r.typ == rel:
					l.rel[r.off] = r.addend
				case (r.typ == slot || r.typ == glob) && r.sym > 0 && r.sym < nDyn:
					l.got[r.off] = r.sym
				}
			}
		case s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS:
			l.exec = append(l.exec, s)
			switch s.Name {
			case ".plt", ".plt.sec", ".plt.got", ".iplt":
				l.isPLT[s] = true
			}
		}
	}
	sort.Slice(l.exec, func(i, j int) bool { return l.exec[i].Addr < l.exec[j].Addr })
	var err error
	if l.funcs, err = newFuncIndex(tabs...); err != nil {
		return err
	}
	l.objs, err = newObjIndex(tabs...)
	return err
}

// gotName is the symbol a GOT slot's relocation names ("" for none).
func (l *linked) gotName(slot uint64) string {
	i, ok := l.got[slot]
	if !ok {
		return ""
	}
	_, name, _ := l.dynSym(i)
	return name
}

// dynSym reads .dynsym entry i and its name, once: the decoders ask for
// the same few imports from every initializer.
func (l *linked) dynSym(i uint32) (rawSym, string, bool) {
	if e, ok := l.dynSyms[i]; ok {
		return e.sym, e.name, true
	}
	s, ok := l.dyn.sym(i)
	if !ok {
		return rawSym{}, "", false
	}
	e := namedSym{s, l.dyn.name(s.name)}
	l.dynSyms[i] = e
	return e.sym, e.name, true
}

type namedSym struct {
	sym  rawSym
	name string
}

// pointers reads the n bytes of pointers at addr; a zero slot with a
// RELATIVE relocation takes the relocation's addend (aarch64's ld does not
// write addends in place).
func (l *linked) pointers(addr, n uint64) ([]uint64, error) {
	w := uint64(4)
	if l.f.Class == elf.ELFCLASS64 {
		w = 8
	}
	if n%w != 0 || n > 1<<20 {
		return nil, fmt.Errorf("size %d is not a plausible pointer array", n)
	}
	var out []uint64
	for a := addr; a < addr+n; a += w {
		b, err := l.bytesAt(a, w)
		if err != nil {
			return nil, err
		}
		v := word(b, int(w), l.f.ByteOrder)
		if add, ok := l.rel[a]; ok {
			v = uint64(add)
		}
		out = append(out, v)
	}
	return out, nil
}

// section finds the allocated section holding addr.
func (l *linked) section(addr uint64) *elf.Section {
	if s := l.last; s != nil && addr >= s.Addr && addr < s.Addr+s.Size {
		return s
	}
	for _, s := range l.f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && addr >= s.Addr && addr < s.Addr+s.Size {
			l.last = s
			return s
		}
	}
	return nil
}

// bytesAt returns n bytes at addr (or fewer at the end of the section, or
// of the block that holds addr). Sections are read a block at a time, as
// the decoder reaches them: a library's code can be hundreds of megabytes,
// of which its initializers touch a few pages.
func (l *linked) bytesAt(addr, n uint64) ([]byte, error) {
	s := l.section(addr)
	if s == nil {
		return nil, fmt.Errorf("address %#x is in no section", addr)
	}
	off := addr - s.Addr
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		d, ok := l.data[blockKey{s, 0}]
		if !ok {
			var err error
			if d, err = s.Data(); err != nil {
				return nil, err
			}
			l.data[blockKey{s, 0}] = d
		}
		if off >= uint64(len(d)) {
			return nil, fmt.Errorf("address %#x is past the data of %s", addr, s.Name)
		}
		return d[off:min(off+n, uint64(len(d)))], nil
	}
	if off >= s.Size {
		return nil, fmt.Errorf("address %#x is past the data of %s", addr, s.Name)
	}
	// A read that crosses a block boundary is served by the two blocks
	// joined: callers ask for at most an instruction or a function.
	first, last := off/codeBlock, (min(off+n, s.Size)-1)/codeBlock
	if first == last {
		b, err := l.block(s, first)
		if err != nil {
			return nil, err
		}
		start := off - first*codeBlock
		return b[start:min(start+n, uint64(len(b)))], nil
	}
	out := make([]byte, 0, min(n, s.Size-off))
	for i := first; i <= last; i++ {
		b, err := l.block(s, i)
		if err != nil {
			return nil, err
		}
		lo := uint64(0)
		if i == first {
			lo = off - first*codeBlock
		}
		out = append(out, b[lo:min(uint64(len(b)), lo+n-uint64(len(out)))]...)
	}
	return out, nil
}

// codeBlock is how much of a section bytesAt reads at a time.
const codeBlock = 64 << 10

type blockKey struct {
	s *elf.Section
	i uint64
}

func (l *linked) block(s *elf.Section, i uint64) ([]byte, error) {
	k := blockKey{s, i}
	if b, ok := l.data[k]; ok {
		return b, nil
	}
	b := make([]byte, min(codeBlock, s.Size-i*codeBlock))
	if _, err := s.ReadAt(b, int64(i*codeBlock)); err != nil && err != io.EOF {
		return nil, err
	}
	l.data[k] = b
	return b, nil
}

func (l *linked) name(addr uint64) string {
	if n, ok := l.funcs.name(addr); ok && n != "" {
		return n
	}
	return fmt.Sprintf("%#x", addr)
}

func (l *linked) inPLT(addr uint64) bool {
	s := l.section(addr)
	return s != nil && l.isPLT[s]
}

// calls decodes the function at addr and those it calls directly, breadth
// first so that the shallow calls (where registrations sit) are seen before
// any budget runs out.
func (l *linked) calls(addr uint64) []string {
	var out []string
	seen := map[string]bool{}
	note := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	type item struct {
		addr  uint64
		depth int
	}
	queue := []item{{addr, 0}}
	visited := map[uint64]bool{addr: true}
	start := l.spent
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if l.spent-start >= perInitializer || l.spent >= decodeBudget {
			l.truncated = true
			break
		}
		d, ok := l.decoded[it.addr]
		if !ok {
			if l.f.Machine == elf.EM_X86_64 {
				d.targets, d.slots = l.sweepX86(it.addr, maxInsns)
			} else {
				d.targets, d.slots = l.sweepA64(it.addr, maxInsns)
			}
			l.decoded[it.addr] = d
		}
		for _, s := range d.slots {
			note(l.gotName(s))
		}
		for _, t := range d.targets {
			if l.inPLT(t) {
				note(l.gotName(l.pltSlot(t)))
				continue
			}
			if n, ok := l.funcs.name(t); ok {
				note(n)
			}
			if !visited[t] && it.depth < maxLinkedDepth {
				visited[t] = true
				queue = append(queue, item{t, it.depth + 1})
			}
		}
	}
	return out
}

// pltSlot decodes the PLT entry at addr to the GOT slot it jumps through.
func (l *linked) pltSlot(addr uint64) uint64 {
	if l.f.Machine == elf.EM_X86_64 {
		_, slots := l.sweepX86(addr, 4)
		if len(slots) > 0 {
			return slots[0]
		}
		return 0
	}
	_, slots := l.sweepA64(addr, 4)
	if len(slots) > 0 {
		return slots[0]
	}
	return 0
}

// limit is where a linear sweep from addr must stop at the latest: the end
// of the function's symbol, or of its section.
func (l *linked) limit(addr uint64) uint64 {
	s := l.section(addr)
	if s == nil {
		return addr
	}
	end := s.Addr + s.Size
	if size, ok := l.funcs.size(addr); ok && addr+size < end {
		end = addr + size
	}
	return end
}

// near reports whether a jump from a function at addr to t stays inside it:
// within its symbol's extent, or, without one, within window bytes.
func (l *linked) near(addr, t, end uint64) bool {
	if _, ok := l.funcs.size(addr); !ok {
		end = min(end, addr+window)
	}
	return t >= addr && t < end
}

// sweepX86 decodes linearly from addr. It returns call and tail-call
// targets and the GOT slots of indirect calls and jumps (call *x(%rip)). A
// return ends the sweep unless a branch seen earlier jumps past it.
func (l *linked) sweepX86(addr uint64, max int) (targets, slots []uint64) {
	end := l.limit(addr)
	reach := addr
	for pc, n := addr, 0; pc < end && n < max; n++ {
		l.spent++
		code, err := l.bytesAt(pc, min(16, end-pc))
		if err != nil {
			return
		}
		if len(code) >= 4 && code[0] == 0xf3 && code[1] == 0x0f && code[2] == 0x1e && code[3] == 0xfa {
			pc += 4 // endbr64, which x86asm does not know
			continue
		}
		inst, err := x86asm.Decode(code, 64)
		if err != nil || inst.Len == 0 {
			return
		}
		next := pc + uint64(inst.Len)
		switch inst.Op {
		case x86asm.CALL, x86asm.JMP:
			switch a := inst.Args[0].(type) {
			case x86asm.Rel:
				t := uint64(int64(next) + int64(a))
				if inst.Op == x86asm.CALL || !l.near(addr, t, end) || l.inPLT(t) {
					targets = append(targets, t)
				} else {
					reach = max64(reach, t)
				}
			case x86asm.Mem:
				if a.Base == x86asm.RIP {
					slots = append(slots, uint64(int64(next)+a.Disp))
				}
			}
			if inst.Op == x86asm.JMP && next > reach {
				return
			}
		case x86asm.RET, x86asm.UD2, x86asm.HLT:
			if next > reach {
				return
			}
		default:
			if isX86Branch(inst.Op) {
				if a, ok := inst.Args[0].(x86asm.Rel); ok {
					targets, reach = l.branch(addr, uint64(int64(next)+int64(a)), end, targets, reach)
				}
			}
		}
		pc = next
	}
	return
}

// branch records a conditional branch of the function at addr to t: a near
// target extends the sweep, a far one (a cold block placed elsewhere) is
// decoded as code of its own.
func (l *linked) branch(addr, t, end uint64, targets []uint64, reach uint64) ([]uint64, uint64) {
	if l.near(addr, t, end) {
		return targets, max64(reach, t)
	}
	return append(targets, t), reach
}

func isX86Branch(op x86asm.Op) bool {
	switch op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JG, x86asm.JGE, x86asm.JL,
		x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return true
	}
	return false
}

func max64(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}

// sweepA64 decodes aarch64 code linearly from addr, as sweepX86 does. GOT
// slots come from ADRP xN, page followed by LDR xM, [xN, #off].
func (l *linked) sweepA64(addr uint64, max int) (targets, slots []uint64) {
	end := l.limit(addr)
	reach := addr
	var page [32]uint64
	var hasPage [32]bool
	for pc, n := addr, uint64(0); pc+4 <= end && n < uint64(max); pc, n = pc+4, n+1 {
		l.spent++
		b, err := l.bytesAt(pc, 4)
		if err != nil || len(b) < 4 {
			return
		}
		in := binary.LittleEndian.Uint32(b)
		switch {
		case in>>26 == 0b100101: // BL
			targets = append(targets, pc+uint64(signExtend(in&(1<<26-1), 26)<<2))
		case in>>26 == 0b000101: // B
			t := pc + uint64(signExtend(in&(1<<26-1), 26)<<2)
			if !l.near(addr, t, end) || l.inPLT(t) {
				targets = append(targets, t)
				if pc+4 > reach {
					return
				}
			} else {
				reach = max64(reach, t)
			}
		case in>>24 == 0b01010100, in>>25&0x3f == 0b011010: // B.cond, CBZ/CBNZ
			targets, reach = l.branch(addr, pc+uint64(signExtend(in>>5&(1<<19-1), 19)<<2), end, targets, reach)
		case in>>25&0x3f == 0b011011: // TBZ/TBNZ
			targets, reach = l.branch(addr, pc+uint64(signExtend(in>>5&(1<<14-1), 14)<<2), end, targets, reach)
		case in&0x9f000000 == 0x90000000: // ADRP
			rd := in & 31
			imm := signExtend(in>>29&3|(in>>5&(1<<19-1))<<2, 21) << 12
			page[rd], hasPage[rd] = pc&^0xfff+uint64(imm), true
		case in&0xffc00000 == 0xf9400000: // LDR Xt, [Xn, #imm*8]
			rn := in >> 5 & 31
			if hasPage[rn] {
				slots = append(slots, page[rn]+uint64(in>>10&0xfff)*8)
			}
		case in == 0xd65f03c0, in&0xfffffc1f == 0xd61f0000: // RET, BR Xn
			if pc+4 > reach {
				return
			}
		}
	}
	return
}

func signExtend(v uint32, bits uint) int64 {
	shift := 64 - bits
	return int64(uint64(v)<<shift) >> shift
}

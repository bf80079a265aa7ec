package elfobj

import (
	"strings"

	"golang.org/x/arch/x86/x86asm"

	"github.com/etlink/etlink/demangle"
)

// Handoff is one place where a static initializer hands something its object
// defines to code the object does not define: the address of one of the
// object's functions, vtables, typeinfos or objects passed as an argument to
// a function defined elsewhere (directly, or stored into memory the argument
// points to, as a factory object carries its vtable), or stored into an
// object defined elsewhere. That is what registering is, whatever the
// framework calls its registry; deciding which handoffs register (a
// toolchain runtime's __cxa_atexit does not, a constructor run on the
// object's own variable needs its definition read) is left to the caller,
// which knows who defines the callee.
type Handoff struct {
	// Callee is the function called (mangled, as the object names it), or
	// for a store, the object stored into.
	Callee string `json:"callee"`
	// Arg is the argument's position, 0 for the first; -1 for a store.
	Arg int `json:"arg"`
	// Symbol names what is handed: the object's symbol, or section+offset
	// for an anonymous one.
	Symbol string `json:"symbol"`
	// Kind is function, vtable, typeinfo or object.
	Kind string `json:"kind"`
	// Indirect is true when the address reaches the callee through memory
	// the argument points to rather than as the argument itself.
	Indirect bool `json:"indirect,omitempty"`
	// Receiver is true when the call's first argument is the same symbol:
	// an object handing itself, or a part of itself, to its own method.
	Receiver bool `json:"receiver,omitempty"`
	// Initialized is true, for an object handed as the first argument,
	// when the walk saw it written before the call: a method runs on a
	// constructed object, where a function returning a value writes into
	// a fresh one.
	Initialized bool `json:"initialized,omitempty"`
	// Dereferenced is true when the argument register was used to read or
	// write memory after it was set: a pointer the caller used itself,
	// which is an argument only if the callee declares that many.
	Dereferenced bool `json:"dereferenced,omitempty"`
	// Internal is true for a call the initializer itself makes (or the
	// unit's static-construction function it calls; not deeper) that a linked object's static linker bound to the
	// object's own named function (hidden visibility, --exclude-libs,
	// -Bsymbolic): not a registration by itself, but where a registry
	// another object of the process also defines is called, the object
	// registers into its own copy of it.
	Internal bool `json:"internal,omitempty"`
	// Guard is the guard variable (_ZGV...) the function set before the
	// handoff: a guarded initialization (a template's static data member,
	// an inline variable), which every unit using it carries in one COMDAT
	// group and the process runs once, from whichever unit comes first.
	Guard string `json:"guard,omitempty"`
}

// hRef is a symbol an operand refers to.
type hRef struct {
	name  string
	kind  string // function, vtable, typeinfo, object; "" for what is never handed (strings, constants)
	owned bool   // defined by the object
	// fn is the function's code address, for an owned function.
	fn uint64
	// interposable is set for a call through the object's own PLT: the
	// loader may bind it to another object's definition.
	interposable bool
}

// hval is what the walker knows a register or stack slot holds: the address
// of a known symbol (ref), and an identity (id) that memory stores attach
// to, for a pointer it knows nothing else about (a call's result, an
// incoming argument, a value loaded from memory).
type hval struct {
	ref int32 // index+1 into handoffWalk.refs
	id  int32
}

// codeEnv is what the walker needs of an object: the code of its functions
// and what an instruction's relocated or RIP-relative operands refer to.
// Addresses are the object's own: virtual addresses of a linked object,
// section<<40|offset in a relocatable one.
type codeEnv interface {
	// code returns the function's bytes from addr, and whether its extent
	// is known (a symbol's size) or only bounded (to be swept until a
	// return no earlier branch jumps past).
	code(addr uint64) (b []byte, sized bool)
	// memRef resolves the memory operand of the instruction at pc (its
	// RIP-relative displacement or relocation): got is true when the
	// operand is a GOT slot holding the symbol's address.
	memRef(pc uint64, inst x86asm.Inst) (r hRef, got, ok bool)
	// immRef resolves an instruction's relocated immediate (a 32-bit
	// absolute address in non-PIC code).
	immRef(pc uint64, inst x86asm.Inst) (r hRef, ok bool)
	// target resolves a direct call or jump at pc: the object's own
	// function (own, at addr) or a symbol defined elsewhere.
	callTarget(pc uint64, inst x86asm.Inst) (r hRef, ok bool)
}

// Bounds of the walk: how deep calls into the object's own functions are
// followed, and instructions decoded per initializer.
const (
	handoffDepth  = 6
	handoffInsns  = 1 << 15
	handoffWindow = 1 << 14
)

// handoffWalk follows one initializer through the object's functions,
// tracking which registers and stack slots hold which addresses, and
// records every handoff.
type handoffWalk struct {
	env    codeEnv
	refs   []hRef
	refIdx map[string]int32
	// carry records, for a pointer's identity, the owned symbols stored
	// into the memory it points to; mem what was stored at each offset,
	// for a load of it (a constructor's member, read back).
	carry map[int32][]int32
	mem   map[memKey]hval
	// written marks the owned objects stored into so far.
	written map[int32]bool
	nextID  int32
	out     []Handoff
	seen    map[Handoff]bool
	spent   int
	// active guards against recursion.
	active map[uint64]bool
	// Truncated is set when the budget ran out.
	truncated bool
	// receiver walks a method for what it hands on of its object
	// (Code.HandsOn): calls into the object's own functions are recorded
	// too, and stores into any static storage.
	receiver bool
	// internal records the handoffs to the object's own named functions
	// (Handoff.Internal): set for a linked object, where the object is more
	// than the unit.
	internal bool
	// initDepth is 1 while the walk is in the unit's static-construction
	// function (staticInit), where Internal handoffs are recorded too.
	initDepth int
	// calls lists, for a linked object's initializer, the symbols its walk
	// calls or loads from the GOT (Initializer.Calls), each once.
	calls  []string
	called map[string]bool
	// insts caches decoded instructions by address, shared by the walks
	// of one object (a worker's), up to maxInsts; nil decodes every time.
	insts    map[uint64]x86asm.Inst
	maxInsts int
}

// unitLevel reports whether code at depth is the unit's own initializer:
// the initializer, or the per-unit function it calls to construct the
// unit's statics (GCC's at -O0, clang's).
func (w *handoffWalk) unitLevel(depth int) bool {
	return depth == 0 || depth == w.initDepth
}

// staticInit reports whether fn is a compiler's per-unit function that
// constructs the unit's statics for its initializer (GCC's name is mangled:
// _Z41__static_initialization_and_destruction_0ii).
func staticInit(fn string) bool {
	return strings.Contains(fn, "__static_initialization_and_destruction_") || strings.HasPrefix(fn, "__cxx_global_var_init")
}

// decode decodes the instruction at addr, once per object for the walks
// that share a cache (a linked object's initializers run through the same
// constructors hundreds of times), up to its bound.
func (w *handoffWalk) decode(addr uint64, code []byte) (x86asm.Inst, error) {
	if w.insts == nil {
		return x86asm.Decode(code, 64)
	}
	if inst, ok := w.insts[addr]; ok {
		return inst, nil
	}
	inst, err := x86asm.Decode(code, 64)
	if err == nil && len(w.insts) < w.maxInsts {
		w.insts[addr] = inst
	}
	return inst, err
}

// maxCachedInsts bounds an object's decoded-instruction cache (about
// 100 bytes an entry).
const maxCachedInsts = 1 << 18

// noteCall records a symbol the walk calls or loads the address of.
func (w *handoffWalk) noteCall(name string) {
	if w.called == nil || name == "" || strings.HasPrefix(name, "0x") || w.called[name] {
		return
	}
	w.called[name] = true
	w.calls = append(w.calls, name)
}

func newHandoffWalk(env codeEnv) *handoffWalk {
	return &handoffWalk{env: env, refIdx: map[string]int32{}, carry: map[int32][]int32{}, mem: map[memKey]hval{}, written: map[int32]bool{}, seen: map[Handoff]bool{},
		active: map[uint64]bool{}}
}

// run walks the initializer at addr and returns its handoffs.
func (w *handoffWalk) run(addr uint64) ([]Handoff, bool) {
	w.walk(addr, [6]hval{}, 0)
	return w.out, w.truncated
}

func (w *handoffWalk) intern(r hRef) int32 {
	key := r.name
	if !r.owned {
		key = "\x00" + key
	}
	if i, ok := w.refIdx[key]; ok {
		return i
	}
	w.refs = append(w.refs, r)
	i := int32(len(w.refs))
	w.refIdx[key] = i
	return i
}

func (w *handoffWalk) fresh() hval {
	w.nextID++
	return hval{id: w.nextID}
}

// x86 general-purpose registers, numbered as the ISA encodes them.
const (
	rAX = iota
	rCX
	rDX
	rBX
	rSP
	rBP
	rSI
	rDI
	r8
	r9
	r10
	r11
)

// argRegs are System V's integer argument registers, in order.
var argRegs = [6]int{rDI, rSI, rDX, rCX, r8, r9}

// gpr maps an x86asm register to its 64-bit register's number; wide is
// true for the 64-bit register itself (a narrower write loses the address).
func gpr(r x86asm.Reg) (n int, wide bool) {
	switch {
	case r >= x86asm.RAX && r <= x86asm.R15:
		return int(r - x86asm.RAX), true
	case r >= x86asm.EAX && r <= x86asm.R15L:
		return int(r - x86asm.EAX), false
	case r >= x86asm.AX && r <= x86asm.R15W:
		return int(r - x86asm.AX), false
	case r >= x86asm.AH && r <= x86asm.BH:
		return int(r - x86asm.AH), false
	case r >= x86asm.AL && r <= x86asm.BL:
		return int(r - x86asm.AL), false
	case r >= x86asm.SPB && r <= x86asm.R15B:
		return int(r-x86asm.SPB) + 4, false
	}
	return -1, false
}

type memKey struct {
	id  int32
	off int64
}

type slotKey struct {
	base int
	off  int64
}

// frame is the walker's state inside one function.
type frame struct {
	regs [16]hval
	// based marks the registers used as a memory operand's base since
	// they were written.
	based  [16]bool
	slots  map[slotKey]hval
	pushes []hval
	// outgoing are the stack-pointer slots written since the last call:
	// the stack arguments of the next one.
	outgoing []int64
	// start and end are the function's code: a jump inside it is no call.
	start, end uint64
	// guard is the guard variable the function set last: what it hands
	// on after that is a guarded initialization's (Handoff.Guard).
	guard string
}

// setGuard notes a store into the object's own guard variable: set before
// the guarded initialization runs (GCC, at every -O level).
func (f *frame) setGuard(r hRef) {
	if r.owned && strings.HasPrefix(r.name, "_ZGV") {
		f.guard = r.name
	}
}

// walk follows the function at addr with the given argument values and
// returns what it leaves in rax.
func (w *handoffWalk) walk(addr uint64, args [6]hval, depth int) hval {
	if w.active[addr] || depth > handoffDepth {
		return hval{}
	}
	code, sized := w.env.code(addr)
	if len(code) == 0 {
		return hval{}
	}
	w.active[addr] = true
	defer delete(w.active, addr)
	f := &frame{slots: map[slotKey]hval{}, start: addr, end: addr + uint64(len(code))}
	for i, r := range argRegs {
		f.regs[r] = args[i]
		if f.regs[r] == (hval{}) {
			f.regs[r] = w.fresh()
		}
	}
	reach := 0
	for pc := 0; pc < len(code); {
		if w.receiver && w.handedOn() {
			break // one way the object is handed on is the answer
		}
		if w.spent >= handoffInsns {
			w.truncated = true
			break
		}
		w.spent++
		if len(code)-pc >= 4 && code[pc] == 0xf3 && code[pc+1] == 0x0f && code[pc+2] == 0x1e && code[pc+3] == 0xfa {
			pc += 4 // endbr64, which x86asm does not know
			continue
		}
		inst, err := w.decode(addr+uint64(pc), code[pc:])
		if err != nil || inst.Len == 0 {
			if !sized {
				break
			}
			pc++ // padding or data in the function: resynchronise
			continue
		}
		at := addr + uint64(pc)
		next := pc + inst.Len
		end := w.step(f, at, inst, depth)
		if rel, ok := inst.Args[0].(x86asm.Rel); ok && isX86Branch(inst.Op) || ok && inst.Op == x86asm.JMP {
			if t := next + int(rel); t > reach && t <= len(code) {
				reach = t
			}
		}
		if end && !sized && next > reach {
			break
		}
		if !sized && next > handoffWindow {
			break
		}
		pc = next
	}
	return f.regs[rAX]
}

// step interprets one instruction; it reports whether the instruction ends
// a path (return, jump, trap).
func (w *handoffWalk) step(f *frame, pc uint64, inst x86asm.Inst, depth int) bool {
	if inst.Op != x86asm.LEA && inst.Op != x86asm.NOP {
		for _, a := range inst.Args {
			if m, ok := a.(x86asm.Mem); ok {
				if n, _ := gpr(m.Base); n >= 0 {
					f.based[n] = true
				}
			}
		}
	}
	switch inst.Op {
	case x86asm.MOV:
		v := w.value(f, pc, inst, inst.Args[1])
		w.assign(f, pc, inst, inst.Args[0], v)
	case x86asm.LEA:
		w.setReg(f, inst.Args[0], w.address(f, pc, inst, inst.Args[1]))
	case x86asm.ADD, x86asm.SUB:
		// Pointer arithmetic keeps what the pointer is (vtable+16);
		// anything else computed is unknown.
		if _, imm := inst.Args[1].(x86asm.Imm); !imm {
			w.clobber(f, inst.Args[0])
		}
		if r, _ := inst.Args[0].(x86asm.Reg); r == x86asm.RSP {
			w.dropStack(f)
			f.pushes = f.pushes[:0] // the prologue's saved registers are no arguments
		}
	case x86asm.PUSH:
		f.pushes = append(f.pushes, w.value(f, pc, inst, inst.Args[0]))
	case x86asm.CALL:
		w.call(f, pc, inst, depth)
	case x86asm.JMP:
		if _, mem := inst.Args[0].(x86asm.Mem); mem || w.isTailCall(f, pc, inst) {
			w.call(f, pc, inst, depth)
		}
		return true
	case x86asm.RET, x86asm.UD2, x86asm.HLT:
		return true
	case x86asm.CMP, x86asm.TEST, x86asm.NOP:
	case x86asm.XCHG:
		a, b := inst.Args[0], inst.Args[1]
		va, vb := w.value(f, pc, inst, a), w.value(f, pc, inst, b)
		w.assign(f, pc, inst, a, vb)
		w.assign(f, pc, inst, b, va)
	case x86asm.CQO, x86asm.CDQ, x86asm.CWD, x86asm.MUL, x86asm.IMUL, x86asm.DIV, x86asm.IDIV,
		x86asm.CPUID, x86asm.RDTSC, x86asm.SYSCALL:
		f.regs[rAX], f.regs[rDX], f.regs[rCX], f.regs[rBX] = hval{}, hval{}, hval{}, hval{}
		w.clobber(f, inst.Args[0])
	default:
		if inst.Prefix[0]&(x86asm.PrefixREP|x86asm.PrefixREPN) != 0 || isStringOp(inst.Op) {
			f.regs[rDI], f.regs[rSI], f.regs[rCX] = hval{}, hval{}, hval{}
		}
		w.clobber(f, inst.Args[0])
	}
	return false
}

func isStringOp(op x86asm.Op) bool {
	switch op {
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ, x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ,
		x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ, x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ,
		x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		return true
	}
	return false
}

// isTailCall reports whether a direct jump leaves the function: to a
// place outside the code being walked that resolves to a symbol defined
// elsewhere or to another of the object's functions.
func (w *handoffWalk) isTailCall(f *frame, pc uint64, inst x86asm.Inst) bool {
	rel, ok := inst.Args[0].(x86asm.Rel)
	if !ok {
		return false
	}
	if t := uint64(int64(pc) + int64(inst.Len) + int64(rel)); t >= f.start && t < f.end {
		return false
	}
	r, ok := w.env.callTarget(pc, inst)
	return ok && r.name != ""
}

func (w *handoffWalk) clobber(f *frame, a x86asm.Arg) {
	if r, ok := a.(x86asm.Reg); ok {
		if n, _ := gpr(r); n >= 0 {
			f.regs[n], f.based[n] = hval{}, false
		}
		if r == x86asm.RSP || r == x86asm.ESP {
			w.dropStack(f)
		}
	}
}

// dropStack forgets the stack-pointer-relative slots when the stack pointer
// moves by an amount not tracked.
func (w *handoffWalk) dropStack(f *frame) {
	for k := range f.slots {
		if k.base == rSP {
			delete(f.slots, k)
		}
	}
}

func (w *handoffWalk) setReg(f *frame, a x86asm.Arg, v hval) {
	r, ok := a.(x86asm.Reg)
	if !ok {
		return
	}
	n, wide := gpr(r)
	if n < 0 {
		return
	}
	if !wide && v.ref == 0 {
		v = hval{}
	}
	f.regs[n], f.based[n] = v, false
	if n == rSP {
		w.dropStack(f)
	}
}

// address is what LEA computes for a memory operand.
func (w *handoffWalk) address(f *frame, pc uint64, inst x86asm.Inst, a x86asm.Arg) hval {
	m, ok := a.(x86asm.Mem)
	if !ok {
		return hval{}
	}
	if m.Base == x86asm.RIP || m.Base == 0 && m.Index == 0 {
		if r, got, ok := w.env.memRef(pc, inst); ok && !got {
			return hval{ref: w.intern(r)}
		}
		return hval{}
	}
	if n, _ := gpr(m.Base); n >= 0 && m.Index == 0 && n != rSP && n != rBP {
		return f.regs[n] // a pointer into the same thing (this + 8)
	}
	return hval{}
}

// value is what reading a operand yields.
func (w *handoffWalk) value(f *frame, pc uint64, inst x86asm.Inst, a x86asm.Arg) hval {
	switch a := a.(type) {
	case x86asm.Reg:
		n, wide := gpr(a)
		if n < 0 {
			return hval{}
		}
		if !wide {
			if v := f.regs[n]; v.ref != 0 {
				return v // a 32-bit absolute address (non-PIC)
			}
			return hval{}
		}
		return f.regs[n]
	case x86asm.Imm:
		if r, ok := w.env.immRef(pc, inst); ok {
			return hval{ref: w.intern(r)}
		}
		return hval{}
	case x86asm.Mem:
		if a.Base == x86asm.RIP || a.Base == 0 && a.Index == 0 {
			if r, got, ok := w.env.memRef(pc, inst); ok && got {
				w.noteCall(r.name)
				return hval{ref: w.intern(r)}
			}
			return w.fresh()
		}
		n, _ := gpr(a.Base)
		switch {
		case n < 0 || a.Index != 0:
		case n == rSP || n == rBP:
			if v, ok := f.slots[slotKey{n, a.Disp}]; ok {
				return v
			}
		case f.regs[n].id != 0:
			if v, ok := w.mem[memKey{f.regs[n].id, a.Disp}]; ok {
				return v
			}
		}
		return w.fresh()
	}
	return hval{}
}

// assign writes v to a register or memory operand.
func (w *handoffWalk) assign(f *frame, pc uint64, inst x86asm.Inst, dst x86asm.Arg, v hval) {
	switch d := dst.(type) {
	case x86asm.Reg:
		w.setReg(f, d, v)
	case x86asm.Mem:
		w.store(f, pc, inst, d, v)
	}
}

// owned lists the owned symbols v hands on: its own address, or those
// stored into what it points to.
func (w *handoffWalk) owned(v hval) (refs []int32, indirect bool) {
	if v.ref != 0 {
		if r := w.refs[v.ref-1]; r.owned && r.kind != "" {
			return []int32{v.ref}, false
		}
		return nil, false
	}
	if v.id != 0 {
		return w.carry[v.id], true
	}
	return nil, false
}

// store records a write of v to memory.
func (w *handoffWalk) store(f *frame, pc uint64, inst x86asm.Inst, m x86asm.Mem, v hval) {
	if m.Base == x86asm.RIP || m.Base == 0 && m.Index == 0 {
		r, got, ok := w.env.memRef(pc, inst)
		if ok && !got && (!r.owned || w.receiver) {
			w.hand(f, r.name, -1, v, false, false)
		}
		if ok && !got && r.owned {
			w.written[w.intern(r)] = true
			f.setGuard(r)
		}
		return
	}
	n, _ := gpr(m.Base)
	if n < 0 {
		return
	}
	if (n == rSP || n == rBP) && m.Index == 0 {
		f.slots[slotKey{n, m.Disp}] = v
		if n == rSP {
			f.outgoing = append(f.outgoing, m.Disp)
		}
		return
	}
	base := f.regs[n]
	switch {
	case base.ref != 0:
		w.written[base.ref] = true
		f.setGuard(w.refs[base.ref-1])
		if r := w.refs[base.ref-1]; !r.owned || w.receiver && r.name != Receiver {
			w.hand(f, r.name, -1, v, false, false) // through the GOT into an object defined elsewhere, or static storage
		}
	case base.id != 0:
		refs, _ := w.owned(v)
		for _, r := range refs {
			w.addCarry(base.id, r)
		}
		if m.Index == 0 && len(w.mem) < 1<<12 {
			w.mem[memKey{base.id, m.Disp}] = v
		}
	}
}

func (w *handoffWalk) addCarry(id, ref int32) {
	c := w.carry[id]
	for _, x := range c {
		if x == ref {
			return
		}
	}
	if len(c) < 8 {
		w.carry[id] = append(c, ref)
	}
}

// handedOn reports whether a receiver walk has seen its object handed on.
func (w *handoffWalk) handedOn() bool {
	for _, h := range w.out {
		if h.Symbol == Receiver && h.Arg != 0 {
			return true
		}
	}
	return false
}

// hand records a handoff of v to callee at arg, made in frame f (after
// f.guard, a guarded initialization's), internal for a call the static
// linker bound to the object's own function.
func (w *handoffWalk) hand(f *frame, callee string, arg int, v hval, dereferenced, internal bool) {
	refs, indirect := w.owned(v)
	for _, ri := range refs {
		r := w.refs[ri-1]
		h := Handoff{Callee: callee, Arg: arg, Symbol: r.name, Kind: r.kind, Indirect: indirect, Dereferenced: dereferenced, Internal: internal, Guard: f.guard}
		if !w.seen[h] {
			w.seen[h] = true
			w.out = append(w.out, h)
		}
	}
}

// call follows a call into the object's own function, or records what is
// handed to a function defined elsewhere.
func (w *handoffWalk) call(f *frame, pc uint64, inst x86asm.Inst, depth int) {
	var r hRef
	var ok bool
	switch inst.Args[0].(type) {
	case x86asm.Rel:
		r, ok = w.env.callTarget(pc, inst)
	case x86asm.Mem:
		var got bool
		r, got, ok = w.env.memRef(pc, inst)
		ok = ok && got
	}
	if ok {
		w.noteCall(r.name)
	}
	var args [6]hval
	for i, reg := range argRegs {
		args[i] = f.regs[reg]
	}
	ret := hval{}
	switch {
	case ok && r.owned && demangle.Library(r.name):
		// The implementation's own code instantiated here (std::regex's
		// compiler, a std::map's insert): it registers nothing.
	case ok && r.owned && r.fn != 0 && w.receiver:
		receiver := args[0]
		args[0] = hval{} // what a method run on the object does is followed, not counted
		w.handArgs(f, r.name, args, false)
		args[0] = receiver
		ret = w.walk(r.fn, args, depth+1)
	case ok && r.owned && r.fn != 0 && (!r.interposable || !w.handArgs(f, r.name, args, false)):
		if w.internal && w.unitLevel(depth) && !r.interposable && !strings.HasPrefix(r.name, "0x") {
			w.handArgs(f, r.name, args, true)
		}
		if depth == 0 && staticInit(r.name) {
			w.initDepth = 1
		}
		ret = w.walk(r.fn, args, depth+1)
		if depth == 0 {
			w.initDepth = 0
		}
	case ok && !r.owned:
		w.handArgs(f, r.name, args, false)
	}
	f.pushes, f.outgoing = f.pushes[:0], f.outgoing[:0]
	for _, reg := range []int{rAX, rCX, rDX, rSI, rDI, r8, r9, r10, r11} {
		f.regs[reg], f.based[reg] = hval{}, false
	}
	if ret == (hval{}) {
		ret = w.fresh()
	}
	f.regs[rAX] = ret
}

// handArgs records what a call to callee hands over in its register and
// stack arguments (internal: see hand), and reports whether it handed
// anything.
func (w *handoffWalk) handArgs(f *frame, callee string, args [6]hval, internal bool) bool {
	n0 := len(w.out)
	first, _ := w.owned(args[0])
	for i, v := range args {
		w.hand(f, callee, i, v, f.based[argRegs[i]], internal)
	}
	if len(first) > 0 {
		for k := n0; k < len(w.out); k++ {
			h := &w.out[k]
			switch {
			case h.Arg > 0 && !h.Indirect && w.refs[first[0]-1].name == h.Symbol:
				h.Receiver = true
			case h.Arg == 0 && !h.Indirect && args[0].ref != 0 && w.written[args[0].ref]:
				h.Initialized = true
			}
		}
	}
	// Stack arguments: the pushes in reverse, then the slots written at
	// the stack pointer since the last call.
	n := len(args)
	for i := len(f.pushes) - 1; i >= 0; i-- {
		w.hand(f, callee, n, f.pushes[i], false, internal)
		n++
	}
	for _, off := range f.outgoing {
		if off >= 0 && off < 128 {
			w.hand(f, callee, len(args)+int(off/8), f.slots[slotKey{rSP, off}], false, internal)
		}
	}
	return len(w.out) > n0
}

// dataKind classifies a data symbol by name: what a registration can hand
// over. Typeinfo names (_ZTS) are strings.
func dataKind(name string) string {
	switch {
	case strings.HasPrefix(name, "_ZTV"):
		return "vtable"
	case strings.HasPrefix(name, "_ZTI"):
		return "typeinfo"
	case strings.HasPrefix(name, "_ZTS"):
		return ""
	}
	return "object"
}

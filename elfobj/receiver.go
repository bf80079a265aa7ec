package elfobj

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// Receiver is the name the walk gives the object a method runs on.
const Receiver = "<receiver>"

// Code is an object's machine code opened for following its functions:
// a shared library or executable, or one member of an archive. It holds the
// file open until Close.
type Code struct {
	file *os.File
	env  interface {
		codeEnv
		funcAddr(name string) (uint64, bool)
		defines(name string) bool
	}
	machine elf.Machine
}

// OpenCode opens o's file (an archive's member is found by name) for
// HandsOn. Objects inside wheels are not opened: their code is not on disk.
func OpenCode(o *Object) (c *Code, err error) {
	defer func() {
		if p := recover(); p != nil {
			if c != nil {
				c.Close()
			}
			c, err = nil, &Error{Path: o.Path, Err: fmt.Errorf("malformed ELF (reader panicked: %v)", p)}
		}
	}()
	if o.Wheel != "" {
		return nil, &Error{Path: o.Path, Err: fmt.Errorf("inside a wheel: its code is not on disk")}
	}
	path := o.Path
	if o.Archive != "" {
		path = o.Archive
	} else if o.Real != "" {
		path = o.Real
	}
	file, fi, err := datafile.Open(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	c = &Code{file: file}
	var r io.ReaderAt = file
	size := fi.Size()
	if o.Archive != "" {
		a, err := ReadArchive(path, file, size)
		if err != nil {
			c.Close()
			return nil, err
		}
		found := false
		for _, m := range a.Members {
			if m.Name == o.Member && m.External == "" {
				r, size, found = io.NewSectionReader(file, m.DataOffset, m.Size), m.Size, true
				break
			}
		}
		if !found {
			c.Close()
			return nil, errorf(o.Path, "member not found in the archive (or a thin archive's)")
		}
	}
	f, err := elf.NewFile(io.NewSectionReader(r, 0, size))
	if err != nil {
		c.Close()
		return nil, &Error{Path: o.Path, Err: describe(err)}
	}
	c.machine = f.Machine
	if f.Type == elf.ET_REL {
		syms, err := f.Symbols()
		if err != nil {
			c.Close()
			return nil, &Error{Path: o.Path, Err: describe(err)}
		}
		ro, err := newRelObject(f, syms)
		if err != nil {
			c.Close()
			return nil, &Error{Path: o.Path, Err: describe(err)}
		}
		c.env = ro
		return c, nil
	}
	l := newLinked(f)
	if err := l.index(); err != nil {
		c.Close()
		return nil, &Error{Path: o.Path, Err: describe(err)}
	}
	// Names are looked up by value here, not by index: the string table
	// is read once rather than a read a symbol.
	if l.dyn.str != nil && l.dyn.strData == "" {
		if data, err := l.dyn.str.Data(); err == nil {
			l.dyn.strData = string(data)
		}
	}
	c.env = l
	return c, nil
}

// Close closes the file.
func (c *Code) Close() error { return c.file.Close() }

// HandsOn follows the method fn with the object it runs on (its first
// argument) tracked as Receiver, and returns what it hands on of that
// object: passed to a call as a later argument, or stored into memory the
// object does not own (static storage, an object defined elsewhere); and,
// as handoffs at argument 0, the methods defined elsewhere it runs on the
// object, which the caller may read where they are defined. Calls on the
// object into this object's own code are followed, to a bounded depth,
// through its own PLT too. ok is false when fn is not a function of this
// object or its machine is not decoded.
func (c *Code) HandsOn(fn string) (hs []Handoff, undecided string, ok bool) {
	defer func() {
		if recover() != nil {
			hs, undecided, ok = nil, "", false
		}
	}()
	if c.machine != elf.EM_X86_64 {
		return nil, "", false
	}
	addr, found := c.env.funcAddr(fn)
	if !found {
		return nil, "", false
	}
	w := newHandoffWalk(c.env)
	w.receiver = true
	var args [6]hval
	args[0] = hval{ref: w.intern(hRef{name: Receiver, kind: "object", owned: true})}
	w.walk(addr, args, 0)
	var out []Handoff
	for _, h := range w.out {
		if h.Symbol == Receiver {
			out = append(out, h)
		}
	}
	if w.truncated {
		undecided = "the decoding budget ran out"
	}
	return out, undecided, true
}

// Defines reports whether the object defines the function or data object
// fn under that name, exported or not (a linked object's full symbol table is read
// where it has one): a copy of fn that only the object's own calls reach
// when it is not exported.
func (c *Code) Defines(fn string) bool {
	return c.env.defines(fn)
}

func (ro *relObject) defines(name string) bool {
	_, ok := ro.funcAddr(name)
	return ok
}

func (l *linked) defines(name string) bool {
	for _, x := range []*funcIndex{l.funcs, l.objs} {
		for _, e := range x.entries {
			if x.tabs[e.tab].nameIs(e.name, name) {
				return true
			}
		}
	}
	return false
}

// funcAddr finds a defined function by name in a relocatable object.
func (ro *relObject) funcAddr(name string) (uint64, bool) {
	for sec, spans := range ro.funcs {
		for _, sp := range spans {
			if s := ro.sym(uint32(sp.sym)); s != nil && s.Name == name && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				return relAddr(sec, sp.start), true
			}
		}
	}
	return 0, false
}

// funcAddr finds an exported function by name in a linked object's
// dynamic symbol table.
func (l *linked) funcAddr(name string) (uint64, bool) {
	var addr uint64
	found := false
	_ = l.dyn.each(func(_ uint32, s rawSym) {
		if found || elf.ST_TYPE(s.info) != elf.STT_FUNC || elf.SectionIndex(s.shndx) == elf.SHN_UNDEF {
			return
		}
		if l.dyn.nameIs(s.name, name) {
			addr, found = s.value, true
		}
	})
	return addr, found
}

// nameIs reports whether the name at off is want, reading no more of the
// string table than want's length and its terminator.
func (t symTable) nameIs(off uint32, want string) bool {
	if t.strData != "" {
		return strings.HasPrefix(t.strData[min(int(off), len(t.strData)):], want+"\x00")
	}
	buf := make([]byte, len(want)+1)
	if n, _ := t.str.ReadAt(buf, int64(off)); n != len(buf) {
		return false
	}
	return string(buf[:len(want)]) == want && buf[len(want)] == 0
}

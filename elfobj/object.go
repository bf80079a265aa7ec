// Package elfobj reads ELF shared objects, relocatable objects and executables,
// whether they stand alone, sit in an ar archive or in a wheel (zip, read in
// memory, never unpacked), into one Object model.
//
// Only the sections a question needs are read: the section headers, the
// dynamic section and the symbol and version tables. Every input error names
// the input (file, wheel.whl!entry, lib.a(member.o)) and never panics: crafted
// files that make debug/elf panic are recovered per file.
package elfobj

import (
	"debug/elf"
	"fmt"
	"github.com/etlink/etlink/datafile"
	"strings"
)

// Object is one ELF image.
type Object struct {
	// Path names the image for people: a file path, wheel.whl!path/in/wheel,
	// or lib.a(member.o).
	Path string `json:"path"`
	// Dir is the directory $ORIGIN expands to for this image, in the same
	// namespace as Path (inside a wheel: wheel.whl!dir). Empty for archive members.
	Dir string `json:"-"`
	// Real is the on-disk file after following symlinks, for a standalone
	// file; empty for wheel entries and archive members. It identifies one
	// file reached under several names (libfoo.so.1 -> libfoo.so.1.2).
	Real string `json:"-"`
	// Archive and Member are set for archive members: lib.a and member.o.
	Archive string `json:"archive,omitempty"`
	Member  string `json:"member,omitempty"`
	// Wheel is set for wheel entries: the .whl file and the entry's name.
	Wheel   string      `json:"wheel,omitempty"`
	Entry   string      `json:"entry,omitempty"`
	Class   elf.Class   `json:"-"`
	Data    elf.Data    `json:"-"` // byte order: ppc64le and ppc64 differ only in it
	Machine elf.Machine `json:"-"`
	Type    elf.Type    `json:"-"`
	// Executable is true for programs, position-independent ones (ET_DYN
	// with an interpreter) included.
	Executable bool `json:"executable,omitempty"`
	// LTO is true for a relocatable object that holds only GCC's
	// link-time-optimisation IR (.gnu.lto_ sections, no machine code):
	// what its static initializers do exists only after the link.
	LTO     bool     `json:"lto,omitempty"`
	Soname  string   `json:"soname,omitempty"`
	Needed  []string `json:"needed,omitempty"`
	Rpath   []string `json:"rpath,omitempty"`
	Runpath []string `json:"runpath,omitempty"`
	// Symbols are the dynamic symbols of shared objects and executables and
	// the non-local static symbols of relocatable objects.
	Symbols []Symbol `json:"symbols,omitempty"`
	// Partial is true when Symbols holds only the names Options.Only asked
	// for: counts of exports or references do not describe the image.
	Partial bool `json:"partial,omitempty"`
	// References is true when the image was read with Options.References:
	// Symbol.Relocated and Symbol.Copied are known (false means unknown).
	References bool `json:"-"`
	// Initializers are the static initializers and what they call; read
	// only when Options.Initializers asks for them.
	Initializers []Initializer `json:"initializers,omitempty"`
	// nameHashes are the GNU hashes of the dynamic symbols' names, read for
	// Options.Index, and picked the symbols the index picked, whole:
	// OpenFile hands them to the index and drops them.
	nameHashes []byte
	picked     []pickedSymbol
	// writable are the PF_W PT_LOAD segments' addresses, relro the
	// PT_GNU_RELRO ones (read-only once relocated): Object.Writable.
	writable, relro []addrRange
}

// addrRange is [start, end) of virtual addresses.
type addrRange struct{ start, end uint64 }

func inRanges(rs []addrRange, a uint64) bool {
	for _, r := range rs {
		if a >= r.start && a < r.end {
			return true
		}
	}
	return false
}

// Writable reports whether the definition s of o lies in memory the
// process can write once the loader has relocated o: a PF_W PT_LOAD
// segment outside PT_GNU_RELRO. Read-only data (.rodata, and RELRO's
// .data.rel.ro, where typeinfo and vtables live) holds no state a second
// copy can split. TLS and common symbols are writable. known is false
// when o has no program headers (a relocatable object).
func (o *Object) Writable(s *Symbol) (writable, known bool) {
	if s.Type() == elf.STT_TLS || s.Type() == elf.STT_COMMON {
		return true, true
	}
	if o.writable == nil && o.relro == nil && o.Type == elf.ET_REL {
		return false, false
	}
	return inRanges(o.writable, s.Value) && !inRanges(o.relro, s.Value), true
}

// Initializer is one static initializer: an .init_array or .ctors entry of
// a relocatable object, or a DT_INIT_ARRAY / DT_INIT entry of a shared
// object or executable.
type Initializer struct {
	// Function is the initializer's symbol (_GLOBAL__sub_I_backend.cpp), or
	// its address in hex when the object has no symbol for it.
	Function string `json:"function"`
	// Source says where the entry was found: .init_array, .ctors,
	// DT_INIT_ARRAY, DT_INIT, or "symbol" for a _GLOBAL__sub_I_ function no
	// table refers to.
	Source string `json:"source"`
	// Calls are the symbols the initializer calls or references, directly or
	// through functions of the same object, in the order found, each once.
	Calls []string `json:"calls,omitempty"`
	// Method says how Calls was found and so how far to trust it:
	// "relocations" (relocatable objects: every reference the linker will
	// resolve, plus the direct calls within one section that the assembler
	// resolved itself, decoded: exact), "disassembly" (shared objects: calls decoded from the
	// machine code and resolved through the PLT and GOT; misses calls through
	// function pointers computed at run time), "imports" (a machine the
	// decoder does not know: every imported function, an over-approximation).
	Method string `json:"method"`
	// Handoffs are what the initializer hands to code outside the object
	// (Handoff), found by following its machine code: what registering
	// is, whatever the registry is called.
	Handoffs []Handoff `json:"handoffs,omitempty"`
	// Undecided says why the handoffs may be incomplete (a budget, a
	// machine not decoded), "" when they are complete.
	Undecided string `json:"undecided,omitempty"`
}

// Symbol is one entry of a symbol table.
type Symbol struct {
	Name string `json:"name"`
	// SymVersion is the symbol's version, nil for an unversioned symbol
	// (most are): one value per version of a table, shared by its symbols,
	// so that a Symbol is 48 bytes (a large link holds millions).
	*SymVersion
	// The ELF attributes, read with Section, Binding, Type and Visibility,
	// as the table holds them: debug/elf's types for them are ints.
	section        uint16
	bind, typ, vis uint8
	refs           uint8  // refRelocated, refCopied (refs.go)
	Value          uint64 `json:"value,omitempty"`
	Size           uint64 `json:"size,omitempty"`
}

// SymVersion is a symbol version as a symbol carries it.
type SymVersion struct {
	// Version is the version's name. For undefined symbols it is the
	// version required from Library.
	Version string `json:"version,omitempty"`
	// Hidden marks a non-default version: nm prints foo@V1 rather than
	// foo@@V1, and only references that ask for V1 bind to it.
	Hidden  bool   `json:"hidden_version,omitempty"`
	Library string `json:"library,omitempty"`
}

// hiddenUnversioned is the version of a symbol whose .gnu.version entry is
// unversioned but marked hidden.
var hiddenUnversioned = &SymVersion{Hidden: true}

// Version is the symbol's version ("" when unversioned).
func (s *Symbol) Version() string {
	if s.SymVersion == nil {
		return ""
	}
	return s.SymVersion.Version
}

// Hidden reports a non-default version (SymVersion.Hidden).
func (s *Symbol) Hidden() bool { return s.SymVersion != nil && s.SymVersion.Hidden }

// Library is the library an undefined symbol's version is required from.
func (s *Symbol) Library() string {
	if s.SymVersion == nil {
		return ""
	}
	return s.SymVersion.Library
}

// setAttrs sets the symbol's ELF attributes from a table entry's st_info,
// st_other and st_shndx.
func (s *Symbol) setAttrs(info, other uint8, shndx uint16) {
	s.bind, s.typ, s.vis, s.section = info>>4, info&0xf, other&0x3, shndx
}

// Section is the index of the section that defines the symbol, or a special
// index (SHN_UNDEF, SHN_ABS, SHN_COMMON).
func (s *Symbol) Section() elf.SectionIndex { return elf.SectionIndex(s.section) }

// Binding is the symbol's binding (STB_LOCAL, STB_GLOBAL, STB_WEAK, ...).
func (s *Symbol) Binding() elf.SymBind { return elf.SymBind(s.bind) }

// Type is the symbol's type (STT_FUNC, STT_OBJECT, ...).
func (s *Symbol) Type() elf.SymType { return elf.SymType(s.typ) }

// Visibility is the symbol's visibility (STV_DEFAULT, STV_HIDDEN, ...).
func (s *Symbol) Visibility() elf.SymVis { return elf.SymVis(s.vis) }

// Relocated reports whether a dynamic relocation of the symbol's own image
// names it: the image's references to it go through the loader. Only set
// when the image was read with Options.References; undefined symbols a
// linker kept are nearly always relocated, a definition is only when the
// image uses it through the GOT or PLT.
func (s *Symbol) Relocated() bool { return s.refs&refRelocated != 0 }

// Copied reports whether an executable holds the symbol's storage through a
// copy relocation (R_X86_64_COPY, ...): the executable's "definition" is the
// one instance of a library's variable, not a second one. Only set when
// read with Options.References.
func (s *Symbol) Copied() bool { return s.refs&refCopied != 0 }

// Unique reports whether the symbol has glibc's STB_GNU_UNIQUE binding: one
// definition per process, whatever the lookup scopes.
func (s *Symbol) Unique() bool { return s.Binding() == bindUnique }

// STB_GNU_UNIQUE: glibc's binding for one-per-process C++ statics (STB_LOOS).
const bindUnique = elf.SymBind(10)

// Defined reports whether the symbol has a definition in this image.
func (s *Symbol) Defined() bool { return s.section != uint16(elf.SHN_UNDEF) }

// Exported reports whether other images can bind to this definition: defined,
// not local, default or protected visibility.
func (s *Symbol) Exported() bool {
	if !s.Defined() || s.Type() == elf.STT_SECTION || s.Type() == elf.STT_FILE {
		return false
	}
	switch s.Binding() {
	case elf.STB_GLOBAL, elf.STB_WEAK, bindUnique:
	default:
		return false
	}
	return s.Visibility() == elf.STV_DEFAULT || s.Visibility() == elf.STV_PROTECTED
}

// Vague reports whether the definition has vague linkage (weak or unique
// binding): template instantiations, inline functions and typeinfo, which the
// C++ ABI expects to find in many objects.
func (s *Symbol) Vague() bool { return s.Binding() == elf.STB_WEAK || s.Binding() == bindUnique }

// Versioned returns the name as nm -D prints it: foo@@V1, foo@V1 or foo.
func (s *Symbol) Versioned() string {
	if s.Version() == "" {
		return s.Name
	}
	// A definition whose version is a needed one (an executable's copy of
	// a library's variable) is printed with one @, as nm does.
	if s.Hidden() || !s.Defined() || s.Library() != "" {
		return s.Name + "@" + s.Version()
	}
	return s.Name + "@@" + s.Version()
}

// BindingName, TypeName and VisibilityName give readelf's short spellings.
func (s *Symbol) BindingName() string {
	if s.Binding() == bindUnique {
		return "UNIQUE"
	}
	return strings.TrimPrefix(s.Binding().String(), "STB_")
}

// TypeName is the symbol type as readelf prints it (FUNC, OBJECT, TLS, IFUNC).
func (s *Symbol) TypeName() string {
	if s.Type() == elf.STT_GNU_IFUNC {
		return "IFUNC"
	}
	return strings.TrimPrefix(s.Type().String(), "STT_")
}

// VisibilityName is the visibility as readelf prints it.
func (s *Symbol) VisibilityName() string { return strings.TrimPrefix(s.Visibility().String(), "STV_") }

// IsState reports whether two copies of the definition mean two copies of
// state rather than of code: objects, TLS and common symbols.
func (s *Symbol) IsState() bool {
	return s.Type() == elf.STT_OBJECT || s.Type() == elf.STT_TLS || s.Type() == elf.STT_COMMON
}

// MachineName is the machine as people say it (x86_64, aarch64, ...).
func (o *Object) MachineName() string { return MachineName(o.Machine) }

// MachineName spells an ELF machine the way platform tags and triplets do.
func MachineName(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_386:
		return "i686"
	case elf.EM_ARM:
		return "arm"
	case elf.EM_PPC64:
		return "ppc64"
	case elf.EM_S390:
		return "s390x"
	case elf.EM_RISCV:
		return "riscv64"
	}
	return strings.ToLower(strings.TrimPrefix(m.String(), "EM_"))
}

// TypeName is the ELF file type as readelf prints it (DYN, EXEC, REL).
func (o *Object) TypeName() string { return strings.TrimPrefix(o.Type.String(), "ET_") }

// Exports counts the exported symbols.
func (o *Object) Exports() int {
	n := 0
	for i := range o.Symbols {
		if o.Symbols[i].Exported() {
			n++
		}
	}
	return n
}

// Undefined counts the undefined symbols (references to other images).
func (o *Object) Undefined() int {
	n := 0
	for i := range o.Symbols {
		if !o.Symbols[i].Defined() && o.Symbols[i].Name != "" {
			n++
		}
	}
	return n
}

// Error is an input that could not be read. Its text is "PATH: what is wrong".
type Error = datafile.Error

func errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Err: fmt.Errorf(format, args...)}
}

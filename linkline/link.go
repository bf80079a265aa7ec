package linkline

import (
	"errors"
	"fmt"
)

// State is the linker state in force at an input.
type State struct {
	AsNeeded     bool // --as-needed in force
	WholeArchive bool // --whole-archive in force
	Static       bool // -Bstatic (or -static) in force: -l finds only .a
	Group        int  // >0 inside --start-group/--end-group (-( -)); the group's ordinal
}

// String renders the state as the linker options that set it, for evidence
// lines: "as-needed whole-archive Bstatic group=1", or "default".
func (s State) String() string {
	out := ""
	add := func(ok bool, word string) {
		if !ok {
			return
		}
		if out != "" {
			out += " "
		}
		out += word
	}
	add(s.AsNeeded, "as-needed")
	add(s.WholeArchive, "whole-archive")
	add(s.Static, "Bstatic")
	add(s.Group > 0, fmt.Sprintf("group=%d", s.Group))
	if out == "" {
		return "default"
	}
	return out
}

// Kind is what an input is to the linker.
type Kind int

// The kinds of input. A file's kind comes from its contents when it exists
// (ELF type, ar magic, text for a linker script), else from its name.
const (
	KindUnknown Kind = iota
	KindObject       // relocatable object (.o), or a source file the driver compiles first
	KindArchive      // ar archive (.a)
	KindShared       // shared object (.so, .so.N)
	KindLib          // -l not resolved to a file
	KindScript       // linker script (-T, or a .so that is text such as Debian's libc.so)
)

var kindNames = [...]string{"unknown", "object", "archive", "shared", "lib", "script"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Source says where an argument, or a whole command, was read.
type Source struct {
	File string // the file the argument was read from: link.txt, build.ninja, a response file, a log, a File API reply
	Line int    // line in File (0 when unknown)
	// For CMake File API fragments: the CMakeLists.txt location that added it (from backtraceGraph).
	CMakeFile    string
	CMakeLine    int
	CMakeCommand string // e.g. "target_link_libraries"
}

// String renders the source as "file:line", with the CMake location after it
// when known.
func (s Source) String() string {
	out := s.File
	if s.Line > 0 {
		out = fmt.Sprintf("%s:%d", out, s.Line)
	}
	if s.CMakeFile != "" {
		cm := s.CMakeFile
		if s.CMakeLine > 0 {
			cm = fmt.Sprintf("%s:%d", cm, s.CMakeLine)
		}
		if s.CMakeCommand != "" {
			cm += " " + s.CMakeCommand
		}
		if out != "" {
			out += " (" + cm + ")"
		} else {
			out = cm
		}
	}
	return out
}

// Input is one file or library the linker reads, with the state in force
// where it stands.
type Input struct {
	Arg string // the argument as written, e.g. "-lfoo", "../lib/libfoo.so", "-l:libbar.so.1"
	// Index is the 0-based position among the expanded arguments: argv[0]
	// excluded, @response files expanded in place, each -Wl,a,b item and each
	// -Xlinker value counted once (the -Xlinker word itself not), any other
	// word counted once (so "-l foo" takes two positions and the input has
	// the first). -1 for Implicit inputs, which are not on the line.
	Index int
	Name  string // the -l name (foo, or :libbar.so.1 for -l:) or the path as written
	// Path is the resolved file path, "" if not found: a written path is
	// taken from Link.Dir; -l is looked up in the -L dirs, then the
	// driver's and linker's own dirs, honouring -Bstatic.
	Path     string
	Kind     Kind
	State    State
	Implicit bool // added by the compiler driver, not written on the line (-lstdc++ -lm -lgcc_s -lc ...)
	Source   Source
	// Target is the CMake target that builds this input, when the File API
	// reply says so: what a fix in CMakeLists.txt names.
	Target string
}

// Link is one link command: the output, each input in the order the linker
// reads it with the state in force, and the options that steer -l lookup
// and the run-time search path.
type Link struct {
	Output string // -o ("a.out" when a driver links without -o)
	Driver string // argv[0] (g++, /usr/bin/c++, aarch64-linux-gnu-g++, clang++, ld, ld.lld ...)
	// DriverSource says where Driver came from when the line was rebuilt
	// from a CMake File API reply ("the toolchains-v1 reply",
	// "CMakeFiles/3.25.1/CMakeCXXCompiler.cmake", ...); "" for a line read
	// as written.
	DriverSource string
	// Linker is the linker that runs: from -fuse-ld= or --ld-path= (bfd,
	// gold, lld, mold), or the driver itself when it is a linker; "" =
	// the driver's default.
	Linker                           string
	Shared, Static, PIE, Relocatable bool
	LibDirs                          []string // -L, in order
	Rpath                            []string // -rpath, -R DIR, --rpath=; -rpath-link is RpathLink
	RpathLink                        []string // -rpath-link
	Soname                           string   // -soname / -h
	MapFile                          string   // -Wl,-Map=FILE / -Map FILE / --Map
	// Undefined are the symbols -u, --undefined and --require-defined make
	// undefined before any input is read: anchors that extract archive
	// members (and, with mold only, keep an --as-needed library).
	Undefined []string
	Sysroot   string // --sysroot
	Inputs    []Input
	// DefaultAsNeeded is the --as-needed state the driver starts the linker
	// in, before the first input written on the line.
	DefaultAsNeeded bool
	// DefaultAsNeededSource says how DefaultAsNeeded was decided: "gcc
	// link spec of DRIVER (read from the file, not run)", "clang driver",
	// "--default-as-needed", "linker invoked directly", or "not
	// determined: why".
	DefaultAsNeededSource string
	Target                string // CMake target name when known
	// PythonModule is set when the CMake File API says the target is a
	// MODULE library made by a Python module helper (pybind11_add_module,
	// nanobind_add_module, Python_add_library, ...).
	PythonModule bool
	Dir          string // working directory relative paths are taken from
	Source       Source // where the command itself was found
	// Warnings are things the linker would reject or that defeat what the
	// line seems to intend: an unbalanced --pop-state or --end-group, a
	// CMake "LINKER:" item passed as a library name.
	Warnings []string
}

// ErrNotLink is returned (wrapped) for a command that is not a link: a
// compile (-c, -S, -E), an archiver, or a shell line with no link in it.
var ErrNotLink = errors.New("not a link command")

// ErrArchive is returned (wrapped, and wrapping ErrNotLink) for a command
// file that only creates a static archive: a static library's link.txt in
// a Makefiles build (ar qc ...; ranlib ...). It is no link, and no error.
// (Not made with fmt.Errorf: formatting at start-up cost every run.)
var ErrArchive error = notLinkError("it creates a static archive")

// notLinkError is ErrNotLink with why.
type notLinkError string

func (e notLinkError) Error() string { return ErrNotLink.Error() + ": " + string(e) }
func (notLinkError) Unwrap() error   { return ErrNotLink }

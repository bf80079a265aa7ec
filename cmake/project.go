package cmake

import (
	"fmt"
	"strings"
)

// Project is a source tree evaluated from its top CMakeLists.txt.
type Project struct {
	// Root is the directory given to Load.
	Root string
	// CMakeVersion is the CMake release the evaluation took (Options,
	// raised to the project's cmake_minimum_required).
	CMakeVersion string
	// Files are the list files read, each once, in the order first read;
	// one with a syntax error holds the commands before the error and is
	// not evaluated.
	Files []*File
	// Targets are in the order they were created. Two targets can share a
	// name when both branches of an undecided if() create it.
	Targets []*Target
	// Notes say where evaluation could not know something, once per
	// location and message.
	Notes []Note
}

// Location is where a command or argument was written. File is Root
// joined with the file's path inside the tree.
type Location struct {
	File string
	Line int
	Col  int
	// Via is the call stack through user functions and macros, outermost
	// first: the calls that led to the command at File:Line.
	Via []Frame
	// Under lists the if()/elseif()/else() branches etlink entered without
	// being able to decide their condition, outermost first. Empty when
	// the location is reached whatever the configuration.
	Under []Cond
}

// Origin is the command that put a value into a variable.
type Origin struct {
	Loc Location
	Cmd string // as written: list(APPEND LIBS Python::Python)
}

// Frame is one call to a user-defined function or macro.
type Frame struct {
	Function string // as called
	File     string // where the call is written
	Line     int
}

// Cond is a branch entered without knowing its condition.
type Cond struct {
	File string
	Line int
	Text string // the branch head as written: if(${FOO}), else()
	// If is the line of the if() whose branch this is: two branches of
	// one if() are never both taken.
	If int
}

// excludes reports whether c and d are different branches of one if().
func (c Cond) excludes(d Cond) bool {
	return c.If != 0 && c.File == d.File && c.If == d.If && c.Line != d.Line
}

// String is FILE:LINE.
func (l Location) String() string {
	if l.File == "" {
		return "?"
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

// Outermost is the location of the outermost call that led here: the
// user's own line when a wrapper function made the call.
func (l Location) Outermost() Location {
	if len(l.Via) == 0 {
		return l
	}
	f := l.Via[0]
	return Location{File: f.File, Line: f.Line, Under: l.Under}
}

// Target kinds.
const (
	KindExecutable = "EXECUTABLE"
	KindShared     = "SHARED"
	KindStatic     = "STATIC"
	KindModule     = "MODULE"
	KindObject     = "OBJECT"
	KindInterface  = "INTERFACE"
	KindImported   = "IMPORTED"
	KindAlias      = "ALIAS"
	KindUnknown    = "UNKNOWN"
)

// Target is one target a creator command defined.
type Target struct {
	Name string
	// swigPython marks a UseSWIG library for Python (an extension).
	swigPython bool
	// nameMarked is the name with the evaluator's marks: an unknown one
	// is found again only by the same unknown value (findTargets).
	nameMarked string
	// Kind is one of the Kind constants. A library whose type is not
	// given is STATIC unless BUILD_SHARED_LIBS is true (Options.Vars can
	// set it); a type etlink could not expand is UNKNOWN.
	Kind string
	// Creator is the command that created it, as written: add_library,
	// add_executable, pybind11_add_module, python_add_library,
	// Python3_add_library, nanobind_add_module. A target created inside a
	// user's wrapper function names the command inside the wrapper; Def.Via
	// names the wrapper.
	Creator string
	// Extension says the target is a Python extension module; ExtensionWhy
	// says what showed it (see the package documentation).
	Extension    bool
	ExtensionWhy string
	// Aliased is the target an ALIAS names.
	Aliased string
	Def     Location
	// CreatorArgs are the creator's arguments after expansion (Text is the
	// value, Line and Col where the argument producing it is written), so
	// pybind11_add_module(name SHARED ...) shows SHARED even when a wrapper
	// passed it through a variable.
	CreatorArgs []Arg
	// Links are the target's link items as its LINK_LIBRARIES and
	// INTERFACE_LINK_LIBRARIES properties hold them at the end of
	// evaluation: a PRIVATE item is in the first, an INTERFACE one in the
	// second, a PUBLIC one in both. set_target_properties and
	// set_property(TARGET) replace or extend them as CMake does.
	Links []LinkItem
	// LinkEdits are the commands that set the link properties, in order:
	// what a wrapper function that rewrites them did, for the evidence.
	LinkEdits []Edit
	// Options are its LINK_OPTIONS and INTERFACE_LINK_OPTIONS, kept as
	// Links are (target_link_options appends, set_target_properties
	// replaces); a link property edit of them is in LinkEdits too.
	Options []LinkItem
	// Properties set by set_target_properties and set_property(TARGET),
	// after expansion (an unknown part kept as written, ${NAME}).
	Properties map[string]string
}

// Edit is one command that set a target's link property.
type Edit struct {
	Loc Location
	// What says what it did: "set_target_properties replaced LINK_LIBRARIES".
	What string
}

// Link item forms.
const (
	FormName        = ""             // a target, a library name or path, -lfoo
	FormFlag        = "flag"         // a linker flag: -Wl,--no-as-needed, -pthread
	FormGenex       = "genex"        // a generator expression
	FormLinkLibrary = "LINK_LIBRARY" // $<LINK_LIBRARY:FEATURE,libs...>
	FormLinkGroup   = "LINK_GROUP"   // $<LINK_GROUP:FEATURE,libs...>
	FormLinker      = "LINKER"       // LINKER:a,b
	FormShell       = "SHELL"        // SHELL:a b
)

// LinkItem is one item a target links: from target_link_libraries,
// link_libraries, the LINK_LIBRARIES/INTERFACE_LINK_LIBRARIES properties,
// or implicitly from the creator (pybind11_add_module links
// pybind11::module).
type LinkItem struct {
	// Item is the item after expanding the variables etlink knows; a
	// reference it could not expand stays as written (${PYTHON_LIBRARIES})
	// and Unknown is set.
	Item string
	// Raw is the argument as written; empty for an implicit item.
	Raw string
	// Scope is PRIVATE, PUBLIC, INTERFACE, or "" when none was given
	// (LINK_PRIVATE and LINK_PUBLIC read as PRIVATE and PUBLIC).
	Scope string
	// Loc is the argument's location, or the creator's for an implicit
	// item.
	Loc     Location
	Unknown bool
	// Form says how the item is written (the Form constants). For
	// LINK_LIBRARY and LINK_GROUP, Feature is the feature (WHOLE_ARCHIVE)
	// and Parts the libraries it wraps; for LINKER and SHELL, Parts are
	// the options.
	Form    string
	Feature string
	Parts   []string
	// Config is "debug" or "optimized" when the item followed that
	// keyword.
	Config string
	// Implicit, when set, says where an item nobody wrote comes from.
	Implicit string
	// Origins, for an item a variable held (${LIBS}), are the set() and
	// list() calls that put it there (each branch's, up to four): the line
	// that adds libpython, where the link names the project's own
	// libraries too.
	Origins []*Origin
	// marked is the item's value with the evaluator's marks (an unknown
	// part stays unknown when a property read gives it back).
	marked string
	// noLinkOnly is set once INTERFACE_LINK_LIBRARIES was replaced: the
	// $<LINK_ONLY:...> entry CMake stored there for a static library's
	// PRIVATE item went with it.
	noLinkOnly bool
}

// Note is something evaluation could not know, and what it did instead.
type Note struct {
	Loc Location
	Msg string
	// Kind sorts notes for a summary: one of the Note constants.
	Kind string
}

// Note kinds.
const (
	NoteUndecided = "undecided" // a condition, loop or argument etlink could not evaluate
	NoteModule    = "module"    // a CMake module or file outside the tree, not read
	NoteMissing   = "missing"   // a directory or file the tree names but does not hold
	NoteRedefined = "redefined" // a target defined again (both branches of an undecided if)
	NoteTarget    = "target"    // a command naming a target etlink does not know
	NoteLimit     = "limit"     // an evaluation bound reached
	NoteCommand   = "command"   // a command neither CMake's nor defined in a file read
	NoteGuessed   = "guessed"   // a condition decided on a value taken without knowing it
)

// String is FILE:LINE: message.
func (n Note) String() string { return n.Loc.String() + ": " + n.Msg }

// Options configure Load.
type Options struct {
	// Vars are -D definitions: cache variables whose values are known.
	Vars map[string]string
	// MaxDepth bounds nested function and macro calls, include() and
	// add_subdirectory() together; 0 means 64.
	MaxDepth int
	// TrustDefaults takes option() and set(... CACHE ...) defaults as the
	// values in force. By default a condition on such a default is
	// undecided and all its branches are read, since a build can flip it.
	TrustDefaults bool
	// CMakeVersion is the CMake release whose behaviour the evaluation
	// takes (CMAKE_VERSION, the targets FindPython defines): a build
	// directory's, or DefaultCMakeVersion when "", raised to the project's
	// cmake_minimum_required unless CMakeVersionFixed (the build
	// directory's own, or one the user named).
	CMakeVersion      string
	CMakeVersionFixed bool
	// ReadRoot is the directory whose files include() and
	// add_subdirectory() may read besides the tree: the repository that
	// holds it, when the CMake project is a subdirectory (tools/python
	// including ../../cmake/helpers.cmake). "" reads the tree only.
	ReadRoot string
}

// Target returns the last target defined with the name, or nil.
func (p *Project) Target(name string) *Target {
	for i := len(p.Targets) - 1; i >= 0; i-- {
		if p.Targets[i].Name == name {
			return p.Targets[i]
		}
	}
	return nil
}

// classify fills Form, Feature and Parts from Item.
func (li *LinkItem) classify() {
	s := li.Item
	switch {
	case strings.Contains(s, "$<LINK_LIBRARY:"):
		li.Form = FormLinkLibrary
		li.Feature, li.Parts = genexFeature(s, "$<LINK_LIBRARY:")
	case strings.Contains(s, "$<LINK_GROUP:"):
		li.Form = FormLinkGroup
		li.Feature, li.Parts = genexFeature(s, "$<LINK_GROUP:")
	case strings.Contains(s, "$<"):
		li.Form = FormGenex
	case strings.HasPrefix(s, "LINKER:"):
		li.Form = FormLinker
		rest := strings.TrimPrefix(s, "LINKER:")
		if strings.HasPrefix(rest, "SHELL:") {
			li.Parts = strings.Fields(strings.TrimPrefix(rest, "SHELL:"))
		} else {
			li.Parts = strings.Split(rest, ",")
		}
	case strings.HasPrefix(s, "SHELL:"):
		li.Form = FormShell
		li.Parts = strings.Fields(strings.TrimPrefix(s, "SHELL:"))
	case strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "-l") && !strings.HasPrefix(s, "-framework"):
		li.Form = FormFlag
	}
}

// Unwrap returns the link items a link item names, inside the generator
// expressions that only condition or mark it: s itself, and for
// $<LINK_ONLY:x>, $<BUILD_INTERFACE:x>, $<INSTALL_INTERFACE:x>,
// $<TARGET_NAME_IF_EXISTS:x>, $<COMPILE_ONLY:x> and a condition
// $<cond:x> (such as $<$<CONFIG:Debug>:x>), also x, recursively. It does
// not evaluate the conditions: a conditional item may be linked.
func Unwrap(s string) []string {
	out := []string{s}
	for strings.HasPrefix(s, "$<") && strings.HasSuffix(s, ">") {
		body := s[2 : len(s)-1]
		depth, cut := 0, -1
		for j := 0; j < len(body) && cut < 0; j++ {
			switch {
			case strings.HasPrefix(body[j:], "$<"):
				depth++
				j++
			case body[j] == '>':
				depth--
			case body[j] == ':' && depth == 0:
				cut = j
			}
		}
		if cut < 0 {
			break
		}
		head := body[:cut]
		switch {
		case head == "LINK_ONLY", head == "BUILD_INTERFACE", head == "INSTALL_INTERFACE",
			head == "TARGET_NAME_IF_EXISTS", head == "COMPILE_ONLY", strings.HasPrefix(head, "$<"):
			s = body[cut+1:]
			out = append(out, s)
		default:
			return out
		}
	}
	return out
}

// genexFeature reads $<LINK_LIBRARY:FEATURE,a,b> (wherever it sits in s)
// into its feature and the comma-separated items at its own nesting level.
func genexFeature(s, open string) (string, []string) {
	i := strings.Index(s, open)
	body := s[i+len(open):]
	depth := 0
	var parts []string
	start := 0
	end := len(body)
scan:
	for j := 0; j < len(body); j++ {
		switch {
		case strings.HasPrefix(body[j:], "$<"):
			depth++
			j++
		case body[j] == '>':
			if depth == 0 {
				end = j
				break scan
			}
			depth--
		case body[j] == ',' && depth == 0:
			parts = append(parts, body[start:j])
			start = j + 1
		}
	}
	parts = append(parts, body[start:end])
	return parts[0], parts[1:]
}

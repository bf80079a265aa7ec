package linkmap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/budget"
)

// Format is the linker that wrote a map.
type Format int

// The map formats Parse knows. FormatUnknown is the zero value.
const (
	FormatUnknown Format = iota
	FormatBFD            // GNU ld (bfd)
	FormatGold           // GNU gold
	FormatLLD            // LLVM lld
	FormatMold           // mold
)

// String gives "bfd", "gold", "lld", "mold" (or "unknown").
func (f Format) String() string {
	switch f {
	case FormatBFD:
		return "bfd"
	case FormatGold:
		return "gold"
	case FormatLLD:
		return "lld"
	case FormatMold:
		return "mold"
	}
	return "unknown"
}

// Capability is a kind of fact a map format can show. A fact a format does
// not show is absent from a Map without meaning it did not happen: a member
// missing from an lld map's Extracted may still have been extracted (and
// all its sections garbage-collected).
type Capability uint

// The capabilities; see the package documentation for the table by format.
const (
	// InputList: every input the linker opened, in command-line order,
	// used or not, shared libraries included (GNU ld's LOAD lines).
	InputList Capability = 1 << iota
	// ExtractedMembers: every archive member the linker extracted, whether
	// or not any of its sections survived.
	ExtractedMembers
	// ExtractionReasons: the file and symbol that pulled each member.
	ExtractionReasons
	// AsNeededKept: the shared libraries kept under --as-needed, each with
	// the reference that kept it. No format lists the ones dropped.
	AsNeededKept
	// DiscardedSections: input sections discarded (--gc-sections,
	// /DISCARD/, duplicate COMDAT groups).
	DiscardedSections
	// SharedLibraries: every shared library the linker loaded.
	SharedLibraries
	// GlobalSymbols: defined global symbols with their addresses.
	GlobalSymbols
	// LocalSymbols: local symbols too.
	LocalSymbols
	// SymbolSizes: the size of each symbol.
	SymbolSizes
	// OutputSections: output sections with address and size.
	OutputSections
)

var formatCaps = map[Format]Capability{
	FormatBFD:  InputList | ExtractedMembers | ExtractionReasons | AsNeededKept | DiscardedSections | SharedLibraries | GlobalSymbols | OutputSections,
	FormatGold: ExtractedMembers | ExtractionReasons | DiscardedSections | GlobalSymbols | OutputSections,
	FormatLLD:  GlobalSymbols | LocalSymbols | SymbolSizes | OutputSections,
	FormatMold: GlobalSymbols | LocalSymbols | OutputSections,
}

// Shows reports whether every map of format f shows facts of kind c.
func (f Format) Shows(c Capability) bool { return c != 0 && formatCaps[f]&c == c }

// Map is what a linker map says about one link.
type Map struct {
	Path   string // the name given to Parse
	Format Format
	// Output is the output file the map describes, where the format names
	// it (GNU ld's OUTPUT line), as the link line spelled it.
	Output string
	// CrossReference is set when the map holds a cross reference table
	// (-Wl,--cref; bfd, gold and lld).
	CrossReference bool

	// Loaded lists every input file the map shows the linker loaded, each
	// once, archive members as Archive+Member. For bfd it is the order of
	// the LOAD lines (the command line, linker scripts expanded), each
	// archive followed by its extracted members, then files the LOAD lines
	// do not name (thin archive members, LTO objects); for gold, lld and
	// mold, which list no inputs as such, it is the order in which the map
	// first mentions each file.
	Loaded []Input
	// Extracted lists archive members pulled in and, where the format says
	// it, the file and symbol whose reference pulled each (bfd/gold
	// "Archive member included ..."). For lld and mold it holds the members
	// that contributed a section to the output, without a reason.
	Extracted []Extraction
	// AsNeeded lists shared libraries kept under --as-needed with the
	// reference that kept them (bfd "As-needed library included ...").
	// Library is the SONAME, as DT_NEEDED records it.
	AsNeeded []Kept
	// Discarded lists discarded input sections (bfd/gold "Discarded input
	// sections"); lld and mold do not print them.
	Discarded []Section
	// OutputSections lists the output sections that have an address.
	OutputSections []OutputSection
	// Symbols lists defined symbols in map order, names as the map prints
	// them (all four linkers demangle C++ names by default).
	Symbols []Symbol
	// Shared lists the shared libraries the map names as inputs, in the
	// order it first names them, as the link spelled their paths: bfd's
	// LOAD lines, and the files of a cross reference table. A library here
	// was loaded, which does not mean it was kept: see AsNeeded.
	Shared []string
}

// Shows reports whether m shows facts of kind c. It is its format's
// answer: a cross reference table adds shared libraries to gold and lld
// maps, but not all of them (see the package documentation).
func (m *Map) Shows(c Capability) bool { return m.Format.Shows(c) }

// Input is an input file as a map names it. For an archive member Path is
// "archive(member)" and Archive and Member are its parts.
type Input struct {
	Path, Archive, Member string
	Line                  int
}

// Extraction is an archive member the linker pulled in. ByFile and
// BySymbol name the reference that pulled it, when the map gives one;
// BySymbol is set without ByFile for a command-line -u SYMBOL. Reason is
// set when the member was pulled for another reason ("--whole-archive").
// GNU ld names a member of a thin archive by the member's own path: then
// Archive is empty.
type Extraction struct {
	Archive, Member  string
	ByFile, BySymbol string
	Reason           string
	Line             int
}

// Kept is a shared library kept under --as-needed and the reference that
// kept it.
type Kept struct {
	Library, ByFile, BySymbol string
	Line                      int
}

// Section is a discarded input section of File.
type Section struct {
	Name, File string
	Size       uint64
	Line       int
}

// OutputSection is a section of the output file.
type OutputSection struct {
	Name       string
	Addr, Size uint64
	Line       int
}

// Symbol is a defined symbol. Size is zero where the format gives none;
// File is the input that defines it, empty for linker-made symbols.
type Symbol struct {
	Name       string
	Addr, Size uint64
	File       string
	Line       int
}

// ErrUnknownFormat is wrapped by the error for an empty file or one that
// is not a map of any known format.
var ErrUnknownFormat = errors.New("not a linker map (tried GNU ld (bfd), gold, lld and mold formats)")

// Error is a map line Parse could not understand, or an I/O error.
type Error struct {
	Path string // the name given to Parse
	Line int    // 1-based; 0 when the error is about the whole file
	Msg  string
	Err  error // the cause, if any
}

// Error gives "PATH:LINE: message".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause: an I/O error, ErrUnknownFormat, or nil.
func (e *Error) Unwrap() error { return e.Err }

// MaxLine is the longest line Parse accepts, in bytes. C++ symbol names
// run to hundreds of kilobytes; nothing a linker writes comes near this.
const MaxLine = 16 << 20

// MaxKept bounds the bytes a map's inputs, archive members and libraries
// may hold (Loaded, Extracted, AsNeeded; names and structures), the part
// of a Map that NoSymbols does not drop: a parse past it is an error. A
// link pulling 100,000 archive members of paths of 100 bytes holds 26 MiB
// (torch's largest library links under 10,000 objects); a hostile map
// naming distinct members for gigabytes would hold gigabytes, and reaches
// the bound in about a second.
const MaxKept = 32 << 20

// Options choose what a parse keeps.
type Options struct {
	// NoSymbols leaves Symbols, Discarded and OutputSections empty: a
	// question about which inputs a link loaded and why (retention) needs
	// none of them, and a map's symbol list is most of what it holds.
	NoSymbols bool
	// Budget is the run's (nil: no limits); a map is charged its size
	// (budget.Read): by ParseFile when it opens it, by Parse as it reads.
	Budget *budget.Budget
}

// ParseFile parses the map file at path. Its size is charged to
// opt.Budget before any of it is read: a map past the budget is refused
// at once.
func ParseFile(path string, opt Options) (*Map, error) {
	f, fi, err := datafile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := opt.Budget.Charge(budget.Read, fi.Size(), path); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return parse(&chargedReader{r: f, b: opt.Budget, name: path, paid: fi.Size()}, path, opt)
}

// Parse reads a linker map from r, line by line, detecting its format.
// name is used in errors and as Map.Path. What it reads is charged to
// opt.Budget as it is read, a stream having no size to charge first.
func Parse(r io.Reader, name string, opt Options) (*Map, error) {
	return parse(&chargedReader{r: r, b: opt.Budget, name: name}, name, opt)
}

func parse(r io.Reader, name string, opt Options) (*Map, error) {
	p := newParser(r, name)
	p.opt = opt
	return p.run()
}

// chargedReader charges opt.Budget for the bytes read past paid, those
// already charged (a file's size when opened: it may have grown since).
type chargedReader struct {
	r    io.Reader
	b    *budget.Budget
	name string
	paid int64
}

func (c *chargedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.paid -= int64(n); c.paid < 0 {
		if cerr := c.b.Charge(budget.Read, -c.paid, c.name); cerr != nil {
			return 0, cerr
		}
		c.paid = 0
	}
	return n, err
}

// SplitMember splits "archive(member)" into its parts. It reports false for
// a name that does not end in a parenthesised member.
func SplitMember(name string) (archive, member string, ok bool) {
	if len(name) < 4 || name[len(name)-1] != ')' {
		return "", "", false
	}
	i := matchOpen(name)
	if i <= 0 || i == len(name)-2 {
		return "", "", false
	}
	return name[:i], name[i+1 : len(name)-1], true
}

// matchOpen returns the index of the '(' that matches the ')' ending s, or
// -1.
func matchOpen[T string | []byte](s T) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isShared reports whether a file name looks like a shared library:
// NAME.so or NAME.so.VERSION.
func isShared(p string) bool {
	if _, _, ok := SplitMember(p); ok {
		return false
	}
	b := path.Base(p)
	i := strings.LastIndex(b, ".so")
	for i > 0 {
		rest := b[i+3:]
		if rest == "" {
			return true
		}
		if rest[0] == '.' && strings.Trim(rest, "0123456789.") == "" {
			return true
		}
		i = strings.LastIndex(b[:i], ".so")
	}
	return false
}

// lineReader yields the lines of a stream without copying them when they
// fit its buffer. A line is valid until the next call.
type lineReader struct {
	r     *bufio.Reader
	long  []byte
	n     int   // number of the line last returned
	err   error // first error other than io.EOF
	noEOL bool  // the last line returned had no newline
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its line ending, or false at the end
// of input or on error (see err).
func (lr *lineReader) next() ([]byte, bool) {
	if lr.err != nil || lr.noEOL {
		return nil, false
	}
	b, err := lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], b...)
		for err == bufio.ErrBufferFull {
			if len(lr.long) > MaxLine {
				lr.n++
				lr.err = fmt.Errorf("line longer than %d bytes", MaxLine)
				return nil, false
			}
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
		}
		b = lr.long
		if len(b) > MaxLine+1 {
			lr.n++
			lr.err = fmt.Errorf("line longer than %d bytes", MaxLine)
			return nil, false
		}
	}
	if err != nil && err != io.EOF {
		lr.err = err
		return nil, false
	}
	if len(b) == 0 {
		return nil, false
	}
	lr.n++
	if b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	} else {
		lr.noEOL = true
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, true
}

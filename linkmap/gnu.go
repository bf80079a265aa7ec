package linkmap

import (
	"bytes"
	"unsafe"
)

// GNU ld (bfd) and gold write the same kind of map: headed sections, the
// first few tables of two columns, then a memory map of output sections,
// input sections and symbols. One parser reads both; the headings tell
// which linker wrote it.

type gnuState int

const (
	stNone      gnuState = iota // before the first heading, or in a section nobody parses
	stArchive                   // Archive member included ...
	stAsNeeded                  // As-needed library included ...
	stDiscarded                 // Discarded input sections
	stSkip                      // a known section whose body does not matter
	stMemMap                    // Linker script and memory map / Memory map
	stCref                      // Cross Reference Table
)

type heading struct {
	state  gnuState
	format Format // the linker only it comes from, or FormatUnknown
}

// gnuHeading recognises the section headings of GNU ld and gold maps.
func gnuHeading(l []byte) heading {
	// Fast path: most lines are section or symbol lines.
	if len(l) < 10 || len(l) > 80 {
		return heading{}
	}
	switch l[0] {
	case 'A', 'C', 'D', 'L', 'M':
	default:
		return heading{}
	}
	switch string(trimRight(l)) {
	case "Archive member included to satisfy reference by file (symbol)":
		return heading{stArchive, FormatBFD}
	case "Archive member included because of file (symbol)":
		return heading{stArchive, FormatGold}
	case "As-needed library included to satisfy reference by file (symbol)":
		return heading{stAsNeeded, FormatBFD}
	case "Discarded input sections":
		return heading{stDiscarded, FormatUnknown}
	case "Allocating common symbols":
		return heading{stSkip, FormatUnknown}
	case "Memory Configuration", "Merging program properties":
		return heading{stSkip, FormatBFD}
	case "Linker script and memory map":
		return heading{stMemMap, FormatBFD}
	case "Memory map":
		return heading{stMemMap, FormatGold}
	case "Cross Reference Table":
		return heading{stCref, FormatUnknown}
	}
	return heading{}
}

// maxPrelude is how many non-blank lines a GNU map may show before its
// first known heading; anything else is not a map.
const maxPrelude = 32

// entryCol is the column where GNU ld and gold start the second column of
// their archive and as-needed tables; a longer first column wraps.
const entryCol = 30

// crefCol is the column of the file in a cross reference table.
const crefCol = 50

type pendKind int

const (
	pendNone     pendKind = iota
	pendArchive           // an archive member name waiting for its reason
	pendAsNeeded          // a library name waiting for its reference
	pendDiscard           // a discarded section name waiting for its numbers
	pendOut               // an output section name waiting for its numbers
	pendIn                // an input section name waiting for numbers and file
	pendSynth             // a gold "** name" waiting for its numbers
)

type gnu struct {
	*parser
	state    gnuState
	entries  bool // the current table has had an entry
	headings int
	memMap   bool
	output   bool
	curFile  string // the file of the last input section: symbols are its
	lastFile string // the last file interned (curFile may have been reset)
	pend     pendKind
	pendName []byte
	pendLine int
	libs     map[string]bool // libraries in AsNeeded
}

func (p *parser) parseGNU(first []byte) {
	g := &gnu{parser: p, libs: make(map[string]bool)}
	nonBlank := 0
	l, n := first, p.lr.n
	for {
		if g.headings == 0 && len(trim(l)) > 0 {
			nonBlank++
			if nonBlank > maxPrelude {
				break
			}
		}
		g.line(l, n)
		if p.err != nil {
			return
		}
		var ok bool
		if l, ok = p.lr.next(); !ok {
			break
		}
		n = p.lr.n
	}
	if p.lr.err != nil {
		return
	}
	if g.headings == 0 {
		p.err = &Error{Path: p.name, Msg: "no section heading of a GNU ld or gold map, nor an lld or mold header", Err: ErrUnknownFormat}
		return
	}
	last := p.lr.n
	switch g.pend {
	case pendArchive:
		p.failf(g.pendLine, "truncated: archive member %s has no reason on the next line", quote(g.pendName))
	case pendAsNeeded:
		p.failf(g.pendLine, "truncated: as-needed library %s has no reference on the next line", quote(g.pendName))
	case pendDiscard:
		p.failf(g.pendLine, "truncated: discarded section %s has no address, size and file on the next line", quote(g.pendName))
	}
	if p.err != nil {
		return
	}
	if !g.memMap {
		p.failf(last, "truncated: the map ends before its memory map")
		return
	}
	if p.m.Format == FormatBFD && !g.output {
		p.failf(last, "truncated: the memory map ends without GNU ld's OUTPUT(...) line")
	}
}

func (g *gnu) line(l []byte, n int) {
	if h := gnuHeading(l); h.state != stNone {
		g.heading(h, n)
		return
	}
	switch g.state {
	case stArchive, stAsNeeded:
		g.table(l, n)
	case stDiscarded:
		g.discarded(l, n)
	case stMemMap:
		g.memLine(l, n)
	case stCref:
		g.crefLine(l, n, g.m.Output)
	}
}

func (g *gnu) heading(h heading, n int) {
	if g.pend == pendArchive || g.pend == pendAsNeeded || g.pend == pendDiscard {
		g.failf(g.pendLine, "entry %s is cut off by the heading on line %d", quote(g.pendName), n)
		return
	}
	g.headings++
	if h.format != FormatUnknown {
		switch g.m.Format {
		case FormatUnknown:
			g.m.Format = h.format
		case h.format:
		default:
			g.failf(n, "%s heading in a %s map", h.format, g.m.Format)
			return
		}
	}
	g.state, g.entries, g.pend, g.curFile = h.state, false, pendNone, ""
	switch h.state {
	case stMemMap:
		g.memMap = true
	case stCref:
		g.m.CrossReference = true
	}
}

func (g *gnu) setPending(k pendKind, name []byte, n int) {
	g.pend, g.pendName, g.pendLine = k, append(g.pendName[:0], name...), n
}

// table parses a line of the archive-member or as-needed table:
//
//	NAME<spaces to column 30>FILE (SYMBOL)
//	NAME-AT-LEAST-29-LONG
//	                              FILE (SYMBOL)
//
// with "(--whole-archive)" (bfd), "--whole-archive" or "-u SYMBOL" (gold)
// in place of FILE (SYMBOL).
func (g *gnu) table(l []byte, n int) {
	if len(trim(l)) == 0 {
		if g.pend != pendNone {
			g.failf(g.pendLine, "entry %s has no reason on the next line", quote(g.pendName))
			return
		}
		if g.entries {
			g.state = stNone
		}
		return
	}
	kind := pendArchive
	if g.state == stAsNeeded {
		kind = pendAsNeeded
	}
	var name, rest []byte
	line := n
	if l[0] == ' ' {
		if g.pend == pendNone {
			g.failf(n, "continuation line without an entry before it: %s", quote(l))
			return
		}
		name, rest, line = g.pendName, trim(l), g.pendLine
	} else {
		if g.pend != pendNone {
			g.failf(g.pendLine, "entry %s has no reason on the next line", quote(g.pendName))
			return
		}
		var wrapped bool
		name, rest, wrapped = splitEntry(l)
		if wrapped {
			g.setPending(kind, name, n)
			return
		}
	}
	g.pend = pendNone
	g.entries = true
	byFile, bySym, reason, ok := splitReason(rest)
	if !ok {
		g.failf(n, "cannot read the reason in %s", quote(l))
		return
	}
	// A linker names each member and library once; a repeat (a hostile
	// map repeating one line for gigabytes) keeps its first entry and
	// costs no memory.
	if kind == pendAsNeeded {
		if g.libs[string(name)] {
			return
		}
		k := Kept{Library: g.intern(name), ByFile: g.intern(byFile), BySymbol: string(bySym), Line: line}
		g.libs[k.Library] = true
		g.m.AsNeeded = append(g.m.AsNeeded, k)
		g.keep(int(unsafe.Sizeof(k))+len(name)+len(bySym), line)
		g.addMention(k.ByFile, line)
		return
	}
	if g.members[string(name)] {
		return
	}
	path := g.intern(name)
	e := Extraction{Member: path, ByFile: g.intern(byFile), BySymbol: string(bySym), Reason: g.intern(reason), Line: line}
	if a, m, ok := SplitMember(path); ok {
		e.Archive, e.Member = a, m
	}
	g.members[path] = true
	g.extracted.add(e)
	g.keep(int(unsafe.Sizeof(e))+len(bySym)+len(reason), line)
	// A thin archive's member, named alone by GNU ld, is still a member.
	g.addInput(Input{Path: path, Archive: e.Archive, Member: e.Member, Line: line})
	g.addMention(e.ByFile, line)
}

// splitEntry splits a table line into its two columns; wrapped reports a
// first column alone on its line.
func splitEntry(l []byte) (name, rest []byte, wrapped bool) {
	if len(l) > entryCol && l[entryCol-1] == ' ' && l[entryCol] != ' ' {
		if name = trimRight(l[:entryCol]); len(name) > 0 {
			return name, trim(l[entryCol:]), false
		}
	}
	t := trimRight(l)
	if i := bytes.Index(t, []byte("  ")); i > 0 {
		// Not the column both linkers use: take the first gap.
		return t[:i], trim(t[i:]), false
	}
	return t, nil, true
}

// splitReason splits "FILE (SYMBOL)", "(SYMBOL)", "(--whole-archive)",
// "--whole-archive" and "-u SYMBOL".
func splitReason(r []byte) (file, sym, reason []byte, ok bool) {
	r = trim(r)
	if len(r) == 0 {
		return nil, nil, nil, false
	}
	if r[len(r)-1] == ')' {
		if i := matchOpen(r); i >= 0 {
			file, sym = trim(r[:i]), r[i+1:len(r)-1]
			if len(file) == 0 && bytes.HasPrefix(sym, []byte("--")) {
				return nil, nil, sym, true
			}
			return file, sym, nil, true
		}
	}
	if s, ok := bytes.CutPrefix(r, []byte("-u ")); ok {
		return nil, trim(s), nil, true // as GNU ld's "(SYMBOL)"
	}
	return nil, nil, r, true
}

// discarded parses a line of the discarded-sections table: one space,
// the section name, its address, size and file; or, for a long name, the
// name alone and the numbers and file on the next line, at column 16.
func (g *gnu) discarded(l []byte, n int) {
	if len(trim(l)) == 0 {
		if g.pend != pendNone {
			g.failf(g.pendLine, "discarded section %s has no address, size and file on the next line", quote(g.pendName))
			return
		}
		if g.entries {
			g.state = stNone
		}
		return
	}
	in := indent(l)
	var name, rest []byte
	line := n
	switch {
	case g.pend == pendDiscard:
		if in < 2 {
			g.failf(g.pendLine, "discarded section %s has no address, size and file on the next line", quote(g.pendName))
			return
		}
		name, rest, line = g.pendName, l, g.pendLine
		g.pend = pendNone
	case in == 1:
		name, rest = field(l)
		if len(trim(rest)) == 0 {
			g.setPending(pendDiscard, name, n)
			return
		}
	default:
		g.failf(n, "not a discarded section: %s", quote(l))
		return
	}
	addr, rest := field(rest)
	size, rest := field(rest)
	_, ok1 := parseHex0x(addr)
	sz, ok2 := parseHex0x(size)
	if !ok1 || !ok2 {
		g.failf(n, "discarded section %s: want 0xADDRESS 0xSIZE FILE, have %s", quote(name), quote(l))
		return
	}
	g.entries = true
	file := g.intern(trim(rest))
	if !g.opt.NoSymbols {
		g.m.Discarded = append(g.m.Discarded, Section{Name: g.intern(name), File: file, Size: sz, Line: line})
	}
	g.addMention(file, line)
}

// memLine parses a line of the memory map. It understands output section
// lines (column 0), input section lines (column 1), symbol lines (column
// 16), LOAD and OUTPUT lines, and skips the rest: linker script patterns,
// assignments, fill, and whatever a later linker adds.
func (g *gnu) memLine(l []byte, n int) {
	in := indent(l)
	if in == len(l) {
		g.dropPending()
		return
	}
	switch {
	case in == 0:
		g.dropPending()
		g.outLine(l, n)
	case in == 1:
		g.dropPending()
		if l[1] == '*' && (len(l) < 3 || l[2] != '*') {
			// A linker script pattern " *(.text .text.*)" or " *fill*":
			// half the lines of a GNU ld memory map.
			g.curFile = ""
			return
		}
		g.inLine(l, n)
	case in == 16 && is0x(l[16:]):
		g.addrLine(l[16:], n)
	default:
		g.dropPending()
	}
}

// dropPending forgets a name that was not followed by its numbers: an
// output section that is not in the output (".hash" followed by its
// pattern), or an unknown line.
func (g *gnu) dropPending() { g.pend = pendNone }

func (g *gnu) outLine(l []byte, n int) {
	g.curFile = ""
	if rest, ok := bytes.CutPrefix(l, []byte("LOAD ")); ok {
		path := trim(rest)
		if len(path) == 0 || string(path) == "linker stubs" {
			return
		}
		s := g.intern(path)
		if !g.load[s] {
			g.load[s] = true
			in := Input{Path: s, Line: n}
			if a, m, ok := SplitMember(s); ok {
				in.Archive, in.Member = a, m
			}
			g.loads = append(g.loads, in)
			g.keep(int(unsafe.Sizeof(in))+len(s), n)
			if isShared(s) {
				g.addShared(s)
			}
		}
		return
	}
	if rest, ok := bytes.CutPrefix(l, []byte("OUTPUT(")); ok {
		g.output = true
		rest = bytes.TrimSuffix(trimRight(rest), []byte(")"))
		if i := bytes.LastIndexByte(rest, ' '); i > 0 {
			rest = rest[:i]
		}
		if string(rest) != g.m.Output {
			g.m.Output = string(rest)
		}
		return
	}
	name, rest := field(l)
	if len(trim(rest)) == 0 {
		g.setPending(pendOut, name, n)
		return
	}
	g.outNumbers(name, rest, l, n, n)
}

func (g *gnu) outNumbers(name, rest, l []byte, line, n int) {
	a, rest := field(rest)
	s, _ := field(rest)
	if !is0x(a) {
		return // "START GROUP", "END GROUP", or unknown
	}
	addr, ok1 := parseHex0x(a)
	size, ok2 := parseHex0x(s)
	if !ok1 || !ok2 {
		g.failf(n, "output section %s: want 0xADDRESS 0xSIZE, have %s", quote(name), quote(l))
		return
	}
	if !g.opt.NoSymbols {
		g.outSecs.add(OutputSection{Name: g.intern(name), Addr: addr, Size: size, Line: line})
	}
}

// inKeywords are linker script statements GNU ld prints at the column of
// input sections.
var inKeywords = map[string]bool{
	"BYTE": true, "SHORT": true, "LONG": true, "QUAD": true, "SQUAD": true,
	"FILL": true, "KEEP": true, "ASSERT": true, "SORT": true, "INCLUDE": true,
}

func (g *gnu) inLine(l []byte, n int) {
	name, rest := field(l)
	g.curFile = ""
	switch {
	case bytes.HasPrefix(name, []byte("**")):
		// gold's linker-made contents: "** fill", "** string table", ...
		// possibly with their numbers on the next line.
		if !bytes.Contains(rest, []byte("0x")) {
			g.setPending(pendSynth, name, n)
		}
		return
	case name[0] == '*', bytes.IndexByte(name, '(') >= 0, inKeywords[string(name)]:
		return
	}
	if len(trim(rest)) == 0 {
		g.setPending(pendIn, name, n)
		return
	}
	g.inNumbers(name, rest, l, n)
}

func (g *gnu) inNumbers(name, rest, l []byte, n int) {
	a, rest := field(rest)
	s, rest := field(rest)
	if !is0x(a) {
		return
	}
	_, ok1 := parseHex0x(a)
	_, ok2 := parseHex0x(s)
	if !ok1 || !ok2 {
		g.failf(n, "input section %s: want 0xADDRESS 0xSIZE FILE, have %s", quote(name), quote(l))
		return
	}
	file := trim(rest)
	if len(file) == 0 || isPseudo(file) {
		return
	}
	if string(file) == g.lastFile {
		// Sections of one file often follow each other: skip the lookups.
		g.curFile = g.lastFile
		return
	}
	g.curFile = g.intern(file)
	g.lastFile = g.curFile
	g.addMention(g.curFile, n)
}

// addrLine parses a line that starts at column 16 with an address: the
// numbers of a wrapped name, or a symbol, or an assignment.
func (g *gnu) addrLine(l []byte, n int) {
	a, rest := field(l)
	addr, ok := parseHex0x(a)
	if !ok {
		g.failf(n, "bad address %s", quote(a))
		return
	}
	second := trimLeft(rest)
	if is0x(second) {
		switch g.pend {
		case pendOut:
			g.outNumbers(g.pendName, l, l, g.pendLine, n)
		case pendIn:
			g.inNumbers(g.pendName, l, l, n)
		}
		g.pend = pendNone
		return
	}
	g.pend = pendNone
	name := trimRight(second)
	if len(name) == 0 || isAssignment(name) || isMappingSymbol(name) {
		return
	}
	g.addSymbol(name, Symbol{Addr: addr, File: g.curFile, Line: n})
}

// isAssignment reports a linker script assignment ("_edata = .",
// "PROVIDE (end = .)") where a symbol name would be.
func isAssignment(s []byte) bool {
	return bytes.Contains(s, []byte("= ")) || bytes.HasPrefix(s, []byte("PROVIDE")) ||
		bytes.HasPrefix(s, []byte("HIDDEN")) || bytes.HasPrefix(s, []byte("ASSERT"))
}

// isPseudo reports names maps give to inputs that are not files.
func isPseudo(f []byte) bool {
	return f[0] == '<' || f[0] == '*' || string(f) == "linker stubs"
}

// crefLine parses a line of a cross reference table (bfd, gold, lld):
//
//	SYMBOL<spaces to column 50>FILE
//	                                                  FILE
//
// The first file defines the symbol, the others refer to it. Only the files
// matter here: every one was loaded. output is the output's own name, which
// GNU ld gives for linker-made symbols.
func (p *parser) crefLine(l []byte, n int, output string) {
	t := trim(l)
	if len(t) == 0 {
		return
	}
	if f, rest := field(t); string(f) == "Symbol" && string(trim(rest)) == "File" {
		return // the table's header
	}
	var file []byte
	switch {
	case l[0] == ' ':
		file = t
	case len(l) > crefCol && l[crefCol-1] == ' ' && l[crefCol] != ' ':
		file = trim(l[crefCol:])
	default:
		// A symbol too long for its column: the file follows one space.
		i := bytes.LastIndexByte(t, ' ')
		if i < 0 {
			return
		}
		file = t[i+1:]
	}
	if len(file) == 0 || isPseudo(file) || string(file) == output {
		return
	}
	p.addMention(p.intern(file), n)
}

// isMappingSymbol reports the ARM and AArch64 mapping symbols ($x, $d, $a,
// $t, optionally with a ".suffix"), which mark code and data, not entities.
func isMappingSymbol(s []byte) bool {
	if len(s) < 2 || s[0] != '$' || (len(s) > 2 && s[2] != '.') {
		return false
	}
	switch s[1] {
	case 'x', 'd', 'a', 't':
		return true
	}
	return false
}

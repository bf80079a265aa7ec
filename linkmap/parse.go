package linkmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unsafe"
)

// parser holds what every format's parser shares: the line source, the Map
// being built, and the interned strings that keep the Map small (a file
// name is stored once, however many sections name it).
type parser struct {
	lr   *lineReader
	name string
	m    *Map

	strs map[string]string

	// Inputs in first-mention order and the LOAD list (bfd).
	mentions  list[Input]
	mention   map[string]int // path -> index in mentions
	extracted list[Extraction]
	loads     []Input
	load      map[string]bool
	shared    map[string]bool
	members   map[string]bool // archive members in Extracted
	kept      int             // bytes counted by keep

	outSecs list[OutputSection]
	syms    list[Symbol]
	names   names
	opt     Options

	err *Error // first format error
}

func newParser(r io.Reader, name string) *parser {
	return &parser{
		lr:      newLineReader(r),
		name:    name,
		m:       &Map{Path: name},
		strs:    make(map[string]string),
		mention: make(map[string]int),
		load:    make(map[string]bool),
		shared:  make(map[string]bool),
		members: make(map[string]bool),
	}
}

// failf records a format error at line n (the first one wins).
func (p *parser) failf(n int, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Path: p.name, Line: n, Msg: fmt.Sprintf(format, args...)}
	}
}

// intern returns b as a string, stored once per distinct value.
func (p *parser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	p.strs[s] = s
	return s
}

// run detects the format from the first non-blank line and hands the
// stream to that format's parser.
func (p *parser) run() (*Map, error) {
	var first []byte
	for {
		l, ok := p.lr.next()
		if !ok {
			break
		}
		if len(bytes.TrimSpace(l)) > 0 {
			first = l
			break
		}
	}
	if p.lr.err != nil {
		return nil, &Error{Path: p.name, Line: p.lr.n, Err: p.lr.err}
	}
	if first == nil {
		return nil, &Error{Path: p.name, Msg: "empty file", Err: ErrUnknownFormat}
	}
	if cols, f := tableHeader(first); f != FormatUnknown {
		p.m.Format = f
		p.parseTable(cols)
	} else {
		p.parseGNU(first)
	}
	if p.lr.err != nil {
		return nil, &Error{Path: p.name, Line: p.lr.n, Err: p.lr.err}
	}
	// A last line without a newline explains any error about the end.
	if p.lr.noEOL && (p.err == nil || (p.err.Line == p.lr.n && !errors.Is(p.err, ErrUnknownFormat))) {
		return nil, &Error{Path: p.name, Line: p.lr.n, Msg: "truncated: the last line has no newline"}
	}
	if p.err != nil {
		return nil, p.err
	}
	p.finish()
	return p.m, nil
}

// LooksLikeMap reports whether the first bytes of a file open a linker map
// of any of the formats: lld's or mold's table header on the first line, or
// a GNU ld or gold heading among the first lines, one both print
// ("Discarded input sections") included. A gold map can hold 80 KB of
// discarded sections before the heading that tells it from bfd's, which
// Parse reads on to find.
func LooksLikeMap(head []byte) bool {
	if _, ok := Detect(head); ok {
		return true
	}
	lines := 0
	for len(head) > 0 && lines < maxPrelude {
		var l []byte
		l, head, _ = bytes.Cut(head, []byte{'\n'})
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		lines++
		if h := gnuHeading(l); h.state != stNone {
			return true
		}
	}
	return false
}

// Detect reports the format of a map from its first bytes. lld and mold
// tell themselves apart on the first line; GNU ld and gold by their
// section headings, which may all lie beyond head when it shows only
// headings both print ("Discarded input sections"): then Detect reports
// false, and Parse, which reads on, still decides.
func Detect(head []byte) (Format, bool) {
	first := true
	for len(head) > 0 {
		var l []byte
		l, head, _ = bytes.Cut(head, []byte{'\n'})
		l = bytes.TrimRight(l, "\r")
		if first {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			first = false
			if _, f := tableHeader(l); f != FormatUnknown {
				return f, true
			}
		}
		if h := gnuHeading(l); h.format != FormatUnknown {
			return h.format, true
		}
	}
	return FormatUnknown, false
}

// addMention records that the map names input file path at line n.
func (p *parser) addMention(path string, n int) {
	if path == "" {
		return
	}
	if _, ok := p.mention[path]; ok {
		return
	}
	in := Input{Path: path, Line: n}
	if a, mem, ok := SplitMember(path); ok {
		in.Archive, in.Member = a, mem
	}
	p.addInput(in)
}

// addInput records an input at its first mention.
func (p *parser) addInput(in Input) {
	path := in.Path
	if _, ok := p.mention[path]; ok {
		return
	}
	p.mention[path] = p.mentions.n
	p.mentions.add(in)
	p.keep(int(unsafe.Sizeof(in))+len(path), in.Line)
	if isShared(path) {
		p.addShared(path)
	}
}

// addSymbol records a symbol named name.
func (p *parser) addSymbol(name []byte, s Symbol) {
	if !p.opt.NoSymbols {
		p.names.set(&p.syms.add(s).Name, name)
	}
}

func (p *parser) addShared(path string) {
	if !p.shared[path] {
		p.shared[path] = true
		p.m.Shared = append(p.m.Shared, path)
	}
}

// addExtracted records an archive member seen in a section line (lld,
// mold): the map shows it was extracted, not why.
func (p *parser) addExtracted(path string, n int) {
	if p.members[path] {
		return
	}
	a, mem, ok := SplitMember(path)
	if !ok {
		return
	}
	p.members[path] = true
	p.extracted.add(Extraction{Archive: a, Member: mem, Line: n})
	p.keep(int(unsafe.Sizeof(Extraction{})), n)
}

// keep counts n more bytes held by the entries a parse keeps whatever its
// Options (inputs, members, libraries: their structures and the names
// counted nowhere else) and fails it at line past MaxKept. Shared holds
// inputs already counted.
func (p *parser) keep(n, line int) {
	if p.kept += n; p.kept > MaxKept {
		p.failf(line, "the map names more than %d MiB of inputs, archive members and libraries, more than any link (MaxKept)", MaxKept>>20)
	}
}

// finish builds Loaded: for bfd the LOAD list with each archive's members
// after it, then whatever else the map mentions; for the others, the
// mentions in order.
func (p *parser) finish() {
	p.names.flush() // before the symbols are copied out of their chunks
	p.m.OutputSections = p.outSecs.slice()
	p.m.Symbols = p.syms.slice()
	p.m.Extracted = p.extracted.slice()
	mentions := p.mentions.slice()
	if len(p.loads) == 0 {
		p.m.Loaded = mentions
		return
	}
	byArchive := make(map[string][]int)
	for i, in := range mentions {
		if in.Archive != "" {
			byArchive[in.Archive] = append(byArchive[in.Archive], i)
		}
	}
	done := make([]bool, len(mentions))
	out := make([]Input, 0, len(p.loads)+len(mentions))
	for _, in := range p.loads {
		out = append(out, in)
		if i, ok := p.mention[in.Path]; ok {
			done[i] = true
		}
		for _, i := range byArchive[in.Path] {
			if !done[i] {
				done[i] = true
				out = append(out, mentions[i])
			}
		}
	}
	for i, in := range mentions {
		if !done[i] && !p.load[in.Path] {
			out = append(out, in)
		}
	}
	p.m.Loaded = out
}

// Byte-slice helpers. They never allocate.

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

func trimLeft(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func trim(b []byte) []byte { return trimRight(trimLeft(b)) }

// field splits off the first space-separated field of b (after leading
// spaces); rest starts at the space that ends it.
func field(b []byte) (f, rest []byte) {
	b = trimLeft(b)
	i := 0
	for i < len(b) && !isSpace(b[i]) {
		i++
	}
	return b[:i], b[i:]
}

// indent counts the leading spaces of b.
func indent(b []byte) int {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	return i
}

var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
		t[c-'a'+'A'] = byte(c - 'a' + 10)
	}
	return t
}()

// parseHex parses hex digits with an optional 0x prefix.
func parseHex(b []byte) (uint64, bool) {
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		b = b[2:]
	}
	return parseHexDigits(b)
}

// parseHex0x parses 0x followed by hex digits.
func parseHex0x(b []byte) (uint64, bool) {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') {
		return 0, false
	}
	return parseHexDigits(b[2:])
}

func parseHexDigits(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := hexVal[c]
		if d == 0xff {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	return v, true
}

func parseDec(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// is0x reports whether b starts with "0x".
func is0x(b []byte) bool { return len(b) > 2 && b[0] == '0' && b[1] == 'x' }

// quote shortens a line for an error message.
func quote(b []byte) string {
	const max = 80
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}

// list collects values in chunks and joins them once at the end: a large
// map holds millions of symbols, and append's regrowth would copy them
// several times over and leave the garbage collector the copies.
type list[T any] struct {
	full [][]T
	cur  []T
	n    int
}

// add appends v and returns where it is stored, which stays valid: a
// chunk never grows beyond its capacity.
func (l *list[T]) add(v T) *T {
	if len(l.cur) == cap(l.cur) {
		if l.cur != nil {
			l.full = append(l.full, l.cur)
		}
		l.cur = make([]T, 0, min(max(64, 2*cap(l.cur)), 1<<16))
	}
	l.cur = append(l.cur, v)
	l.n++
	return &l.cur[len(l.cur)-1]
}

// names stores symbol names many to a string: one allocation per 64 KiB of
// names instead of one per symbol. A name kept alone keeps its 64 KiB.
type names struct {
	buf  []byte
	refs []nameRef
}

type nameRef struct {
	dst    *string
	off, n int
}

// set makes *dst hold b, once flush has run.
func (a *names) set(dst *string, b []byte) {
	const chunk = 64 << 10
	if len(b) > chunk/16 {
		*dst = string(b)
		return
	}
	if len(a.buf)+len(b) > chunk {
		a.flush()
	}
	if a.buf == nil {
		a.buf = make([]byte, 0, chunk)
	}
	a.refs = append(a.refs, nameRef{dst, len(a.buf), len(b)})
	a.buf = append(a.buf, b...)
}

func (a *names) flush() {
	s := string(a.buf)
	for _, r := range a.refs {
		*r.dst = s[r.off : r.off+r.n]
	}
	a.buf, a.refs = a.buf[:0], a.refs[:0]
}

// slice returns the values in order (nil for none).
func (l *list[T]) slice() []T {
	if l.n == 0 {
		return nil
	}
	if len(l.full) == 0 {
		return l.cur
	}
	out := make([]T, 0, l.n)
	for _, c := range l.full {
		out = append(out, c...)
	}
	return append(out, l.cur...)
}

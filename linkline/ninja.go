package linkline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// ParseNinja reads a build.ninja (with the files it includes) and returns
// the link of every build statement whose command links. Each rule's
// command is expanded with the statement's variables as ninja does (build
// bindings, then the rule's, then the file's, then the including files'),
// response files declared by rspfile/rspfile_content are read from the
// statement rather than from disk (ninja deletes them after a successful
// build), and each link's Target is the CMake target the statement
// belongs to. A syntax error stops the parse and is returned with the links
// read so far; a statement that cannot be parsed is reported and skipped.
// Each file is read once: a second include or subninja of one file is an
// error (ninja would read it again; CMake never writes one). Response
// files read from disk must lie in the build directory.
func ParseNinja(path string, opt Options) ([]*Link, []error) {
	data, err := readBuildFile(opt.Budget, path, maxInputSize)
	if err != nil {
		return nil, []error{err}
	}
	dir, err := baseDir(opt.Dir, filepath.Dir(path))
	if err != nil {
		return nil, []error{err}
	}
	return parseNinjaData(data, path, dir, opt)
}

// parseNinja parses ninja text from r, named name; includes and commands
// are taken from dir.
func parseNinja(r io.Reader, name, dir string, opt Options) ([]*Link, []error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, []error{fileError(name, err)}
	}
	return parseNinjaData(data, name, dir, opt)
}

func parseNinjaData(data []byte, name, dir string, opt Options) ([]*Link, []error) {
	p := &ninjaParser{s: newSession(opt), dir: dir, reading: map[string]bool{}, read: map[string]string{}, names: map[string]string{}}
	p.s.rspRoot = dir
	top := name
	if real, err := realFile(name); err == nil {
		top = real // an include of the top file is then a cycle
	}
	p.read[top] = name
	p.reading[top] = true
	if err := p.file(data, name, &nScope{}); err != nil {
		p.errs = append(p.errs, err)
	}
	return p.links, p.errs
}

// ErrNinjaSyntax is wrapped by ninja syntax errors.
var ErrNinjaSyntax = errors.New("ninja syntax")

type ninjaParser struct {
	s     *session
	dir   string
	links []*Link
	errs  []error
	depth int
	// reading holds the files being read (real paths), against include
	// cycles; read, every file read and where it was included from
	// ("file:line"), so that each is read once: 40 files each including
	// the next twice would otherwise be read 2^40 times.
	reading map[string]bool
	read    map[string]string
	// expanded counts the bytes the build statements' commands and
	// response files expand to, against maxExpanded.
	expanded int64
	names    map[string]string
}

// maxIncludeDepth bounds includes nested in includes.
const maxIncludeDepth = 64

// nScope is a file's variables and rules; subninja opens a child scope.
type nScope struct {
	vars   map[string]string
	rules  map[string]*nRule
	parent *nScope
}

func (sc *nScope) lookup(name string) string {
	for s := sc; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v
		}
	}
	return ""
}

func (sc *nScope) rule(name string) *nRule {
	for s := sc; s != nil; s = s.parent {
		if r, ok := s.rules[name]; ok {
			return r
		}
	}
	return nil
}

func (sc *nScope) set(name, val string) {
	if sc.vars == nil {
		sc.vars = map[string]string{}
	}
	sc.vars[name] = val
}

type nRule struct {
	name string
	vars map[string]evalStr
}

// evalStr is a ninja string: plain text, or literal text and variable
// references.
type evalStr struct {
	text   string      // the whole string, when it has no variables
	pieces []evalPiece // otherwise
}

type evalPiece struct {
	text  string
	isVar bool
}

// nLexer reads one ninja file.
type nLexer struct {
	data  []byte
	pos   int
	line  int
	file  string
	lit   []byte            // scratch for literal text
	names map[string]string // interned identifiers, shared by the files of a parse
}

func (l *nLexer) errf(format string, args ...any) error {
	return &datafile.Error{Path: l.file, Line: l.line, Err: fmt.Errorf("%w: %s", ErrNinjaSyntax, fmt.Sprintf(format, args...))}
}

func (l *nLexer) eof() bool { return l.pos >= len(l.data) }

// skipSpaces skips blanks and $-newline continuations between tokens.
func (l *nLexer) skipSpaces() {
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == ' ':
			l.pos++
		case c == '$' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '\n':
			l.pos += 2
			l.line++
		case c == '$' && l.pos+2 < len(l.data) && l.data[l.pos+1] == '\r' && l.data[l.pos+2] == '\n':
			l.pos += 3
			l.line++
		default:
			return
		}
	}
}

func isEvalSpecial(c byte, path bool) bool {
	switch c {
	case '$', '\n', '\r':
		return true
	case ' ', ':', '|':
		return path
	}
	return false
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func isSimpleVar(c byte) bool { return isIdent(c) && c != '.' }

func (l *nLexer) ident() string {
	start := l.pos
	for l.pos < len(l.data) && isIdent(l.data[l.pos]) {
		l.pos++
	}
	if start == l.pos {
		return ""
	}
	return l.intern(l.data[start:l.pos])
}

// newline consumes the end of a line (after optional blanks).
func (l *nLexer) newline() error {
	l.skipSpaces()
	if l.eof() {
		return nil
	}
	if l.data[l.pos] == '\r' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '\n' {
		l.pos++
	}
	if l.data[l.pos] != '\n' {
		return l.errf("expected newline, got %q", l.data[l.pos])
	}
	l.pos++
	l.line++
	return nil
}

// eval reads a ninja string. In path mode it stops before a blank, ':' or
// '|'; in value mode it runs to the end of the line. The newline is not
// consumed.
func (l *nLexer) eval(path bool) (evalStr, error) {
	var pieces []evalPiece
	lit := l.lit[:0]
	defer func() { l.lit = lit[:0] }()
	flush := func() {
		if len(lit) > 0 {
			pieces = append(pieces, evalPiece{text: string(lit)})
			lit = lit[:0]
		}
	}
	done := func() (evalStr, error) {
		if pieces == nil {
			return evalStr{text: string(lit)}, nil
		}
		flush()
		return evalStr{pieces: pieces}, nil
	}
	for l.pos < len(l.data) {
		c := l.data[l.pos]
		switch {
		case c == '\n':
			return done()
		case c == '\r' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '\n':
			return done()
		case path && (c == ' ' || c == ':' || c == '|'):
			return done()
		case c != '$':
			j := l.pos + 1
			for j < len(l.data) && !isEvalSpecial(l.data[j], path) {
				j++
			}
			lit = append(lit, l.data[l.pos:j]...)
			l.pos = j
			continue
		}
		// A $-escape.
		if l.pos+1 >= len(l.data) {
			return evalStr{}, l.errf("unterminated $-escape")
		}
		d := l.data[l.pos+1]
		switch {
		case d == '$' || d == ' ' || d == ':':
			lit = append(lit, d)
			l.pos += 2
		case d == '\n':
			l.pos += 2
			l.line++
			for l.pos < len(l.data) && l.data[l.pos] == ' ' {
				l.pos++
			}
		case d == '\r' && l.pos+2 < len(l.data) && l.data[l.pos+2] == '\n':
			l.pos += 3
			l.line++
			for l.pos < len(l.data) && l.data[l.pos] == ' ' {
				l.pos++
			}
		case d == '{':
			end := l.pos + 2
			for end < len(l.data) && isIdent(l.data[end]) {
				end++
			}
			if end >= len(l.data) || l.data[end] != '}' {
				if end >= len(l.data) || l.data[end] == '\n' {
					return evalStr{}, l.errf("unterminated $-escape")
				}
				return evalStr{}, l.errf("bad $-escape (literal $ must be written as $$)")
			}
			flush()
			pieces = append(pieces, evalPiece{text: l.intern(l.data[l.pos+2 : end]), isVar: true})
			l.pos = end + 1
		case isSimpleVar(d):
			end := l.pos + 1
			for end < len(l.data) && isSimpleVar(l.data[end]) {
				end++
			}
			flush()
			pieces = append(pieces, evalPiece{text: l.intern(l.data[l.pos+1 : end]), isVar: true})
			l.pos = end
		default:
			return evalStr{}, l.errf("bad $-escape (literal $ must be written as $$)")
		}
	}
	return done()
}

// intern returns b as a string, the same string for the same bytes: ninja
// files repeat a few variable names thousands of times.
func (l *nLexer) intern(b []byte) string {
	if s, ok := l.names[string(b)]; ok {
		return s
	}
	s := string(b)
	l.names[s] = s
	return s
}

// maxNinjaValue bounds a variable's expanded value: a 1 KB build.ninja
// that doubles a variable 59 times would otherwise ask for an exabyte.
// CMake's longest link commands are a few megabytes.
const maxNinjaValue = 16 << 20

// maxExpanded bounds what all the build statements of one parse expand to:
// each is bounded by maxNinjaValue, but 1,000 statements naming one 16 MB
// variable would expand 16 GB (and hold their response files, and split
// them at about 100 MB/s). CMake's commands and response files are a few
// kilobytes each: ExecuTorch's build.ninja (1,473 statements, 3.4 MB)
// expands to 2.7 MB.
const maxExpanded = 256 << 20

// evaluate expands s with lookup; past maxNinjaValue it stops, and the
// value is longer than maxNinjaValue (tooLong says so).
func (s evalStr) evaluate(lookup func(string) string) string {
	if s.pieces == nil {
		return s.text
	}
	if len(s.pieces) == 1 && s.pieces[0].isVar {
		return lookup(s.pieces[0].text)
	}
	var b strings.Builder
	n := 0
	for _, p := range s.pieces {
		n += len(p.text) + 16
	}
	b.Grow(n)
	for _, p := range s.pieces {
		if b.Len() > maxNinjaValue {
			break
		}
		if p.isVar {
			b.WriteString(lookup(p.text))
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// tooLong is the error for a value evaluate cut short.
func (l *nLexer) tooLong(name string, v string) error {
	if len(v) <= maxNinjaValue {
		return nil
	}
	return l.errf("variable %s expands to more than %d bytes", name, maxNinjaValue)
}

// lets reads the indented "name = value" lines of a rule, build or pool,
// handing each to fn.
func (l *nLexer) lets(fn func(name string, v evalStr)) error {
	for l.pos < len(l.data) && l.data[l.pos] == ' ' {
		start := l.pos
		for l.pos < len(l.data) && l.data[l.pos] == ' ' {
			l.pos++
		}
		if l.eof() || l.data[l.pos] == '\n' || l.data[l.pos] == '\r' {
			l.pos = start
			return nil // a blank line ends the block
		}
		if l.data[l.pos] == '#' {
			l.skipLine()
			continue
		}
		name := l.ident()
		if name == "" {
			return l.errf("expected variable name")
		}
		l.skipSpaces()
		if l.eof() || l.data[l.pos] != '=' {
			return l.errf("expected '=' after %s", name)
		}
		l.pos++
		l.skipSpaces()
		v, err := l.eval(false)
		if err != nil {
			return err
		}
		if err := l.newline(); err != nil {
			return err
		}
		fn(name, v)
	}
	return nil
}

// skipLine skips the rest of the line and returns it (without the newline).
func (l *nLexer) skipLine() []byte {
	start := l.pos
	for l.pos < len(l.data) && l.data[l.pos] != '\n' {
		l.pos++
	}
	text := bytes.TrimRight(l.data[start:l.pos], "\r")
	if l.pos < len(l.data) {
		l.pos++
		l.line++
	}
	return text
}

// file parses one ninja file into scope.
func (p *ninjaParser) file(data []byte, name string, sc *nScope) error {
	l := &nLexer{data: data, line: 1, file: name, names: p.names}
	var ct cmakeComments
	for !l.eof() {
		c := l.data[l.pos]
		switch {
		case c == '\n' || c == '\r':
			if c == '\r' && (l.pos+1 >= len(l.data) || l.data[l.pos+1] != '\n') {
				return l.errf("unexpected carriage return")
			}
			l.skipLine()
			continue
		case c == '#':
			ct.note(l.skipLine())
			continue
		case c == ' ':
			// Blank or comment lines may be indented; anything else is not.
			start := l.pos
			for l.pos < len(l.data) && l.data[l.pos] == ' ' {
				l.pos++
			}
			if l.eof() || l.data[l.pos] == '\n' || l.data[l.pos] == '\r' || l.data[l.pos] == '#' {
				l.skipLine()
				continue
			}
			l.pos = start
			return l.errf("unexpected indent")
		}
		line := l.line
		kw := l.ident()
		var err error
		switch kw {
		case "":
			return l.errf("unexpected %q", c)
		case "rule":
			err = p.rule(l, sc)
		case "build":
			err = p.build(l, sc, line, &ct)
		case "default":
			_, err = l.eval(false)
			if err == nil {
				err = l.newline()
			}
		case "pool":
			l.skipSpaces()
			if l.ident() == "" {
				return l.errf("expected pool name")
			}
			if err = l.newline(); err == nil {
				err = l.lets(func(string, evalStr) {})
			}
		case "include", "subninja":
			err = p.include(l, sc, kw)
		default:
			l.skipSpaces()
			if l.eof() || l.data[l.pos] != '=' {
				return l.errf("expected '=' after %s", kw)
			}
			l.pos++
			l.skipSpaces()
			var v evalStr
			if v, err = l.eval(false); err == nil {
				val := v.evaluate(sc.lookup)
				sc.set(kw, val)
				if err = l.tooLong(kw, val); err == nil {
					err = l.newline()
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *ninjaParser) rule(l *nLexer, sc *nScope) error {
	l.skipSpaces()
	name := l.ident()
	if name == "" {
		return l.errf("expected rule name")
	}
	if err := l.newline(); err != nil {
		return err
	}
	r := &nRule{name: name, vars: map[string]evalStr{}}
	if err := l.lets(func(n string, v evalStr) { r.vars[n] = v }); err != nil {
		return err
	}
	if sc.rules == nil {
		sc.rules = map[string]*nRule{}
	}
	sc.rules[name] = r
	return nil
}

func (p *ninjaParser) include(l *nLexer, sc *nScope, kw string) error {
	l.skipSpaces()
	v, err := l.eval(true)
	if err != nil {
		return err
	}
	line := l.line
	if err := l.newline(); err != nil {
		return err
	}
	rel := v.evaluate(sc.lookup)
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.dir, path)
	}
	at := fmt.Sprintf("%s:%d", l.file, line)
	fail := func(err error) error {
		return &datafile.Error{Path: l.file, Line: line, Err: fmt.Errorf("%s %s: %w", kw, rel, err)}
	}
	real, err := realFile(path)
	if err != nil {
		return fail(err)
	}
	switch {
	case p.reading[real]:
		return fail(fmt.Errorf("%w: include cycle", ErrNinjaSyntax))
	case p.read[real] != "":
		// Ninja would read it again; CMake never writes this.
		return fail(fmt.Errorf("%w: %s is included a second time (first at %s): a file is read once", ErrNinjaSyntax, path, p.read[real]))
	case p.depth >= maxIncludeDepth:
		return fail(fmt.Errorf("%w: includes nested deeper than %d", ErrNinjaSyntax, maxIncludeDepth))
	}
	p.read[real] = at
	data, err := readBuildFile(p.s.opt.Budget, path, maxInputSize)
	if err != nil {
		return fail(err)
	}
	if kw == "subninja" {
		sc = &nScope{parent: sc}
	}
	p.reading[real] = true
	p.depth++
	defer func() { p.depth--; delete(p.reading, real) }()
	return p.file(data, path, sc)
}

// build parses a build statement and, when its command links, the link.
func (p *ninjaParser) build(l *nLexer, sc *nScope, line int, ct *cmakeComments) error {
	var outs, ins []evalStr
	explicitOut := -1
	explicitIn := -1
	// Outputs up to ':'.
	for {
		l.skipSpaces()
		if l.eof() {
			return l.errf("expected ':' in build statement")
		}
		c := l.data[l.pos]
		if c == ':' {
			l.pos++
			break
		}
		if c == '|' {
			explicitOut = len(outs)
			l.pos++
			continue
		}
		if c == '\n' || c == '\r' {
			return l.errf("expected ':' in build statement")
		}
		v, err := l.eval(true)
		if err != nil {
			return err
		}
		outs = append(outs, v)
	}
	if explicitOut < 0 {
		explicitOut = len(outs)
	}
	l.skipSpaces()
	ruleName := l.ident()
	if ruleName == "" {
		return l.errf("expected build command name")
	}
	for {
		l.skipSpaces()
		if l.eof() {
			break
		}
		c := l.data[l.pos]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '|' {
			if explicitIn < 0 {
				explicitIn = len(ins)
			}
			l.pos++
			for l.pos < len(l.data) && (l.data[l.pos] == '|' || l.data[l.pos] == '@') {
				l.pos++
			}
			continue
		}
		if c == ':' {
			return l.errf("unexpected ':'")
		}
		v, err := l.eval(true)
		if err != nil {
			return err
		}
		ins = append(ins, v)
	}
	if explicitIn < 0 {
		explicitIn = len(ins)
	}
	if err := l.newline(); err != nil {
		return err
	}
	// Build bindings are evaluated in the file's scope, paths in the
	// statement's.
	bindings := make(map[string]string, 12)
	var long error
	if err := l.lets(func(n string, v evalStr) {
		bindings[n] = v.evaluate(sc.lookup)
		if long == nil {
			long = l.tooLong(n, bindings[n])
		}
	}); err != nil {
		return err
	}
	if long != nil {
		return long
	}
	target := ct.take()
	if ruleName == "phony" {
		return nil
	}
	r := sc.rule(ruleName)
	if r == nil {
		return &datafile.Error{Path: l.file, Line: line, Err: fmt.Errorf("%w: unknown build rule %q", ErrNinjaSyntax, ruleName)}
	}
	if _, ok := r.vars["command"]; !ok {
		return nil
	}
	e := &edgeEnv{rule: r, scope: sc, build: bindings}
	for i, o := range outs {
		if i < explicitOut {
			e.outs = append(e.outs, o.evaluate(e.pathLookup))
		}
	}
	for i, in := range ins {
		if i < explicitIn {
			e.ins = append(e.ins, in.evaluate(e.pathLookup))
		}
	}
	cmd := e.lookup("command")
	if e.err != nil {
		return &datafile.Error{Path: l.file, Line: line, Err: e.err}
	}
	src := Source{File: l.file, Line: line}
	p.expanded += int64(len(cmd))
	if rsp := e.lookup("rspfile"); rsp != "" {
		path := rsp
		if !filepath.IsAbs(path) {
			path = filepath.Join(p.dir, path)
		}
		content := e.lookup("rspfile_content")
		p.expanded += int64(len(content))
		p.s.overlay[filepath.Clean(path)] = content
		p.s.overlaySrc[filepath.Clean(path)] = l.file
	}
	if p.expanded > maxExpanded {
		return &datafile.Error{Path: l.file, Line: line, Err: fmt.Errorf("%w: the build statements' commands and response files expand to more than %d bytes in all", ErrNinjaSyntax, maxExpanded)}
	}
	if !mayLink(cmd) {
		return nil
	}
	links, err := p.s.parseShell(cmd, p.dir, src, false)
	if errors.Is(err, ErrNotLink) {
		return nil
	}
	if err != nil {
		p.errs = append(p.errs, err)
	}
	if target == "" {
		target = targetFromNinja(ruleName, e.build)
	}
	for _, lk := range links {
		lk.Target = target
		p.links = append(p.links, lk)
	}
	return nil
}

// mayLink is a cheap filter before shell parsing: a compile command.
func mayLink(cmd string) bool {
	return !strings.Contains(cmd, " -c ") || strings.Contains(cmd, "&&")
}

// edgeEnv looks a variable up for a build statement's rule.
type edgeEnv struct {
	build      map[string]string
	rule       *nRule
	scope      *nScope
	ins, outs  []string
	depth      int
	err        error
	inRuleVars bool
}

// pathLookup is the scope of a statement's paths: its bindings, then the file.
func (e *edgeEnv) pathLookup(name string) string {
	if v, ok := e.build[name]; ok {
		return v
	}
	return e.scope.lookup(name)
}

func (e *edgeEnv) lookup(name string) string {
	switch name {
	case "in":
		return joinShell(e.ins, " ")
	case "in_newline":
		return strings.Join(e.ins, "\n")
	case "out":
		return joinShell(e.outs, " ")
	}
	if v, ok := e.build[name]; ok {
		return v
	}
	if v, ok := e.rule.vars[name]; ok {
		if e.depth > 64 {
			if e.err == nil {
				e.err = fmt.Errorf("%w: cycle in rule variable %s", ErrNinjaSyntax, name)
			}
			return ""
		}
		e.depth++
		defer func() { e.depth-- }()
		val := v.evaluate(e.lookup)
		if len(val) > maxNinjaValue && e.err == nil {
			e.err = fmt.Errorf("%w: rule variable %s expands to more than %d bytes", ErrNinjaSyntax, name, maxNinjaValue)
		}
		return val
	}
	return e.scope.lookup(name)
}

// joinShell joins paths as ninja's $in and $out do, quoting for sh the
// ones with characters it does not know to be safe.
func joinShell(paths []string, sep string) string {
	var b strings.Builder
	for i, p := range paths {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(shellEscape(p))
	}
	return b.String()
}

func shellEscape(s string) string {
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_+-./", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cmakeComments follows the comments CMake's Ninja generator writes before
// a target's statements ("# Link build statements for EXECUTABLE target
// app", "# Utility command for docs") to name the target of the statements
// that follow.
type cmakeComments struct {
	target string
}

func (c *cmakeComments) note(line []byte) {
	// Most comments are rules of '#' and blank lines: look at a comment
	// only when it can be one of CMake's.
	if !bytes.Contains(line, []byte(" for ")) {
		return
	}
	text := strings.TrimSpace(strings.TrimPrefix(string(line), "#"))
	for _, p := range []string{"Link build statements for ", "Object build statements for "} {
		if rest, ok := strings.CutPrefix(text, p); ok {
			if _, name, ok := strings.Cut(rest, " target "); ok {
				c.target = strings.TrimSpace(name)
			}
			return
		}
	}
	if rest, ok := strings.CutPrefix(text, "Utility command for "); ok {
		c.target = strings.TrimSpace(rest)
	}
}

// take returns the target for the statement that follows.
func (c *cmakeComments) take() string { return c.target }

// targetFromNinja names a target from CMake's rule name
// (CXX_SHARED_LIBRARY_LINKER__foo_Release) or TARGET_PDB (foo.so.dbg).
func targetFromNinja(rule string, vars map[string]string) string {
	if _, rest, ok := strings.Cut(rule, "_LINKER__"); ok {
		if k := strings.LastIndexByte(rest, '_'); k > 0 {
			return rest[:k]
		}
	}
	if pdb := vars["TARGET_PDB"]; pdb != "" {
		t := strings.TrimSuffix(pdb, ".dbg")
		if ext := filepath.Ext(vars["TARGET_FILE"]); ext != "" {
			t = strings.TrimSuffix(t, ext)
		}
		return t
	}
	return ""
}

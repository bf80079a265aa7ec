package pyload

import (
	"strings"
)

// tok is one Python token: a name (dotted names are several), a string
// literal (its text, quotes and prefix removed; an f-string's braces kept),
// a number, or an operator.
type tok struct {
	kind byte // 'n' name, 's' string, 'f' f-string, 'd' number, 'o' operator
	s    string
}

// stmt is one logical statement: a simple one, or a compound header (kw
// set: if, elif, else, try, except, finally, with, for, while, def, class)
// and its body.
type stmt struct {
	line int
	kw   string
	toks []tok // the header without its keyword and colon, or the statement
	body []*stmt
	// lazy is where the body of a def or class starts while it is not
	// built (block): most of a package's functions are never called.
	lazy *lazyBody
}

// logical is a logical line: its first physical line, its indentation and
// its tokens.
type logical struct {
	line, indent int
	toks         []tok
}

// lexer splits source into logical lines of tokens, one line at a time.
// Comments, blank lines, line continuations (brackets, backslashes) and
// every form of string literal are handled; what is not Python yields
// tokens that match nothing the reader looks for.
type lexer struct {
	src     string
	i       int
	line    int // the physical line at i
	depth   int // brackets open
	atStart bool
	cur     logical // the line being read (line and indent)
}

func newLexer(src string) lexer {
	return lexer{src: src, line: 1, atStart: true, cur: logical{line: 1, indent: -1}}
}

// next reads the next logical line that holds a token, its tokens appended
// to dst; false at the end of the source.
func (lx *lexer) next(dst []tok) (logical, bool) {
	src, i, line, depth, atStart := lx.src, lx.i, lx.line, lx.depth, lx.atStart
	toks := dst
	for i < len(src) {
		c := src[i]
		if atStart && depth == 0 && len(toks) == 0 {
			// Measure the indentation of a line that starts a statement.
			n, j := 0, i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				if src[j] == '\t' {
					n = (n/8 + 1) * 8
				} else {
					n++
				}
				j++
			}
			lx.cur.indent, lx.cur.line, i = n, line, j
			atStart = false
			continue
		}
		switch {
		case c == '\n':
			line++
			i++
			atStart = true
			if depth == 0 {
				l := logical{lx.cur.line, lx.cur.indent, toks}
				lx.cur = logical{line: line, indent: -1}
				if len(toks) > 0 {
					lx.i, lx.line, lx.depth, lx.atStart = i, line, depth, atStart
					return l, true
				}
			}
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '"' || c == '\'':
			s, n, lines := readString(src[i:])
			toks = append(toks, tok{'s', s})
			i += n
			line += lines
		case isNameStart(c):
			j := i
			for j < len(src) && isNameChar(src[j]) {
				j++
			}
			word := src[i:j]
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && isStringPrefix(word) {
				s, n, lines := readString(src[j:])
				kind := byte('s')
				if strings.ContainsAny(word, "fF") {
					kind = 'f'
				}
				toks = append(toks, tok{kind, s})
				i = j + n
				line += lines
				continue
			}
			toks = append(toks, tok{'n', word})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isNameChar(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, tok{'d', src[i:j]})
			i = j
		default:
			op := src[i : i+1]
			if i+1 < len(src) {
				two := src[i : i+2]
				switch two {
				case "==", "!=", "<=", ">=", "**", "//", "->", "+=", "-=", "|=", "&=", ":=", "<<", ">>":
					op = two
				}
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth > 0 {
					depth--
				}
			}
			toks = append(toks, tok{'o', op})
			i += len(op)
		}
	}
	lx.i, lx.line, lx.depth, lx.atStart = i, line, depth, atStart
	l := logical{lx.cur.line, lx.cur.indent, toks}
	lx.cur = logical{line: line, indent: -1}
	return l, len(toks) > 0
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameChar(c byte) bool { return nameChars[c] }

// nameChars[c] is whether c can be part of a name.
var nameChars = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isNameStart(byte(c)) || c >= '0' && c <= '9'
	}
	return t
}()

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "b", "u", "f", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

// readString reads the string literal at the start of s: its text (as
// written: a substring of s, escapes kept), how many bytes it spans, and
// how many newlines.
func readString(s string) (text string, n, lines int) {
	q := s[:1]
	if len(s) >= 3 && s[1] == s[0] && s[2] == s[0] {
		q = s[:3]
	}
	for i := len(q); i < len(s); i++ {
		switch c := s[i]; {
		case c == q[0] && strings.HasPrefix(s[i:], q):
			return s[len(q):i], i + len(q), lines
		case c == '\n':
			lines++
			if len(q) == 1 {
				return s[len(q):i], i, lines - 1 // unterminated: ends at the line
			}
		case c == '\\' && i+1 < len(s):
			if s[i+1] == '\n' {
				lines++
			}
			i++
		}
	}
	return s[len(q):], len(s), lines
}

var compound = map[string]bool{"if": true, "elif": true, "else": true, "try": true, "except": true,
	"finally": true, "with": true, "for": true, "while": true, "def": true, "class": true}

// parse builds the statement tree of src.
func parse(src string) []*stmt {
	return newParser(newLexer(src), lazyNesting).block(-1, 0)
}

// parser builds statements from a lexer's logical lines, as inline splits
// them. Each line's tokens go to a slice of a chunk shared with the lines
// before it (one allocation for many lines).
type parser struct {
	lx      lexer
	toks    []tok     // the chunk: its length is what lines hold
	pending []logical // what inline made of the line read last, not taken yet
	pieces  [4]logical
	scratch []tok // the tokens of a line skipped
	lazy    int   // how deep def and class bodies are put off (lazyNesting)
}

// Chunks of tokens start small (a function's body) and double.
const minChunk, maxChunk = 64, 4096

func newParser(lx lexer, lazy int) *parser {
	return &parser{lx: lx, lazy: lazy, toks: make([]tok, 0, minChunk)}
}

// peek returns the next statement's line without taking it.
func (p *parser) peek() (logical, bool) {
	for len(p.pending) == 0 {
		room := p.toks[len(p.toks):]
		l, ok := p.lx.next(room)
		if !ok {
			return logical{}, false
		}
		if n := len(l.toks); n <= cap(room) {
			p.toks = p.toks[:len(p.toks)+n]
		} else { // the line did not fit: the next ones go to a new chunk
			p.toks = make([]tok, 0, min(max(2*cap(p.toks), minChunk), maxChunk))
		}
		l.toks = l.toks[:len(l.toks):len(l.toks)]
		p.pending = inline(l, p.pieces[:0])
	}
	return p.pending[0], true
}

// lazyNesting is how deep a def or class is put off (stmt.lazy): a body
// built when called skips its own nested bodies again, so hostile source
// is scanned at most lazyNesting+1 times.
const lazyNesting = 4

// skipBody moves past the body of the def or class just read, at a block
// indented indent, and returns the lexer where the body starts: the
// lines block would read as the body, found without building them.
func (p *parser) skipBody(indent int) lexer {
	start := p.lx
	body := -1
	for {
		at := p.lx
		l, ok := p.lx.next(p.scratch[:0])
		if !ok {
			break
		}
		p.scratch = l.toks
		if len(inline(l, p.pieces[:0])) == 0 {
			continue // no statement (";" alone)
		}
		if l.indent <= indent || body >= 0 && l.indent < body {
			p.lx = at
			break
		}
		if body < 0 {
			body = l.indent
		}
	}
	return start
}

// inline splits "if x: y; z" into the header and its body, indented
// deeper, and "a; b" into two statements, appended to out.
func inline(l logical, out []logical) []logical {
	toks := l.toks
	if len(toks) > 0 && toks[0].kind == 'n' && toks[0].s == "async" {
		toks = toks[1:]
	}
	if len(toks) > 0 && toks[0].kind == 'n' && compound[toks[0].s] {
		if c := colonAt(toks); c >= 0 && c+1 < len(toks) {
			out = append(out, logical{l.line, l.indent, toks[:c+1]})
			return inline(logical{l.line, l.indent + 1, toks[c+1:]}, out)
		}
		return append(out, logical{l.line, l.indent, toks})
	}
	start := 0
	topOps(toks, func(i int, op string) bool {
		if op == ";" {
			if i > start {
				out = append(out, logical{l.line, l.indent, toks[start:i]})
			}
			start = i + 1
		}
		return true
	})
	if len(toks) > start {
		out = append(out, logical{l.line, l.indent, toks[start:]})
	}
	return out
}

// colonAt is the index of the colon that ends a compound header: the first
// at bracket depth 0 that is not a lambda's.
func colonAt(toks []tok) int {
	depth, lambdas := 0, 0
	for i, t := range toks {
		switch {
		case t.kind == 'n' && t.s == "lambda" && depth == 0:
			lambdas++
		case t.kind != 'o':
		case t.s == "(" || t.s == "[" || t.s == "{":
			depth++
		case t.s == ")" || t.s == "]" || t.s == "}":
			depth--
		case t.s == ":" && depth == 0:
			if lambdas > 0 {
				lambdas--
				continue
			}
			return i
		}
	}
	return -1
}

// maxBlocks bounds how deep blocks nest: deeper lines are read as part
// of the innermost block (hostile source must not exhaust the stack).
const maxBlocks = 100

// block reads statements indented deeper than parent.
func (p *parser) block(parent, nesting int) []*stmt {
	var out []*stmt
	indent := -1
	for {
		l, ok := p.peek()
		if !ok || l.indent <= parent {
			break
		}
		if indent < 0 {
			indent = l.indent
		}
		if l.indent < indent {
			break
		} // a stray deeper line is read as part of the block
		s := &stmt{line: l.line, toks: l.toks}
		p.pending = p.pending[1:]
		if t := l.toks; len(t) > 0 && t[0].kind == 'n' && compound[t[0].s] && t[len(t)-1].kind == 'o' && t[len(t)-1].s == ":" && nesting < maxBlocks {
			s.kw, s.toks = t[0].s, t[1:len(t)-1]
			if (s.kw == "def" || s.kw == "class") && len(p.pending) == 0 && nesting < p.lazy {
				s.lazy = &lazyBody{lx: p.skipBody(indent), parent: indent, nesting: nesting + 1}
			} else {
				s.body = p.block(indent, nesting+1)
			}
		}
		out = append(out, s)
	}
	return out
}

// lazyBody is a body whose building was put off: where its lines start.
type lazyBody struct {
	lx              lexer
	parent, nesting int
}

// block is the statement's body, built the first time it is asked for
// when it was put off.
func (s *stmt) block() []*stmt {
	if b := s.lazy; b != nil {
		s.body, s.lazy = newParser(b.lx, lazyNesting).block(b.parent, b.nesting), nil
	}
	return s.body
}

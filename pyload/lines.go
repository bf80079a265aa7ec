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
}

// logical is a logical line: its first physical line, its indentation and
// its tokens.
type logical struct {
	line, indent int
	toks         []tok
}

// tokenize splits src into logical lines of tokens. Comments, blank lines,
// line continuations (brackets, backslashes) and every form of string
// literal are handled; what is not Python yields tokens that match
// nothing the reader looks for.
func tokenize(src string) []logical {
	var out []logical
	cur := logical{line: 1, indent: -1}
	line, depth := 1, 0
	flush := func() {
		if len(cur.toks) > 0 {
			out = append(out, cur)
		}
		cur = logical{line: line, indent: -1}
	}
	i := 0
	atStart := true
	for i < len(src) {
		c := src[i]
		if atStart && depth == 0 && len(cur.toks) == 0 {
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
			cur.indent, cur.line, i = n, line, j
			atStart = false
			continue
		}
		switch {
		case c == '\n':
			line++
			i++
			atStart = true
			if depth == 0 {
				flush()
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
			cur.toks = append(cur.toks, tok{'s', s})
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
				cur.toks = append(cur.toks, tok{kind, s})
				i = j + n
				line += lines
				continue
			}
			cur.toks = append(cur.toks, tok{'n', word})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isNameChar(src[j]) || src[j] == '.') {
				j++
			}
			cur.toks = append(cur.toks, tok{'d', src[i:j]})
			i = j
		default:
			op := string(c)
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
			cur.toks = append(cur.toks, tok{'o', op})
			i += len(op)
		}
	}
	flush()
	return out
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameChar(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "b", "u", "f", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

// readString reads the string literal at the start of s: its text, how
// many bytes it spans, and how many newlines.
func readString(s string) (text string, n, lines int) {
	q := s[:1]
	if strings.HasPrefix(s, q+q+q) {
		q = q + q + q
	}
	i := len(q)
	var b strings.Builder
	for i < len(s) {
		if strings.HasPrefix(s[i:], q) {
			return b.String(), i + len(q), lines
		}
		c := s[i]
		if c == '\n' {
			lines++
			if len(q) == 1 {
				return b.String(), i, lines - 1 // unterminated: ends at the line
			}
		}
		if c == '\\' && i+1 < len(s) {
			if s[i+1] == '\n' {
				lines++
			}
			b.WriteByte(c)
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String(), len(s), lines
}

var compound = map[string]bool{"if": true, "elif": true, "else": true, "try": true, "except": true,
	"finally": true, "with": true, "for": true, "while": true, "def": true, "class": true}

// parse builds the statement tree of src.
func parse(src string) []*stmt {
	lines := tokenize(src)
	var split []logical // compound headers with an inline body split in two
	for _, l := range lines {
		split = append(split, inline(l)...)
	}
	stmts, _ := block(split, 0, -1, 0)
	return stmts
}

// inline splits "if x: y; z" into the header and its body, indented
// deeper, and "a; b" into two statements.
func inline(l logical) []logical {
	toks := l.toks
	if len(toks) > 0 && toks[0].kind == 'n' && toks[0].s == "async" {
		toks = toks[1:]
	}
	if len(toks) > 0 && toks[0].kind == 'n' && compound[toks[0].s] {
		if c := colonAt(toks); c >= 0 && c+1 < len(toks) {
			head := logical{l.line, l.indent, toks[:c+1]}
			rest := logical{l.line, l.indent + 1, toks[c+1:]}
			return append([]logical{head}, inline(rest)...)
		}
		return []logical{{l.line, l.indent, toks}}
	}
	var out []logical
	for _, part := range splitTop(toks, ";") {
		if len(part) > 0 {
			out = append(out, logical{l.line, l.indent, part})
		}
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

// block reads statements indented deeper than parent from lines[i:].
func block(lines []logical, i, parent, nesting int) ([]*stmt, int) {
	var out []*stmt
	indent := -1
	for i < len(lines) {
		l := lines[i]
		if l.indent <= parent {
			break
		}
		if indent < 0 {
			indent = l.indent
		}
		if l.indent < indent {
			break
		}
		if l.indent > indent { // stray deeper line: read as part of the block
			l.indent = indent
		}
		s := &stmt{line: l.line, toks: l.toks}
		i++
		if t := l.toks; len(t) > 0 && t[0].kind == 'n' && compound[t[0].s] && t[len(t)-1].kind == 'o' && t[len(t)-1].s == ":" && nesting < maxBlocks {
			s.kw, s.toks = t[0].s, t[1:len(t)-1]
			s.body, i = block(lines, i, indent, nesting+1)
		}
		out = append(out, s)
	}
	return out, i
}

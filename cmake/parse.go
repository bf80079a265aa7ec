package cmake

import (
	"bytes"
	"fmt"
	"strings"
)

// Limits on what Parse accepts. CMake itself has none, but a lint that runs
// on every pull request must not be stalled by a hostile or broken file.
const (
	// MaxFileSize is the largest list file Parse reads, in bytes.
	MaxFileSize = 16 << 20
	// MaxNesting is the deepest parenthesis nesting inside one command
	// invocation, as in if((((a)))).
	MaxNesting = 1000
)

// File is one parsed list file (CMakeLists.txt or *.cmake).
type File struct {
	Path     string
	Commands []*Command
	// Comments are every line and bracket comment, in order; suppression
	// directives such as "# etlink: ignore ET202 reason" are read from them.
	Comments []Comment
}

// Command is one command invocation, name(args).
type Command struct {
	// Name is the command name lowercased (command names are
	// case-insensitive); Raw is the name as written.
	Name, Raw string
	Args      []Arg
	// Line and Col locate the name; EndLine is the line of the closing ")".
	Line, Col, EndLine int
	File               string
}

// Quoting says how an argument was delimited.
type Quoting int

// The three kinds of argument of cmake-language(7).
const (
	Unquoted Quoting = iota
	Quoted
	Bracket
)

// String names the quoting: unquoted, quoted, bracket.
func (q Quoting) String() string {
	switch q {
	case Unquoted:
		return "unquoted"
	case Quoted:
		return "quoted"
	case Bracket:
		return "bracket"
	}
	return fmt.Sprintf("Quoting(%d)", int(q))
}

// Arg is one argument as written.
//
// Text is the source text between the delimiters: variable references,
// generator expressions, escape sequences (\; \" \n ...) and list
// separators are kept as written, since what they mean depends on
// evaluation. The lexer's own rewriting is applied: a quoted argument's
// line continuation (backslash-newline) is dropped, and a bracket
// argument loses the newline that immediately follows its opening bracket.
// The parentheses nested inside an argument list, as in if((A OR B) AND C),
// are Unquoted arguments "(" and ")", as CMake records them.
type Arg struct {
	Text    string
	Quoting Quoting
	// Line and Col locate the first byte of the argument (its opening
	// quote or bracket); columns count bytes from 1.
	Line, Col int
}

// Comment is a line comment (# to the end of the line) or a bracket comment
// (#[[ ... ]]).
type Comment struct {
	// Text follows the "#" (line comment) or is the bracket content.
	Text    string
	Line    int
	Col     int
	Bracket bool
}

// SyntaxError is a list file CMake would refuse to read. Line and Col locate
// the cause: the opening of an unterminated bracket or quoted argument, the
// "(" left unclosed, the stray ")".
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error is FILE:LINE:COL: message.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// String reconstructs the invocation on one line, for messages:
// if(${FOO} AND "x y"). It parses back to the same command, except when
// an argument holds a carriage return right before a newline (written
// \r\r\n in a CRLF file).
func (c *Command) String() string {
	var b strings.Builder
	b.WriteString(c.Raw)
	b.WriteByte('(')
	prevOpen := true
	for _, a := range c.Args {
		isClose := a.Quoting == Unquoted && a.Text == ")"
		if !prevOpen && !isClose {
			b.WriteByte(' ')
		}
		b.WriteString(a.Source())
		prevOpen = a.Quoting == Unquoted && a.Text == "("
	}
	b.WriteByte(')')
	return b.String()
}

// Source is the argument as it could be written back: quotes and brackets
// restored.
func (a Arg) Source() string {
	switch a.Quoting {
	case Quoted:
		return `"` + a.Text + `"`
	case Bracket:
		q := ""
		for strings.Contains(a.Text+"]", "]"+q+"]") {
			q += "="
		}
		text := a.Text
		if strings.HasPrefix(text, "\n") {
			// The lexer drops a newline right after the opening bracket.
			text = "\n" + text
		}
		return "[" + q + "[" + text + "]" + q + "]"
	}
	return a.Text
}

// Parse reads one list file. On a syntax error it returns the commands read
// before the error together with a *SyntaxError; CMake refuses such a file
// as a whole, and Load does not evaluate it.
func Parse(path string, src []byte) (*File, error) {
	f := &File{Path: path}
	if len(src) > MaxFileSize {
		return f, &SyntaxError{File: path, Line: 1, Col: 1,
			Msg: fmt.Sprintf("file is %d bytes, larger than the %d etlink reads", len(src), MaxFileSize)}
	}
	switch {
	case bytes.HasPrefix(src, []byte{0xEF, 0xBB, 0xBF}):
		src = src[3:]
	case bytes.HasPrefix(src, []byte{0xFE, 0xFF}), bytes.HasPrefix(src, []byte{0xFF, 0xFE}),
		bytes.HasPrefix(src, []byte{0, 0, 0xFE, 0xFF}):
		return f, &SyntaxError{File: path, Line: 1, Col: 1, Msg: "file starts with a byte-order mark that is not UTF-8"}
	}
	// CMake reads CRLF as LF before lexing; a lone CR is a space.
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	p := &parser{path: path, src: src, line: 1, col: 1, f: f}
	err := p.file()
	return f, err
}

type parser struct {
	path      string
	src       []byte
	pos       int
	line, col int
	f         *File
}

func (p *parser) errorf(line, col int, format string, args ...any) error {
	return &SyntaxError{File: p.path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

// at returns the byte at pos+i, or 0 past the end (NUL is never valid
// CMake, so it doubles as the end marker in lookahead).
func (p *parser) at(i int) byte {
	if p.pos+i < len(p.src) {
		return p.src[p.pos+i]
	}
	return 0
}

// advance moves over n bytes, none of which is a newline.
func (p *parser) advance(n int) {
	p.pos += n
	p.col += n
}

func (p *parser) newline() {
	p.pos++
	p.line++
	p.col = 1
}

// file is the top level: commands, each on its own line, comments, blank
// space.
func (p *parser) file() error {
	haveNewline := true
	for !p.eof() {
		c := p.at(0)
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.advance(1)
		case c == '\n':
			p.newline()
			haveNewline = true
		case c == '#':
			bracket, err := p.comment()
			if err != nil {
				return err
			}
			if bracket {
				// The grammar allows no command after a bracket comment on
				// the same line.
				haveNewline = false
			}
		default:
			line, col := p.line, p.col
			n := p.unquotedLen()
			if n == 0 {
				if c == '(' || c == ')' {
					if c == ')' {
						return p.errorf(line, col, `unbalanced ")": no "(" is open here`)
					}
					return p.errorf(line, col, `expected a command name, got "("`)
				}
				return p.errorf(line, col, "expected a command name, got %s", describe(p.src[p.pos:]))
			}
			word := string(p.src[p.pos : p.pos+n])
			if !isIdentifier(word) {
				return p.errorf(line, col, "expected a command name, got %q", word)
			}
			if !haveNewline {
				return p.errorf(line, col, "expected a newline before command %s", word)
			}
			p.advance(n)
			cmd, err := p.command(word, line, col)
			if cmd != nil {
				p.f.Commands = append(p.f.Commands, cmd)
			}
			if err != nil {
				return err
			}
			haveNewline = false
		}
	}
	return nil
}

func describe(rest []byte) string {
	switch {
	case len(rest) == 0:
		return "end of file"
	case rest[0] == '"':
		return "a quoted argument"
	case rest[0] == '[':
		return "a bracket argument"
	case rest[0] == 0:
		return "a NUL byte"
	case rest[0] == '\\':
		return `a "\" not followed by an escaped character`
	}
	return fmt.Sprintf("%q", rest[0])
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// command reads from just after the name to the closing ")".
func (p *parser) command(name string, line, col int) (*Command, error) {
	for p.at(0) == ' ' || p.at(0) == '\t' || p.at(0) == '\r' {
		p.advance(1)
	}
	if p.eof() {
		return nil, p.errorf(line, col, `command %s is missing its "(": end of file reached`, name)
	}
	if p.at(0) != '(' {
		what := describe(p.src[p.pos:])
		if p.at(0) == '\n' {
			what = "a newline"
		}
		return nil, p.errorf(p.line, p.col, `expected "(" after command %s, got %s`, name, what)
	}
	cmd := &Command{Name: strings.ToLower(name), Raw: name, Line: line, Col: col, File: p.path}
	// The position of every "(" still open: the command's own, then nested
	// ones. Bounded by MaxNesting, and the loop is iterative, so deep
	// nesting cannot exhaust the stack.
	type open struct{ line, col int }
	opens := []open{{p.line, p.col}}
	p.advance(1)

	const (
		sepOK = iota
		sepWarn
		sepErr
	)
	sep := sepOK
	add := func(a Arg) error {
		if sep == sepErr || (sep == sepWarn && a.Quoting == Bracket) {
			return p.errorf(a.Line, a.Col, "argument not separated from the preceding token by whitespace")
		}
		cmd.Args = append(cmd.Args, a)
		return nil
	}
	for {
		if p.eof() {
			o := opens[len(opens)-1]
			if len(opens) == 1 {
				return cmd, p.errorf(o.line, o.col, `missing ")": the "(" of %s opened here is not closed before the end of the file`, name)
			}
			return cmd, p.errorf(o.line, o.col, `unbalanced parentheses: the "(" opened here is not closed before the end of the file`)
		}
		c := p.at(0)
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			p.advance(1)
			sep = sepOK
		case c == '\n':
			p.newline()
			sep = sepOK
		case c == '#':
			bracket, err := p.comment()
			if err != nil {
				return cmd, err
			}
			if bracket {
				sep = sepErr
			}
		case c == '(':
			if len(opens) > MaxNesting {
				return cmd, p.errorf(p.line, p.col, "parentheses nested deeper than %d", MaxNesting)
			}
			sep = sepOK
			if err := add(Arg{Text: "(", Line: p.line, Col: p.col}); err != nil {
				return cmd, err
			}
			opens = append(opens, open{p.line, p.col})
			p.advance(1)
		case c == ')':
			if len(opens) == 1 {
				cmd.EndLine = p.line
				p.advance(1)
				return cmd, nil
			}
			opens = opens[:len(opens)-1]
			sep = sepOK
			if err := add(Arg{Text: ")", Line: p.line, Col: p.col}); err != nil {
				return cmd, err
			}
			p.advance(1)
			sep = sepWarn
		case c == '"':
			a, err := p.quoted()
			if err != nil {
				return cmd, err
			}
			if err := add(a); err != nil {
				return cmd, err
			}
			sep = sepWarn
		case c == '[' && p.bracketOpenLen(0) > 0:
			line, col := p.line, p.col
			text, err := p.bracket(0, "bracket argument")
			if err != nil {
				return cmd, err
			}
			if err := add(Arg{Text: text, Quoting: Bracket, Line: line, Col: col}); err != nil {
				return cmd, err
			}
			sep = sepErr
		default:
			n := p.unquotedLen()
			if n == 0 {
				return cmd, p.errorf(p.line, p.col, `unexpected %s in the arguments of %s`, describe(p.src[p.pos:]), name)
			}
			a := Arg{Text: string(p.src[p.pos : p.pos+n]), Line: p.line, Col: p.col}
			p.advance(n)
			if err := add(a); err != nil {
				return cmd, err
			}
			sep = sepWarn
		}
	}
}

// comment reads a line or bracket comment starting at "#".
func (p *parser) comment() (bracket bool, err error) {
	line, col := p.line, p.col
	if p.at(1) == '[' && p.bracketOpenLen(1) > 0 {
		text, err := p.bracket(1, "bracket comment")
		if err != nil {
			return true, err
		}
		p.f.Comments = append(p.f.Comments, Comment{Text: text, Line: line, Col: col, Bracket: true})
		return true, nil
	}
	end := bytes.IndexByte(p.src[p.pos:], '\n')
	if end < 0 {
		end = len(p.src) - p.pos
	}
	p.f.Comments = append(p.f.Comments, Comment{Text: string(p.src[p.pos+1 : p.pos+end]), Line: line, Col: col})
	p.advance(end)
	return false, nil
}

// bracketOpenLen is the length of "[" "="* "[" at pos+off, or 0.
func (p *parser) bracketOpenLen(off int) int {
	if p.at(off) != '[' {
		return 0
	}
	i := off + 1
	for p.at(i) == '=' {
		i++
	}
	if p.at(i) != '[' {
		return 0
	}
	return i + 1 - off
}

// bracket reads a bracket argument or comment whose "[" is at pos+off,
// returning its content.
func (p *parser) bracket(off int, what string) (string, error) {
	line, col := p.line, p.col
	n := p.bracketOpenLen(off)
	closer := "]" + strings.Repeat("=", n-2) + "]"
	p.advance(off + n)
	if p.at(0) == '\n' {
		p.newline()
	}
	rest := p.src[p.pos:]
	end := bytes.Index(rest, []byte(closer))
	if end < 0 {
		return "", p.errorf(line, col, "unterminated %s opened here (no %s before the end of the file)", what, closer)
	}
	text := string(rest[:end])
	p.skipText(end + len(closer))
	return text, nil
}

// skipText moves over n bytes that may contain newlines.
func (p *parser) skipText(n int) {
	end := p.pos + n
	for p.pos < end {
		if p.src[p.pos] == '\n' {
			p.newline()
		} else {
			p.advance(1)
		}
	}
}

// quoted reads a quoted argument starting at its opening quote.
func (p *parser) quoted() (Arg, error) {
	a := Arg{Quoting: Quoted, Line: p.line, Col: p.col}
	p.advance(1)
	var b strings.Builder
	for {
		if p.eof() {
			return a, p.errorf(a.Line, a.Col, `unterminated quoted argument opened here (no closing '"' before the end of the file)`)
		}
		c := p.at(0)
		switch {
		case c == '"':
			p.advance(1)
			a.Text = b.String()
			return a, nil
		case c == '\\' && p.at(1) == '\n':
			// Line continuation: not part of the text.
			p.advance(1)
			p.newline()
		case c == '\\' && p.pos+1 < len(p.src):
			b.WriteByte(c)
			b.WriteByte(p.at(1))
			p.advance(2)
		case c == '\n':
			b.WriteByte(c)
			p.newline()
		case c == 0:
			return a, p.errorf(p.line, p.col, "NUL byte in a quoted argument")
		default:
			b.WriteByte(c)
			p.advance(1)
		}
	}
}

// unquotedElem is the length of one element of an unquoted argument at
// pos+i as CMake's lexer defines it ({UNQUOTED}: a byte that is not
// whitespace or one of ()#"\[= , or a backslash escape), or 0.
func (p *parser) unquotedElem(i int) int {
	c := p.at(i)
	switch c {
	case 0, ' ', '\t', '\r', '\n', '(', ')', '#', '"', '[', '=':
		return 0
	case '\\':
		if n := p.at(i + 1); n != 0 && n != '\n' {
			return 2
		}
		return 0
	}
	return 1
}

// makeVar is the length of a make-style $(VAR) at pos+i, or 0.
func (p *parser) makeVar(i int) int {
	if p.at(i) != '$' || p.at(i+1) != '(' {
		return 0
	}
	j := i + 2
	for {
		c := p.at(j)
		if c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			j++
			continue
		}
		if c == ')' {
			return j + 1 - i
		}
		return 0
	}
}

// legacyQuote is the length of a "..." segment inside an unquoted argument
// (a"b c"d is one argument for compatibility), or 0. The segment cannot
// span lines or hold ( ) #.
func (p *parser) legacyQuote(i int) int {
	if p.at(i) != '"' {
		return 0
	}
	j := i + 1
	for {
		switch c := p.at(j); {
		case c == '"':
			return j + 1 - i
		case c == ' ' || c == '\t' || c == '[' || c == '=':
			j++
		default:
			if n := p.makeVar(j); n > 0 {
				j += n
			} else if n := p.unquotedElem(j); n > 0 {
				j += n
			} else {
				return 0
			}
		}
	}
}

// unquotedLen is the length of the unquoted argument at pos, following the
// lexer's rules: it starts with an element, "=", a make variable, or
// "[" "="* followed by an element; it continues with elements, "[", "=",
// make variables and legacy quoted segments. A lone "[" is an argument.
func (p *parser) unquotedLen() int {
	i := 0
	switch {
	case p.at(0) == '[':
		i = 1
		for p.at(i) == '=' {
			i++
		}
		if n := p.legacyElem(i); n > 0 {
			i += n
		} else {
			return 1
		}
	case p.at(0) == '=':
		i = 1
	default:
		if n := p.makeVar(0); n > 0 {
			i = n
		} else if n := p.unquotedElem(0); n > 0 {
			i = n
		} else {
			return 0
		}
	}
	for {
		if c := p.at(i); c == '[' || c == '=' {
			i++
		} else if n := p.legacyElem(i); n > 0 {
			i += n
		} else {
			return i
		}
	}
}

func (p *parser) legacyElem(i int) int {
	if n := p.makeVar(i); n > 0 {
		return n
	}
	if n := p.unquotedElem(i); n > 0 {
		return n
	}
	return p.legacyQuote(i)
}

package linkline

import (
	"errors"
	"strings"
)

// shellCmd is one simple command of a shell line and the operator that
// ends it ("&&", "||", ";", "|", "&", "\n", "(", ")", or "" at the end).
type shellCmd struct {
	words []string
	op    string
}

// errUnterminated is wrapped by splitShell's quoting errors.
var errUnterminated = errors.New("unterminated")

// splitShell splits a POSIX shell line into simple commands and their words,
// the way sh would before running them, but without any expansion: $NAME,
// ${NAME}, $(...) and `...` are kept as written, because the environment the
// build ran in is unknown and $ORIGIN in an rpath must survive. Quotes and
// backslashes are removed as sh removes them, so '$ORIGIN', "\$ORIGIN" and
// \$ORIGIN all give $ORIGIN. Redirections (>f, 2>&1, <f) are dropped with
// their targets, and # starts a comment at the start of a word.
func splitShell(s string) ([]shellCmd, error) {
	var (
		cmds   []shellCmd
		words  []string
		cur    wordBuf
		inWord bool
		// dropNext: the next word is a redirection target.
		dropNext bool
	)
	endWord := func() {
		if !inWord {
			return
		}
		if dropNext {
			dropNext = false
		} else {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	endCmd := func(op string) {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, shellCmd{words: words, op: op})
			words = nil
		} else if len(cmds) > 0 && op != "\n" {
			cmds[len(cmds)-1].op = op
		}
	}
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		switch c {
		case ' ', '\t', '\r':
			endWord()
			i++
		case '\n':
			endCmd("\n")
			i++
		case '\\':
			if i+1 >= n {
				cur.WriteByte('\\')
				inWord = true
				i++
				continue
			}
			if s[i+1] == '\n' {
				i += 2
				continue
			}
			cur.WriteByte(s[i+1])
			inWord = true
			i += 2
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, errorf("%w single quote", errUnterminated)
			}
			cur.WriteString(s[i+1 : i+1+end])
			inWord = true
			i += end + 2
		case '"':
			j, err := copyDoubleQuoted(&cur, s, i+1)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = j
		case '#':
			if inWord {
				cur.WriteByte(c)
				i++
				continue
			}
			for i < n && s[i] != '\n' {
				i++
			}
		case ';':
			endCmd(";")
			i++
		case '&':
			switch {
			case i+1 < n && s[i+1] == '&':
				endCmd("&&")
				i += 2
			case i+1 < n && s[i+1] == '>':
				// &>file: both streams to a file.
				endWord()
				i += 2
				if i < n && s[i] == '>' {
					i++
				}
				dropNext = true
			default:
				endCmd("&")
				i++
			}
		case '|':
			switch {
			case i+1 < n && s[i+1] == '|':
				endCmd("||")
				i += 2
			case i+1 < n && s[i+1] == '&':
				endCmd("|")
				i += 2
			default:
				endCmd("|")
				i++
			}
		case '(', ')':
			// Operators to sh, but "-(" and "-Wl,-)" (ld's group
			// options) are kept as words as the user meant them.
			if inWord && cur.Len() > 0 {
				if last := cur[len(cur)-1]; last == '-' || last == ',' {
					cur.WriteByte(c)
					i++
					continue
				}
			}
			endCmd(string(c))
			i++
		case '<', '>':
			// A word of digits right before the operator is its fd.
			if inWord && isDigits(cur.String()) {
				cur.Reset()
				inWord = false
			}
			endWord()
			i++
			for i < n && (s[i] == '>' || s[i] == '<' || s[i] == '|') {
				i++
			}
			if i < n && s[i] == '&' {
				i++
			}
			dropNext = true
		case '$':
			j, err := copyDollar(&cur, s, i)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = j
		case '`':
			end := strings.IndexByte(s[i+1:], '`')
			if end < 0 {
				return nil, errorf("%w backquote", errUnterminated)
			}
			cur.WriteString(s[i : i+end+2])
			inWord = true
			i += end + 2
		default:
			// A run of ordinary characters at once.
			j := i + 1
			for j < n && !isShellSpecial(s[j]) {
				j++
			}
			cur.WriteString(s[i:j])
			inWord = true
			i = j
		}
	}
	endCmd("")
	return cmds, nil
}

func isShellSpecial(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\\', '\'', '"', '#', ';', '&', '|', '(', ')', '<', '>', '$', '`':
		return true
	}
	return false
}

// wordBuf builds one word, keeping its memory across words.
type wordBuf []byte

func (b *wordBuf) WriteByte(c byte) error { *b = append(*b, c); return nil }
func (b *wordBuf) WriteString(s string)   { *b = append(*b, s...) }
func (b *wordBuf) String() string         { return string(*b) }
func (b *wordBuf) Reset()                 { *b = (*b)[:0] }
func (b *wordBuf) Len() int               { return len(*b) }

// copyDoubleQuoted copies the inside of a double-quoted string starting at
// s[i] (just after the quote) and returns the index after the closing quote.
// Inside double quotes a backslash only escapes $ ` " \ and newline.
func copyDoubleQuoted(cur *wordBuf, s string, i int) (int, error) {
	n := len(s)
	for i < n {
		c := s[i]
		switch c {
		case '"':
			return i + 1, nil
		case '\\':
			if i+1 < n {
				switch s[i+1] {
				case '$', '`', '"', '\\':
					cur.WriteByte(s[i+1])
					i += 2
					continue
				case '\n':
					i += 2
					continue
				}
			}
			cur.WriteByte(c)
			i++
		case '$':
			j, err := copyDollar(cur, s, i)
			if err != nil {
				return 0, err
			}
			i = j
		default:
			cur.WriteByte(c)
			i++
		}
	}
	return 0, errorf("%w double quote", errUnterminated)
}

// copyDollar copies a $ expansion literally: $(...) and ${...} whole (with
// nesting), anything else as a plain $.
func copyDollar(cur *wordBuf, s string, i int) (int, error) {
	n := len(s)
	if i+1 >= n || (s[i+1] != '(' && s[i+1] != '{') {
		cur.WriteByte('$')
		return i + 1, nil
	}
	open, close := s[i+1], byte(')')
	if open == '{' {
		close = '}'
	}
	depth := 0
	for j := i + 1; j < n; j++ {
		switch s[j] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				cur.WriteString(s[i : j+1])
				return j + 1, nil
			}
		}
	}
	return 0, errorf("%w $%c", errUnterminated, open)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isAssignment reports whether w is a shell variable assignment NAME=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// launchers run the command that follows them: they are stripped to find
// the real argv[0].
var launchers = map[string]bool{
	"ccache": true, "sccache": true, "distcc": true, "icecc": true,
	"exec": true, "command": true, "nice": true, "time": true, "nohup": true,
}

// stripPrefix removes what runs the real command: env with its options and
// assignments, bare NAME=value assignments, and launchers such as ccache.
func stripPrefix(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		base := w
		if k := strings.LastIndexByte(w, '/'); k >= 0 {
			base = w[k+1:]
		}
		switch {
		case isAssignment(w):
			words = words[1:]
		case base == "env":
			words = words[1:]
			for len(words) > 0 {
				a := words[0]
				if a == "-u" || a == "--unset" || a == "-C" || a == "--chdir" {
					if len(words) < 2 {
						return nil
					}
					words = words[2:]
					continue
				}
				if isAssignment(a) || (strings.HasPrefix(a, "-") && a != "--") {
					words = words[1:]
					continue
				}
				if a == "--" {
					words = words[1:]
				}
				break
			}
		case launchers[base]:
			words = words[1:]
		default:
			return words
		}
	}
	return words
}

package cmake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Values carry what etlink knows about them in two marker runes from the
// Unicode private use area, so that knowledge survives set(), list(),
// foreach and macro substitution without a parallel data structure:
//
//   - markUnknown precedes the text of a reference etlink could not expand
//     (${NAME} kept as written), so a link item built from it is Unknown;
//   - markDefault precedes each element of a value that is only a default a
//     user may override (option(), set(... CACHE ...)), so a condition on it
//     is not decided;
//   - markBranch precedes each element of a value that the branches of an
//     undecided if() left different (set(X OFF) in one of them), so a
//     condition on it after the if() is not decided either.
//
// All are removed (stripMarks) before anything reaches the caller.
const (
	markUnknown = "\uE000"
	markDefault = "\uE001"
	markBranch  = "\uE002"
	marks       = markUnknown + markDefault + markBranch
)

func stripMarks(s string) string {
	if !strings.ContainsAny(s, marks) {
		return s
	}
	s = strings.ReplaceAll(s, markUnknown, "")
	s = strings.ReplaceAll(s, markBranch, "")
	return strings.ReplaceAll(s, markDefault, "")
}

func hasUnknown(s string) bool { return strings.Contains(s, markUnknown) }

// undecided reports a value a condition cannot rely on.
func undecided(s string) bool { return strings.ContainsAny(s, marks) }

// maxValue bounds one expanded value: set(X "${X}${X}") in a loop doubles
// each time.
const maxValue = 1 << 20

var errTooLarge = errors.New("value larger than 1 MiB")

// maxRefNesting bounds ${a${b${c}}}: each level copies the name built so
// far, so deep nesting costs time quadratic in its depth.
const maxRefNesting = 100

type refKind int

const (
	refVar refKind = iota
	refEnv
	refCache
)

// lookupFunc returns the text a reference expands to (already marked when
// unknown).
type lookupFunc func(kind refKind, name string) string

// expandRefs expands variable references and escape sequences in a quoted
// or unquoted argument's text, as CMake does in one pass: ${NAME} (nested,
// as in ${${x}_LIBS}), $ENV{NAME}, $CACHE{NAME}; \t \n \r become the
// characters, \; is kept for list splitting, \x becomes x for any other
// non-alphanumeric x. Generator expressions $<...> are plain text here.
func expandRefs(s string, lookup lookupFunc) (string, error) {
	if !strings.ContainsAny(s, "$\\") {
		return s, nil
	}
	type open struct {
		start int
		kind  refKind
	}
	var buf []byte
	var stack []open
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			n := s[i+1]
			switch {
			case n == 't':
				buf = append(buf, '\t')
			case n == 'n':
				buf = append(buf, '\n')
			case n == 'r':
				buf = append(buf, '\r')
			case n == ';' && len(stack) == 0:
				buf = append(buf, '\\', ';')
			case isAlnum(n):
				return "", errors.New(`invalid escape sequence \` + string(n))
			default:
				buf = append(buf, n)
			}
			i += 2
		case c == '\\':
			return "", errors.New(`invalid escape sequence: "\" at the end`)
		case c == '$' && len(stack) >= maxRefNesting && (strings.HasPrefix(s[i:], "${") ||
			strings.HasPrefix(s[i:], "$ENV{") || strings.HasPrefix(s[i:], "$CACHE{")):
			return "", fmt.Errorf("variable references nested deeper than %d", maxRefNesting)
		case c == '$' && strings.HasPrefix(s[i:], "${"):
			stack = append(stack, open{len(buf), refVar})
			i += 2
		case c == '$' && strings.HasPrefix(s[i:], "$ENV{"):
			stack = append(stack, open{len(buf), refEnv})
			i += 5
		case c == '$' && strings.HasPrefix(s[i:], "$CACHE{"):
			stack = append(stack, open{len(buf), refCache})
			i += 7
		case c == '}' && len(stack) > 0:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			name := string(buf[o.start:])
			buf = append(buf[:o.start], lookup(o.kind, name)...)
			i++
		default:
			buf = append(buf, c)
			i++
		}
		if len(buf) > maxValue {
			return "", errTooLarge
		}
	}
	if len(stack) > 0 {
		return "", errors.New(`unterminated variable reference: "${" without "}"`)
	}
	return string(buf), nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// unknownRef is the marked text of a reference etlink cannot expand.
func unknownRef(kind refKind, name string) string {
	name = stripMarks(name)
	switch kind {
	case refEnv:
		return markUnknown + "$ENV{" + name + "}"
	case refCache:
		return markUnknown + "$CACHE{" + name + "}"
	}
	return markUnknown + "${" + name + "}"
}

// splitList splits a list at ";" as CMake does for an unquoted argument:
// not at "\;" (which becomes ";"), not inside [ ], and empty elements
// dropped. Unlike CMake it does not split inside a generator expression
// $<...>: CMake would cut $<$<CONFIG:Debug>:a;b> in two, which no project
// means, and a lint wants the expression whole.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	if !strings.ContainsAny(s, ";") {
		if emptyElem(s) {
			return nil
		}
		return []string{s}
	}
	var res []string
	var cur []byte
	square, genex := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && s[i+1] == ';' {
				cur = append(cur, ';')
				i++
				continue
			}
		case '[':
			square++
		case ']':
			square--
		case '$':
			if i+1 < len(s) && s[i+1] == '<' {
				genex++
				cur = append(cur, '$', '<')
				i++
				continue
			}
		case '>':
			if genex > 0 {
				genex--
			}
		case ';':
			if square == 0 && genex == 0 {
				if !emptyElem(string(cur)) {
					res = append(res, string(cur))
				}
				cur = cur[:0]
				continue
			}
		}
		cur = append(cur, c)
	}
	if !emptyElem(string(cur)) {
		res = append(res, string(cur))
	}
	return res
}

func emptyElem(s string) bool {
	return s == "" || !hasUnknown(s) && stripMarks(s) == ""
}

// splitListKeepEmpty splits a variable's value into list elements the way
// list() and foreach(IN LISTS) see it: empty elements kept, except that an
// empty string is an empty list.
func splitListKeepEmpty(s string) []string {
	if s == "" {
		return nil
	}
	var res []string
	var cur []byte
	square := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) && s[i+1] == ';' {
				cur = append(cur, '\\', ';')
				i++
				continue
			}
		case '[':
			square++
		case ']':
			square--
		case ';':
			if square == 0 {
				res = append(res, string(cur))
				cur = cur[:0]
				continue
			}
		}
		cur = append(cur, c)
	}
	return append(res, string(cur))
}

// macroSubst is the textual replacement a macro call applies to the
// arguments of its body: ${param}, ${ARGC}, ${ARGN}, ${ARGV}, ${ARGV<n>}
// replaced by the call's values before the body's own expansion.
type macroSubst struct {
	pairs [][2]string // in the order CMake replaces them
	argv  [][2]string // ${ARGV<n>}, replaced only when "${ARGV" remains
}

func newMacroSubst(params []string, args []string) *macroSubst {
	m := &macroSubst{}
	for i, p := range params {
		v := ""
		if i < len(args) {
			v = args[i]
		}
		m.pairs = append(m.pairs, [2]string{"${" + p + "}", v})
	}
	var argn []string
	if len(args) > len(params) {
		argn = args[len(params):]
	}
	m.pairs = append(m.pairs,
		[2]string{"${ARGC}", strconv.Itoa(len(args))},
		[2]string{"${ARGN}", strings.Join(argn, ";")},
		[2]string{"${ARGV}", strings.Join(args, ";")})
	for i, a := range args {
		m.argv = append(m.argv, [2]string{"${ARGV" + strconv.Itoa(i) + "}", a})
	}
	return m
}

func (m *macroSubst) apply(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var err error
	for _, p := range m.pairs {
		if s, err = replaceBounded(s, p[0], p[1]); err != nil {
			return "", err
		}
	}
	if strings.Contains(s, "${ARGV") {
		for _, p := range m.argv {
			if s, err = replaceBounded(s, p[0], p[1]); err != nil {
				return "", err
			}
		}
	}
	return s, nil
}

// replaceBounded is strings.ReplaceAll that refuses to build a value over
// maxValue.
func replaceBounded(s, old, repl string) (string, error) {
	n := strings.Count(s, old)
	if n == 0 {
		return s, nil
	}
	if len(s)+n*(len(repl)-len(old)) > maxValue {
		return "", errTooLarge
	}
	return strings.ReplaceAll(s, old, repl), nil
}

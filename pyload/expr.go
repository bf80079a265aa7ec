package pyload

import (
	"path/filepath"
	"strconv"
	"strings"
)

// tri is a truth value the reader may not know.
type tri int8

const (
	unknown tri = iota
	yes
	no
)

// value is what the reader knows of a Python value: a truth value, a
// string (a path when computed from __file__), flags holding RTLD_GLOBAL,
// flags saved by sys.getdlopenflags(), a function, a module.
type value struct {
	truth tri
	// env names the environment variable the value was read from: its
	// default (unset) was taken.
	env   string
	str   string
	isStr bool
	// global marks an integer holding RTLD_GLOBAL (os.RTLD_GLOBAL,
	// ctypes.RTLD_GLOBAL, 0x100, a name bound to them).
	global bool
	saved  *flags
	fn     *function
	mod    *module
	// ext is the dotted name of a module outside the package (os, sys,
	// ctypes, os.path) or an attribute of one.
	ext string
	// items are a list or tuple literal's elements.
	items []value
	// num is an integer's value, when isNum (a literal, a string's find,
	// sys.version_info's major version).
	num   int64
	isNum bool
	// later is a name imported from a module whose run was put off: it is
	// run when the name is read (reader.lookup).
	later *lateName
}

// lateName is a module's name not read yet.
type lateName struct {
	mod  *module
	name string
}

func boolean(b bool) value {
	if b {
		return value{truth: yes}
	}
	return value{truth: no}
}

func str(s string) value { return value{isStr: true, str: s, truth: boolean(s != "").truth} }

func number(n int64) value { return value{isNum: true, num: n, truth: boolean(n != 0).truth} }

// pythonMajor is the major version of the interpreter the process model
// reads: sys.version_info compares as a Python 3 (its minor version is not
// known here).
const pythonMajor = 3

// cursor evaluates an expression's tokens, performing the calls the
// reader models (a library opened, flags set, a function of the package
// run) as Python would.
type cursor struct {
	r     *reader
	fr    *frame
	toks  []tok
	i     int
	depth int // nesting of brackets and operators being read (maxNesting)
}

// maxNesting bounds how deep an expression is read: hostile source of a
// million "(" must not exhaust the stack.
const maxNesting = 200

func (c *cursor) peek() tok {
	if c.i < len(c.toks) {
		return c.toks[c.i]
	}
	return tok{}
}

func (c *cursor) isOp(s string) bool { t := c.peek(); return t.kind == 'o' && t.s == s }

func (c *cursor) isWord(s string) bool { t := c.peek(); return t.kind == 'n' && t.s == s }

// expr := or ['if' or 'else' expr]
func (c *cursor) expr() value {
	if c.depth++; c.depth > maxNesting {
		c.i = len(c.toks) // the rest is not read
		return value{}
	}
	defer func() { c.depth-- }()
	if c.isWord("lambda") {
		c.i = len(c.toks)
		return value{}
	}
	v := c.or()
	if c.isWord("if") {
		c.i++
		cond := c.or()
		if c.isWord("else") {
			c.i++
		}
		alt := c.expr()
		switch cond.truth {
		case yes:
			return v
		case no:
			return alt
		}
		return value{}
	}
	return v
}

func (c *cursor) or() value {
	v := c.and()
	for c.isWord("or") {
		c.i++
		w := c.and()
		v = orValues(v, w)
	}
	return v
}

func orValues(v, w value) value {
	env := v.env
	if env == "" {
		env = w.env
	}
	switch {
	case v.truth == yes:
		return v
	case v.truth == no && w.truth != unknown:
		w.env = env
		return w
	case w.truth == yes:
		return value{truth: yes, env: env}
	}
	return value{truth: unknown, env: env, global: v.global || w.global}
}

func (c *cursor) and() value {
	v := c.not()
	for c.isWord("and") {
		c.i++
		w := c.not()
		env := v.env
		if env == "" {
			env = w.env
		}
		switch {
		case v.truth == no:
		case v.truth == yes && w.truth != unknown:
			v = w
		case w.truth == no:
			v = value{truth: no}
		default:
			v = value{}
		}
		v.env = env
	}
	return v
}

func (c *cursor) not() value {
	if c.isWord("not") {
		c.i++
		if c.depth++; c.depth > maxNesting {
			c.i = len(c.toks)
			return value{}
		}
		v := c.not()
		c.depth--
		switch v.truth {
		case yes:
			return value{truth: no, env: v.env}
		case no:
			return value{truth: yes, env: v.env}
		}
		return value{env: v.env}
	}
	return c.compare()
}

func (c *cursor) compare() value {
	v := c.bitor()
	for {
		t := c.peek()
		op := ""
		switch {
		case t.kind == 'o' && (t.s == "==" || t.s == "!=" || t.s == "<" || t.s == ">" || t.s == "<=" || t.s == ">="):
			op = t.s
			c.i++
		case t.kind == 'n' && (t.s == "in" || t.s == "is"):
			op = t.s
			c.i++
			if c.isWord("not") {
				op += " not"
				c.i++
			}
		case t.kind == 'n' && t.s == "not":
			c.i++
			if c.isWord("in") {
				c.i++
			}
			op = "not in"
		default:
			return v
		}
		w := c.bitor()
		v = compareValues(op, v, w)
	}
}

func compareValues(op string, v, w value) value {
	env := v.env + w.env
	if v.ext == "sys.version_info" && len(w.items) > 0 && w.items[0].isNum {
		switch {
		case w.items[0].num != pythonMajor:
			// (3, 11) against (2, 7, 0) or (4,): the major version decides.
			v, w = number(pythonMajor), number(w.items[0].num)
		case len(w.items) == 1:
			// (3, 11) against (3,): a longer tuple with the same start is greater.
			v, w = number(1), number(0)
		}
	}
	if v.isNum && w.isNum {
		var r bool
		switch op {
		case "==":
			r = v.num == w.num
		case "!=":
			r = v.num != w.num
		case "<":
			r = v.num < w.num
		case "<=":
			r = v.num <= w.num
		case ">":
			r = v.num > w.num
		case ">=":
			r = v.num >= w.num
		default:
			return value{env: env}
		}
		return value{truth: boolean(r).truth, env: env}
	}
	if v.ext == "sys.executable" && w.isStr && !strings.Contains(w.str, "/") {
		// The interpreter's path is never a bare word (torch's
		// "torch_deploy" check).
		return value{truth: boolean(op == "!=").truth}
	}
	if v.isStr && w.isStr {
		switch op {
		case "==":
			return value{truth: boolean(v.str == w.str).truth, env: env}
		case "!=":
			return value{truth: boolean(v.str != w.str).truth, env: env}
		case "in", "not in":
			return value{truth: boolean(strings.Contains(w.str, v.str) == (op == "in")).truth, env: env}
		}
	}
	if op == "in" || op == "not in" {
		if v.isStr && w.ext == "os.environ" {
			// "X" in os.environ: false when nothing is set.
			r := boolean(op == "not in")
			r.env = v.str
			return r
		}
		if v.isStr && len(w.items) > 0 {
			in := false
			for _, it := range w.items {
				if !it.isStr {
					return value{}
				}
				in = in || it.str == v.str
			}
			return value{truth: boolean(in == (op == "in")).truth, env: env}
		}
	}
	if (op == "is" || op == "is not") && v.env != "" && w.ext == "None" {
		r := boolean(op == "is") // an unset variable reads as None
		r.env = v.env
		return r
	}
	return value{env: env}
}

func (c *cursor) bitor() value {
	v := c.sum()
	for c.isOp("|") || c.isOp("&") || c.isOp("^") {
		op := c.peek().s
		c.i++
		w := c.sum()
		if op == "|" {
			v = value{global: v.global || w.global}
		} else {
			v = value{}
		}
	}
	return v
}

func (c *cursor) sum() value {
	v := c.unary()
	for c.isOp("+") || c.isOp("-") || c.isOp("*") || c.isOp("/") || c.isOp("%") || c.isOp("//") || c.isOp("**") {
		op := c.peek().s
		c.i++
		w := c.unary()
		if op == "+" && v.isStr && w.isStr {
			v = str(v.str + w.str)
		} else {
			v = value{}
		}
	}
	return v
}

func (c *cursor) unary() value {
	neg, signs := false, 0
	for c.isOp("-") || c.isOp("+") || c.isOp("~") || c.isOp("*") || c.isOp("**") {
		switch c.peek().s {
		case "-":
			neg = !neg
		case "+":
		default:
			signs = -1 // a complement or an unpacking: not evaluated
		}
		if signs >= 0 {
			signs++
		}
		c.i++
	}
	if c.isWord("await") {
		c.i++
	}
	v := c.primary()
	switch {
	case signs == 0:
		return v
	case signs > 0 && v.isNum:
		if neg {
			v = number(-v.num)
		}
		return v
	}
	return value{}
}

// primary := atom trailer*
func (c *cursor) primary() value {
	v, name := c.atom()
	for {
		switch {
		case c.isOp("."):
			c.i++
			t := c.peek()
			if t.kind != 'n' {
				return value{}
			}
			c.i++
			v = c.r.attr(c.fr, v, t.s)
			name += "." + t.s
		case c.isOp("("):
			c.i++
			args, kw := c.args()
			v = c.r.call(c.fr, v, name, args, kw)
			name = ""
		case c.isOp("["):
			c.i++
			v, name = c.subscript(v), ""
		default:
			return v
		}
	}
}

// subscript reads v[index] up to its closing bracket: an integer index of
// a tuple, a list or a string, and sys.version_info[0]; anything else (a
// slice, a key) is not evaluated.
func (c *cursor) subscript(v value) value {
	at := c.i
	idx := c.expr()
	if !c.isOp("]") || !idx.isNum {
		c.i = at
		c.skipTo("]")
		return value{}
	}
	c.i++
	i := idx.num
	switch {
	case v.ext == "sys.version_info" && i == 0:
		return number(pythonMajor)
	case len(v.items) > 0:
		if i < 0 {
			i += int64(len(v.items))
		}
		if i >= 0 && i < int64(len(v.items)) {
			return v.items[i]
		}
	case v.isStr:
		if i < 0 {
			i += int64(len(v.str))
		}
		if i >= 0 && i < int64(len(v.str)) {
			return str(v.str[i : i+1])
		}
	}
	return value{}
}

// atom reads a name, literal or bracketed expression, and returns its
// value and, for a name, the name.
func (c *cursor) atom() (value, string) {
	t := c.peek()
	if c.i >= len(c.toks) {
		return value{}, ""
	}
	c.i++
	switch t.kind {
	case 'n':
		return c.r.lookup(c.fr, t.s), t.s
	case 's':
		s := unescape(t.s)
		for c.peek().kind == 's' { // implicit concatenation
			s += unescape(c.peek().s)
			c.i++
		}
		return str(s), ""
	case 'f':
		return value{isStr: false}, ""
	case 'd':
		if n, err := strconv.ParseInt(strings.ReplaceAll(t.s, "_", ""), 0, 64); err == nil {
			v := number(n)
			v.global = n&rtldGlobal != 0 // a literal flag: 0x100, or flags | 256
			return v, ""
		}
		return value{}, ""
	case 'o':
		switch t.s {
		case "(":
			if c.isOp(")") {
				c.i++
				return value{truth: no}, ""
			}
			v := c.expr()
			if c.isOp(",") { // a tuple
				items := []value{v}
				for c.isOp(",") {
					c.i++
					if c.isOp(")") {
						break
					}
					items = append(items, c.expr())
				}
				v = value{items: items, truth: yes}
			}
			c.skipTo(")")
			return v, ""
		case "[":
			var items []value
			for c.i < len(c.toks) && !c.isOp("]") {
				items = append(items, c.expr())
				if c.isWord("for") { // a comprehension: not evaluated
					c.skipTo("]")
					return value{}, ""
				}
				if c.isOp(",") {
					c.i++
				}
			}
			c.skipTo("]")
			return value{items: items, truth: boolean(len(items) > 0).truth}, ""
		case "{":
			c.skipTo("}")
			return value{}, ""
		}
	}
	return value{}, ""
}

// args reads a call's arguments up to its closing parenthesis.
func (c *cursor) args() ([]value, map[string]value) {
	var args []value
	kw := map[string]value{}
	for c.i < len(c.toks) && !c.isOp(")") {
		if t := c.peek(); t.kind == 'n' && c.i+1 < len(c.toks) && c.toks[c.i+1].kind == 'o' && c.toks[c.i+1].s == "=" {
			c.i += 2
			kw[t.s] = c.expr()
		} else {
			args = append(args, c.expr())
		}
		if c.isWord("for") { // a generator argument
			c.skipTo(")")
			return args, kw
		}
		if c.isOp(",") {
			c.i++
		} else if !c.isOp(")") {
			c.i++ // something the reader does not model
		}
	}
	c.skipTo(")")
	return args, kw
}

// skipTo moves past the bracket that closes the one just opened.
func (c *cursor) skipTo(close string) {
	depth := 0
	for c.i < len(c.toks) {
		t := c.toks[c.i]
		c.i++
		if t.kind != 'o' {
			continue
		}
		switch t.s {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth == 0 {
				return
			}
			depth--
		}
	}
}

// rtldGlobal is RTLD_GLOBAL's value on Linux (every architecture).
const rtldGlobal = 0x100

// unescape resolves the escapes a path or module name may hold.
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	if u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`); err == nil {
		return u
	}
	return s
}

// pathCall evaluates the os.path functions a package computes its files'
// paths with.
func pathCall(name string, args []value) (value, bool) {
	for _, a := range args {
		if !a.isStr {
			return value{}, name == "os.path.join" || name == "os.path.dirname" || name == "os.path.abspath" ||
				name == "os.path.realpath" || name == "os.path.normpath" || name == "os.path.basename"
		}
	}
	switch name {
	case "os.path.join":
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = a.str
		}
		return str(filepath.Join(parts...)), true
	case "os.path.dirname":
		if len(args) == 1 {
			return str(filepath.Dir(args[0].str)), true
		}
	case "os.path.abspath", "os.path.realpath", "os.path.normpath":
		if len(args) == 1 {
			return str(filepath.Clean(args[0].str)), true
		}
	case "os.path.basename":
		if len(args) == 1 {
			return str(filepath.Base(args[0].str)), true
		}
	}
	return value{}, false
}

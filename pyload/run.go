package pyload

import (
	"slices"
	"strconv"
	"strings"
)

// run runs statements at module level (a return there ends nothing).
func (r *reader) run(fr *frame, stmts []*stmt) {
	r.runBody(fr, stmts)
}

// runBody runs statements in order; it stops at a return (reporting the
// value) or a raise on the path it follows.
func (r *reader) runBody(fr *frame, stmts []*stmt) (value, bool) {
	for i := 0; i < len(stmts); i++ {
		s := stmts[i]
		if r.statements++; r.statements > maxStatements {
			if !r.bounded {
				r.bounded = true
				r.note(fr, "stopped after %d statements (a bound)", maxStatements)
			}
			return value{}, true
		}
		fr.line = s.line
		switch s.kw {
		case "":
			if v, stop := r.simple(fr, s.toks); stop {
				return v, true
			}
		case "def":
			if len(s.toks) > 0 {
				fn := &function{name: s.toks[0].s, params: params(s.toks), def: s, mod: fr.mod}
				r.bind(fr, fn.name, value{fn: fn})
			}
		case "class":
			if len(s.toks) > 0 {
				r.bind(fr, s.toks[0].s, value{truth: yes})
			}
		case "if":
			j := i + 1
			for j < len(stmts) && (stmts[j].kw == "elif" || stmts[j].kw == "else") {
				j++
			}
			if v, stop := r.ifChain(fr, stmts[i:j]); stop {
				return v, true
			}
			i = j - 1
		case "try":
			j := i + 1
			for j < len(stmts) && (stmts[j].kw == "except" || stmts[j].kw == "else" || stmts[j].kw == "finally") {
				j++
			}
			if v, stop := r.tryChain(fr, stmts[i:j]); stop {
				return v, true
			}
			i = j - 1
		case "for":
			if v, stop := r.forLoop(fr, s); stop {
				return v, true
			}
		case "with", "while":
			c := &cursor{r: r, fr: fr, toks: s.toks}
			c.expr()
			if v, stop := r.runBody(fr, s.body); stop {
				return v, true
			}
		}
	}
	return value{}, false
}

// simple runs a simple statement; stop is true for return and raise.
func (r *reader) simple(fr *frame, toks []tok) (value, bool) {
	if len(toks) == 0 {
		return value{}, false
	}
	first := toks[0]
	if first.kind == 'n' {
		switch first.s {
		case "import":
			r.importStmt(fr, toks[1:])
			return value{}, false
		case "from":
			r.fromStmt(fr, toks[1:])
			return value{}, false
		case "return":
			c := &cursor{r: r, fr: fr, toks: toks[1:]}
			return c.expr(), true
		case "raise":
			return value{}, true
		case "pass", "global", "nonlocal", "del", "assert", "break", "continue", "yield":
			return value{}, false
		}
	}
	// Assignments: targets = ... = value; augmented a |= b.
	eq := -1
	topOps(toks, func(i int, op string) bool {
		if op == "=" || op == "|=" {
			eq = i
			return false
		}
		return true
	})
	if eq < 0 {
		c := &cursor{r: r, fr: fr, toks: toks}
		c.expr()
		return value{}, false
	}
	c := &cursor{r: r, fr: fr, toks: toks[eq+1:]}
	// a = b = v: evaluate the last right-hand side, bind every target.
	v := r.chainValue(c)
	targets := toks[:eq]
	if toks[eq].s == "|=" && len(targets) == 1 && targets[0].kind == 'n' {
		old := r.lookup(fr, targets[0].s)
		v = value{global: old.global || v.global}
	}
	r.assign(fr, targets, v)
	return value{}, false
}

// chainValue evaluates the right-hand side of a (possibly chained)
// assignment, binding nothing of the middle targets.
func (r *reader) chainValue(c *cursor) value {
	v := c.expr()
	if c.isOp("=") { // a = b = v
		c.i++
		v = r.chainValue(c)
	}
	return v
}

// assign binds the names of an assignment's target (a name, or a tuple of
// names taking a tuple's items).
func (r *reader) assign(fr *frame, targets []tok, v value) {
	var names []string
	for _, t := range targets {
		switch {
		case t.kind == 'n':
			names = append(names, t.s)
		case t.kind == 'o' && (t.s == "," || t.s == "(" || t.s == ")" || t.s == "[" || t.s == "]"):
		default:
			return // an attribute or subscript: not a name the reader tracks
		}
	}
	if len(names) == 1 {
		r.bind(fr, names[0], v)
		return
	}
	for i, n := range names {
		var item value
		if i < len(v.items) {
			item = v.items[i]
		}
		r.bind(fr, n, item)
	}
}

func (r *reader) bind(fr *frame, name string, v value) {
	if fr.locals != nil {
		fr.locals[name] = v
		return
	}
	fr.mod.vars[name] = v
}

// importStmt: import a.b.c [as x], ...
func (r *reader) importStmt(fr *frame, toks []tok) {
	for _, item := range splitTop(toks, ",") {
		dotted, alias := dottedName(item)
		if dotted == "" {
			continue
		}
		v := r.importModule(fr, dotted)
		if alias != "" {
			r.bind(fr, alias, v)
			continue
		}
		top := strings.SplitN(dotted, ".", 2)[0]
		if v.ext != "" {
			r.bind(fr, top, value{ext: top})
		} else if m := r.modules[top]; m != nil {
			r.bind(fr, top, value{mod: m})
		}
	}
}

// fromStmt: from X import a [as b], ... | *
func (r *reader) fromStmt(fr *frame, toks []tok) {
	imp := -1
	for i, t := range toks {
		if t.kind == 'n' && t.s == "import" {
			imp = i
			break
		}
	}
	if imp < 0 {
		return
	}
	var src strings.Builder
	for _, t := range toks[:imp] {
		src.WriteString(t.s)
	}
	target := src.String()
	if strings.HasPrefix(target, ".") {
		target = resolveRelative(fr.mod.name, fr.mod.pkg, target)
	}
	base := r.importModule(fr, target)
	names := toks[imp+1:]
	if n := len(names); n >= 2 && names[0].kind == 'o' && names[0].s == "(" && names[n-1].kind == 'o' && names[n-1].s == ")" {
		names = names[1 : n-1] // from x import (a, b,)
	}
	for _, item := range splitTop(names, ",") {
		name, alias := dottedName(item)
		if len(item) == 1 && item[0].kind == 'o' && item[0].s == "*" {
			if base.mod != nil && base.mod.deferred && fr.locals == nil {
				fr.mod.stars = append(fr.mod.stars, base.mod) // its names read when asked
				continue
			}
			if base.mod != nil {
				r.force(base.mod)
				for k, v := range base.mod.vars {
					if !strings.HasPrefix(k, "_") {
						r.bind(fr, k, v)
					}
				}
			}
			continue
		}
		if name == "" {
			continue
		}
		if alias == "" {
			alias = name
		}
		switch {
		case base.ext != "":
			r.bind(fr, alias, r.attr(fr, base, name))
		case base.mod != nil:
			if v, ok := base.mod.vars[name]; ok {
				r.bind(fr, alias, v)
				continue
			}
			if sub := r.importModule(fr, target+"."+name); sub.mod != nil || sub.ext != "" {
				r.bind(fr, alias, sub)
				continue
			}
			if base.mod.deferred {
				// A name of a module whose run was put off: run it when
				// the name is read.
				r.bind(fr, alias, value{later: &lateName{base.mod, name}})
				continue
			}
			r.bind(fr, alias, base.mod.vars[name])
		}
	}
}

// dottedName reads "a.b.c [as x]" (brackets ignored).
func dottedName(toks []tok) (name, alias string) {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == 'n' && t.s == "as" && i+1 < len(toks):
			return b.String(), toks[i+1].s
		case t.kind == 'n' || t.kind == 'o' && t.s == ".":
			b.WriteString(t.s)
		}
	}
	return b.String(), ""
}

// splitTop splits tokens at sep outside brackets.
func splitTop(toks []tok, sep string) [][]tok {
	var out [][]tok
	start := 0
	topOps(toks, func(i int, op string) bool {
		if op == sep {
			out = append(out, toks[start:i])
			start = i + 1
		}
		return true
	})
	return append(out, toks[start:])
}

// topOps calls yield for each operator outside brackets, in order, until
// it returns false.
func topOps(toks []tok, yield func(i int, op string) bool) {
	depth := 0
	for i, t := range toks {
		if t.kind != 'o' {
			continue
		}
		switch t.s {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		default:
			if depth == 0 && !yield(i, t.s) {
				return
			}
		}
	}
}

// params reads a def header's parameter names: name(a, b=1, *args).
func params(toks []tok) []string {
	var out []string
	if len(toks) < 2 {
		return nil
	}
	for _, p := range splitTop(toks[2:], ",") {
		if len(p) > 0 && p[0].kind == 'n' {
			out = append(out, p[0].s)
		} else {
			out = append(out, "") // *args, **kw, /: positions kept
		}
	}
	return out
}

// ifChain runs an if/elif/else chain: the branch a decided condition
// takes, on the path being followed; the others, where the condition
// depends on the environment or cannot be decided, under that condition.
func (r *reader) ifChain(fr *frame, chain []*stmt) (value, bool) {
	var others []string // conditions of the branches before, undecided (without "if ")
	for _, s := range chain {
		var v value
		var text string
		if s.kw == "else" {
			// Taken when none of the undecided conditions before it holds.
			v, text = value{truth: yes}, "unless "+strings.Join(others, " or ")
		} else {
			fr.line = s.line
			c := &cursor{r: r, fr: fr, toks: s.toks}
			v = c.expr()
			text = condText(fr, s, v)
		}
		switch {
		case v.truth == yes && len(others) == 0 && v.env == "":
			return r.runBody(fr, s.body)
		case v.truth == yes && len(others) == 0:
			// Taken by default; the rest are read under "the variable is set".
			val, stop := r.runBody(fr, s.body)
			r.conditional(fr, "when "+v.env+" is set", chainRest(chain, s))
			return val, stop
		case v.truth == no && v.env == "":
		case v.truth == no:
			r.conditional(fr, "when "+v.env+" is set", [][]*stmt{s.body})
		default:
			r.conditional(fr, text, [][]*stmt{s.body})
			others = append(others, strings.TrimPrefix(text, "if "))
		}
	}
	return value{}, false
}

// chainRest is the bodies of the chain's branches after s.
func chainRest(chain []*stmt, s *stmt) [][]*stmt {
	var out [][]*stmt
	after := false
	for _, t := range chain {
		if after {
			out = append(out, t.body)
		}
		after = after || t == s
	}
	return out
}

// conditional reads bodies under a condition: their steps are marked
// with it, and the dlopen flags they set do not outlive them.
func (r *reader) conditional(fr *frame, cond string, bodies [][]*stmt) {
	saved, savedCond := r.fl, r.cond
	if r.cond != "" {
		cond = r.cond + " and " + cond
	}
	for _, b := range bodies {
		r.cond = cond
		r.runBody(fr, b)
		if r.fl.global && !saved.global && savedCond == "" {
			// The branch leaves RTLD_GLOBAL set: what the default path
			// opens next is opened RTLD_GLOBAL on that branch.
			r.alt = &branchFlags{r.fl, cond}
		}
		r.fl = saved
	}
	r.cond = savedCond
}

func condText(fr *frame, s *stmt, v value) string {
	var b strings.Builder
	for i, t := range s.toks {
		if i > 0 && !tight(s.toks[i-1], t) {
			b.WriteByte(' ')
		}
		switch t.kind {
		case 's', 'f':
			b.WriteString("'" + t.s + "'")
		default:
			b.WriteString(t.s)
		}
	}
	text := b.String()
	if len(text) > 80 {
		text = text[:77] + "..."
	}
	return "if " + text + " (" + fr.at() + ")"
}

// tight says whether a condition's text puts no space between two tokens:
// around '.', inside brackets, before ',' and a call's or a subscript's
// bracket (f(x), a[0], but "in (a, b)").
func tight(prev, t tok) bool {
	op := func(k tok, ops ...string) bool { return k.kind == 'o' && slices.Contains(ops, k.s) }
	switch {
	case op(t, ".", ")", "]", ","), op(prev, ".", "(", "["):
		return true
	case op(t, "(", "["):
		return op(prev, ")", "]") || prev.kind == 's' || prev.kind == 'n' && !slices.Contains([]string{"and", "or", "not", "in", "is", "if", "else", "lambda"}, prev.s)
	}
	return false
}

// tryChain runs a try statement: its body, else and finally on the path;
// each except clause under "the body raised".
func (r *reader) tryChain(fr *frame, chain []*stmt) (value, bool) {
	var val value
	stop := false
	for _, s := range chain {
		switch s.kw {
		case "try", "else", "finally":
			if !stop {
				val, stop = r.runBody(fr, s.body)
			}
		case "except":
			r.conditional(fr, "if the try at "+fr.mod.file+":"+strconv.Itoa(chain[0].line)+" raises", [][]*stmt{s.body})
		}
	}
	return val, stop
}

// forLoop runs a loop's body once per item of a literal list or tuple,
// else once with the loop variable unknown.
func (r *reader) forLoop(fr *frame, s *stmt) (value, bool) {
	in := -1
	for i, t := range s.toks {
		if t.kind == 'n' && t.s == "in" {
			in = i
			break
		}
	}
	if in < 0 {
		return r.runBody(fr, s.body)
	}
	c := &cursor{r: r, fr: fr, toks: s.toks[in+1:]}
	seq := c.expr()
	items := seq.items
	if len(items) == 0 {
		items = []value{{}}
	}
	for _, it := range items {
		r.assign(fr, s.toks[:in], it)
		if v, stop := r.runBody(fr, s.body); stop {
			return v, true
		}
	}
	return value{}, false
}

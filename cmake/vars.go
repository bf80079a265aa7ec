package cmake

// Variables and scopes: bindings (set, unknown, unset), the scopes of
// directories, functions and blocks, argument expansion, and the commands
// that set variables (set, unset, option).

import (
	"slices"
	"strings"
)

// bindState is what a binding knows of its variable.
type bindState int

const (
	bindSet     bindState = iota
	bindUnset             // unset() or cmake_parse_arguments: known not defined
	bindNone              // no binding here: look at the cache
	bindUnknown           // defined, to a value etlink does not know
)

type binding struct {
	val   string
	state bindState
}

// scope is a variable scope: a directory, a function call, a block().
// CMake copies the parent's variables into a new scope; looking up the
// parent chain gives the same answers as long as the parent does not
// change while the child lives, which only PARENT_SCOPE does (setParent
// keeps the child's view).
type scope struct {
	vars   map[string]binding
	parent *scope
}

func newScope(parent *scope) *scope {
	return &scope{vars: map[string]binding{}, parent: parent}
}

func (s *scope) get(name string) (binding, bool) {
	for x := s; x != nil; x = x.parent {
		if b, ok := x.vars[name]; ok {
			return b, true
		}
	}
	return binding{}, false
}

func (s *scope) set(name, val string) { s.vars[name] = binding{val: val} }

func (s *scope) setParent(name string, b binding) {
	if s.parent == nil {
		return
	}
	if _, ok := s.vars[name]; !ok {
		old, found := s.parent.get(name)
		if !found {
			old = binding{state: bindNone}
		}
		s.vars[name] = old
	}
	s.parent.vars[name] = b
}

// xarg is an argument after expansion: one element of an unquoted
// argument's list, or a whole quoted or bracket argument.
type xarg struct {
	val      string // marked (see markUnknown)
	src      *Arg
	quoted   bool
	expanded bool // the argument held a variable reference
}

func (a xarg) is(kw string) bool { return a.val == kw }

func hasRef(s string) bool {
	return strings.Contains(s, "${") || strings.Contains(s, "$ENV{") || strings.Contains(s, "$CACHE{")
}

func (e *evaluator) expandArgs(c *ctx, cmd *Command) []xarg {
	var out []xarg
	lookup := e.lookup(c)
	for i := range cmd.Args {
		a := &cmd.Args[i]
		if a.Quoting == Bracket {
			out = append(out, xarg{val: a.Text, src: a, quoted: true})
			continue
		}
		text := a.Text
		var err error
		for _, m := range c.subst {
			if text, err = m.apply(text); err != nil {
				break
			}
		}
		var val string
		if err == nil {
			val, err = expandRefs(text, lookup)
		}
		if err != nil {
			e.note(e.loc(cmd.File, a.Line, a.Col), "cannot expand %s: %v", a.Source(), err)
			val = markUnknown + a.Text
		}
		x := xarg{src: a, quoted: a.Quoting == Quoted, expanded: hasRef(text)}
		if a.Quoting == Quoted {
			x.val = val
			out = append(out, x)
			continue
		}
		for _, v := range splitList(val) {
			x.val = v
			out = append(out, x)
		}
	}
	return out
}

func vals(args []xarg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.val
	}
	return out
}

func (e *evaluator) lookup(c *ctx) lookupFunc {
	return func(kind refKind, name string) string {
		if name == "" {
			return ""
		}
		if hasUnknown(name) {
			return unknownRef(kind, name)
		}
		dflt := undecided(name)
		name = stripMarks(name)
		var v string
		switch kind {
		case refEnv:
			return unknownRef(kind, name)
		case refCache:
			cv, ok := e.cache[name]
			if !ok {
				return unknownRef(kind, name)
			}
			v = cv
		default:
			val, st := e.variable(c.sc, name)
			switch st {
			case varUnset:
				return ""
			case varUnknown:
				return unknownRef(kind, name)
			}
			v = val
		}
		if dflt && v != "" {
			v = markEach(v, markDefault)
		}
		return v
	}
}

// variable looks a variable up as ${NAME} does: the scope chain, then the
// cache.
func (e *evaluator) variable(sc *scope, name string) (string, varStatus) {
	b, found := sc.get(name)
	if found {
		switch b.state {
		case bindSet:
			return b.val, varSet
		case bindUnknown:
			return "", varUnknown
		}
	}
	if v, ok := e.cache[name]; ok {
		return v, varSet
	}
	if found && b.state == bindUnset {
		return "", varUnset
	}
	return "", varUnknown
}

// markEach prefixes every element of a list with mark; an empty value
// becomes the mark alone, so that it is still "a default".
func markEach(v, mark string) string {
	if v == "" {
		return mark
	}
	parts := splitListKeepEmpty(v)
	for i, p := range parts {
		if !strings.HasPrefix(p, mark) {
			parts[i] = mark + p
		}
	}
	return strings.Join(parts, ";")
}

// setVar binds a variable in the current scope, refusing values too large
// to carry.
func (e *evaluator) setVar(c *ctx, cmd *Command, name, val string) {
	if len(val) > maxValue {
		e.note(e.cmdLoc(cmd), "value of %s is larger than 1 MiB: taken as unknown", name)
		c.sc.vars[name] = binding{state: bindUnknown}
		return
	}
	c.sc.set(name, val)
}

func (e *evaluator) setUnknown(c *ctx, name string) {
	if name = stripMarks(name); name != "" {
		c.sc.vars[name] = binding{state: bindUnknown}
	}
}

func (cc condCtx) variable(name string) (string, varStatus) { return cc.e.variable(cc.c.sc, name) }

// maxOrigins bounds the variables whose elements' origins are kept.
const maxOrigins = 1 << 14

// noteOrigin records cmd as where each element of values was put into name.
func (e *evaluator) noteOrigin(cmd *Command, name string, values []string) {
	m := e.origins[name]
	for _, v := range values {
		for _, el := range splitList(v) {
			if el = stripMarks(el); el == "" || len(m) >= maxOrigins || m == nil && len(e.origins) >= maxOrigins {
				continue
			}
			if m == nil {
				m = map[string][]*Origin{}
				e.origins[name] = m
			}
			o := &Origin{Loc: e.cmdLoc(cmd), Cmd: cmd.String()}
			if k := slices.IndexFunc(m[el], func(p *Origin) bool { return p.Loc.String() == o.Loc.String() }); k >= 0 {
				m[el][k] = o
			} else if len(m[el]) < 4 {
				m[el] = append(m[el], o)
			}
		}
	}
}

func (e *evaluator) cmdSet(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		if len(args) > 0 {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: the variable name is not known", cmd)
		}
		return
	}
	name := stripMarks(args[0].val)
	if strings.HasPrefix(name, "ENV{") {
		return
	}
	rest := args[1:]
	parent := false
	if n := len(rest); n > 0 && rest[n-1].is("PARENT_SCOPE") {
		parent = true
		rest = rest[:n-1]
	}
	for k, a := range rest {
		if !a.is("CACHE") {
			continue
		}
		value := strings.Join(vals(rest[:k]), ";")
		opts := rest[k+1:]
		force := len(opts) > 0 && opts[len(opts)-1].is("FORCE")
		if len(opts) > 0 && opts[0].is("INTERNAL") {
			force = true
		}
		if _, exists := e.cache[name]; exists && !force {
			return
		}
		if !force && !e.opt.TrustDefaults {
			value = markEach(value, markDefault)
		}
		if len(value) <= maxValue {
			e.cache[name] = value
		}
		return
	}
	if len(rest) == 0 {
		if parent {
			c.sc.setParent(name, binding{state: bindUnset})
		} else {
			c.sc.vars[name] = binding{state: bindUnset}
		}
		return
	}
	value := strings.Join(vals(rest), ";")
	e.noteOrigin(cmd, name, vals(rest))
	if parent {
		if len(value) > maxValue {
			c.sc.setParent(name, binding{state: bindUnknown})
		} else {
			c.sc.setParent(name, binding{val: value})
		}
		return
	}
	e.setVar(c, cmd, name, value)
}

func (e *evaluator) cmdUnset(c *ctx, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	name := stripMarks(args[0].val)
	switch {
	case len(args) > 1 && args[1].is("CACHE"):
		delete(e.cache, name)
	case len(args) > 1 && args[1].is("PARENT_SCOPE"):
		c.sc.setParent(name, binding{state: bindUnset})
	default:
		c.sc.vars[name] = binding{state: bindUnset}
	}
}

// cmdOption is option(NAME doc [default]). A default is a value a build may
// flip, so a condition on it is undecided (Options.TrustDefaults aside),
// except a default computed from the project's context in a subproject
// (pybind11's option(PYBIND11_TEST ... ${PYBIND11_MASTER_PROJECT}) inside
// ExecuTorch): what the parent project makes of it is what the build has,
// and a note says it was taken.
func (e *evaluator) cmdOption(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	name := stripMarks(args[0].val)
	if _, ok := e.cache[name]; ok {
		return
	}
	if b, ok := c.sc.get(name); ok && b.state == bindSet {
		return // CMP0077: a normal variable wins
	}
	value := "OFF"
	if len(args) > 2 {
		value = args[2].val
	}
	sub, _ := c.sc.get("PROJECT_SOURCE_DIR")
	switch {
	case e.opt.TrustDefaults:
	case len(args) > 2 && args[2].expanded && !undecided(value) && sub.state == bindSet && sub.val != e.absRoot:
		e.note(e.cmdLoc(cmd), "option(%s) of subproject %s defaults to %s, computed from the project's context (%s): taken as the parent project leaves it", name, e.display(sub.val), value, cmd.Args[2].Text)
	default:
		value = markEach(stripMarks(value), markDefault)
	}
	e.cache[name] = value
}

package demangle

import (
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
)

// Components maps symbols to the third-party component that defines them
// (pthreadpool, XNNPACK, protobuf, ...), so that a conflict between two
// libraries can be reported as "both bundle protobuf" rather than as
// thousands of symbols.
//
// A pattern is either a raw-name prefix ("xnn_", "pthreadpool_"), matched
// against the symbol as it appears in the symbol table, or a namespace prefix
// ending in "::" ("google::protobuf::"), matched against the qualified name
// of a C++ symbol component by component: "fmt::" matches fmt::v9::format
// and the function fmt::print, but not fmtlib::x. A namespace pattern may
// name a class or a function as its last component, "google::LogMessage::"
// or "google::InitGoogleLogging::", which then matches that entity and
// everything nested in it.
//
// The longest matching pattern wins, so "std::__1::" (libc++) beats
// "std::" (libstdc++); when a raw and a namespace pattern have the same
// length, or a pattern is added twice, the one added last wins, so that a
// user's configuration overrides the defaults.
//
// Add must not be called concurrently with Of; configure, then classify. Of
// is safe for concurrent use.
type Components struct {
	// raw holds the raw-name prefixes by their first byte, each list
	// longest first, so that Of scans a handful of candidates.
	raw   [256][]rawPattern
	ns    nsNode
	order int
}

type rawPattern struct {
	prefix, component string
	order             int
}

// nsNode is a trie over namespace components; a node whose component is
// non-empty ends a pattern.
type nsNode struct {
	children  map[string]*nsNode
	component string
	order     int
	patLen    int // length of the pattern text, to compare with raw patterns
}

// match is the best pattern found so far for one symbol.
type match struct {
	component string
	length    int
	order     int
}

func (m match) beats(o match) bool {
	return m.length > o.length || m.length == o.length && m.order > o.order
}

// NewComponents returns an empty table; most callers want
// DefaultComponents.
func NewComponents() *Components {
	return &Components{}
}

// Add registers patterns for the component name. A pattern ending in "::" is
// a namespace prefix; anything else is a raw-name prefix. Patterns added later
// take precedence over earlier ones of the same length, including the
// defaults. Add rejects the whole call, adding nothing, if any pattern is
// malformed.
func (c *Components) Add(name string, patterns ...string) error {
	if name == "" {
		return fmt.Errorf("demangle: component with patterns %q has no name", patterns)
	}
	if len(patterns) == 0 {
		return fmt.Errorf("demangle: component %q: no patterns", name)
	}
	for _, p := range patterns {
		if err := checkPattern(p); err != nil {
			return fmt.Errorf("demangle: component %q: %w", name, err)
		}
	}
	c.add(name, patterns)
	return nil
}

// add registers checked patterns.
func (c *Components) add(name string, patterns []string) {
	for _, p := range patterns {
		c.order++
		if path, ok := strings.CutSuffix(p, "::"); ok {
			c.addNamespace(name, p, strings.Split(path, "::"))
		} else {
			c.addRaw(name, p)
		}
	}
}

func checkPattern(p string) error {
	if p == "" {
		return fmt.Errorf("empty pattern")
	}
	path, ok := strings.CutSuffix(p, "::")
	if !ok {
		if strings.ContainsAny(p, " \t\n") {
			return fmt.Errorf("raw prefix %q contains white space, which no symbol name does", p)
		}
		return nil
	}
	for _, part := range strings.Split(path, "::") {
		switch {
		case part == "":
			return fmt.Errorf("namespace pattern %q has an empty component", p)
		case part == anonymousNamespace:
		case strings.ContainsAny(part, " \t\n<>(),:*&"):
			return fmt.Errorf("namespace pattern %q: component %q is not an identifier", p, part)
		}
	}
	return nil
}

func (c *Components) addRaw(name, prefix string) {
	list := c.raw[prefix[0]]
	for i := range list {
		if list[i].prefix == prefix {
			list[i] = rawPattern{prefix, name, c.order}
			return
		}
	}
	list = append(list, rawPattern{prefix, name, c.order})
	sort.SliceStable(list, func(i, j int) bool { return len(list[i].prefix) > len(list[j].prefix) })
	c.raw[prefix[0]] = list
}

func (c *Components) addNamespace(name, pattern string, path []string) {
	n := &c.ns
	for _, part := range path {
		child := n.children[part]
		if child == nil {
			if n.children == nil {
				n.children = make(map[string]*nsNode)
			}
			child = &nsNode{}
			n.children[part] = child
		}
		n = child
	}
	n.component, n.order, n.patLen = name, c.order, len(pattern)
}

// Of returns the component sym belongs to, or "" when no pattern matches. As
// with Name, sym must not carry an ELF symbol version.
//
// C++ names are classified from the mangled text: the leading components of
// the nested name are read directly, and only as far as the patterns need,
// so the common case costs a few map lookups and no allocation. Only when
// that reading stops early (a template argument list or another construct it
// does not parse stands where a deeper pattern could still match) is the
// name demangled.
func (c *Components) Of(sym string) string {
	var best match
	if sym == "" {
		return ""
	}
	for _, p := range c.raw[sym[0]] {
		if strings.HasPrefix(sym, p.prefix) {
			best = match{p.component, len(p.prefix), p.order}
			break
		}
	}
	if len(c.ns.children) > 0 && strings.HasPrefix(sym, "_Z") {
		if m := c.namespaceOf(sym); m.beats(best) {
			best = m
		}
	}
	return best.component
}

// slowPaths counts Of calls that had to demangle, for the tests that check
// the fast path covers real libraries.
var slowPaths atomic.Int64

func (c *Components) namespaceOf(sym string) match {
	w := walker{node: &c.ns}
	if !w.mangled(sym[2:]) {
		slowPaths.Add(1)
		w = walker{node: &c.ns}
		w.pushAll(qualifiedPath(sym))
	}
	if w.best == nil {
		return match{}
	}
	return match{w.best.component, w.best.patLen, w.best.order}
}

// walker follows a symbol's namespace components down the trie.
type walker struct {
	node *nsNode // nil once no pattern can match deeper
	best *nsNode
}

// push descends into component name and reports whether a deeper pattern
// could still match, that is whether reading more components is worth it.
func (w *walker) push(name string) bool {
	if w.node == nil {
		return false
	}
	w.node = w.node.children[name]
	if w.node == nil {
		return false
	}
	if w.node.component != "" {
		w.best = w.node
	}
	return len(w.node.children) > 0
}

// wantsMore reports whether a deeper pattern could still match, so that a
// parse that stops here leaves the answer undecided.
func (w *walker) wantsMore() bool {
	return w.node != nil && len(w.node.children) > 0
}

func (w *walker) pushAll(path []string) {
	for _, p := range path {
		if !w.push(p) {
			return
		}
	}
}

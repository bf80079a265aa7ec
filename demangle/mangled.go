package demangle

import (
	"strings"

	upstream "github.com/ianlancetaylor/demangle"
)

// anonymousNamespace is how c++filt prints GCC's "_GLOBAL__N_1" namespace;
// namespace patterns use the same spelling.
const anonymousNamespace = "(anonymous namespace)"

// The walker methods below read the leading namespace components of an
// Itanium mangled name without building it. Each returns true when the answer
// is decided: the name ended, or no pattern can match deeper than what was
// read. It returns false when it had to stop early while a deeper pattern
// could still match; Of then demangles the name.
//
// Covered: <nested-name> (N [r][V][K][R|O] ... E, with St, Sa, Sb, Ss, Si,
// So, Sd as first component, ABI tags and L skipped), unscoped names
// (including St, L and operators), local names (Z <encoding> E ...: the
// enclosing function decides), special names whose subject is a type
// (TV, TT, TI, TS, TC: the class, std for the typeinfo of a fundamental
// type, which libsupc++ defines, nothing for other types) or a name (Th, Tv, Tc thunks, TW, TH, GV,
// GR, GTt). Template arguments are not skipped: a name whose decisive
// component follows an argument list goes the slow way.

// mangled reads s, a mangled name without its "_Z".
func (w *walker) mangled(s string) bool {
	if len(s) < 2 {
		return !w.wantsMore()
	}
	switch s[0] {
	case 'T':
		switch s[1] {
		case 'V', 'T', 'I', 'S', 'C':
			return w.typeName(s[2:])
		case 'h', 'v':
			if rest, ok := skipCallOffset(s[1:]); ok {
				return w.name(rest)
			}
		case 'c':
			if rest, ok := skipCallOffset(s[2:]); ok {
				if rest, ok = skipCallOffset(rest); ok {
					return w.name(rest)
				}
			}
		case 'W', 'H':
			return w.name(s[2:])
		}
		return !w.wantsMore()
	case 'G':
		switch {
		case strings.HasPrefix(s, "GV"), strings.HasPrefix(s, "GR"):
			return w.name(s[2:])
		case strings.HasPrefix(s, "GTt"), strings.HasPrefix(s, "GTn"):
			return w.name(s[3:])
		}
		return !w.wantsMore()
	}
	return w.name(s)
}

// name reads a <name>: nested, unscoped or local.
func (w *walker) name(s string) bool {
	// A local name is classified by its enclosing function, whose name
	// comes first in the encoding after the Z.
	for len(s) > 0 && s[0] == 'Z' {
		s = s[1:]
	}
	if s == "" {
		return !w.wantsMore()
	}
	switch c := s[0]; {
	case c == 'N':
		return w.nested(s[1:])
	case c == 'S':
		rest, more, ok := w.std(s)
		if !ok {
			return !w.wantsMore()
		}
		if !more || s[1] != 't' {
			// Sa, Ss, ... name the entity itself.
			return true
		}
		return w.unscoped(rest)
	}
	return w.unscoped(s)
}

// unscoped reads an <unscoped-name> after any St: one source name, which
// ends the path, or an operator, which has no namespace.
func (w *walker) unscoped(s string) bool {
	if strings.HasPrefix(s, "L") {
		s = s[1:]
	}
	switch {
	case s == "":
		return !w.wantsMore()
	case isDigit(s[0]):
		id, _, ok := sourceName(s)
		if !ok {
			return !w.wantsMore()
		}
		w.push(id)
		return true
	case isLower(s[0]):
		return true
	}
	return !w.wantsMore()
}

// nested reads a <nested-name> after its N.
func (w *walker) nested(s string) bool {
	for len(s) > 0 && (s[0] == 'r' || s[0] == 'V' || s[0] == 'K') {
		s = s[1:]
	}
	if len(s) > 0 && (s[0] == 'R' || s[0] == 'O') {
		s = s[1:]
	}
	if strings.HasPrefix(s, "S") {
		rest, more, ok := w.std(s)
		if !ok {
			return !w.wantsMore()
		}
		if !more {
			return true
		}
		s = rest
	}
	for len(s) > 0 {
		c := s[0]
		switch {
		case isDigit(c):
			id, rest, ok := sourceName(s)
			if !ok {
				return !w.wantsMore()
			}
			if !w.push(id) {
				return true
			}
			s = rest
		case c == 'B': // ABI tag of the component before it
			_, rest, ok := sourceName(s[1:])
			if !ok {
				return !w.wantsMore()
			}
			s = rest
		case c == 'L': // internal linkage
			s = s[1:]
		case c == 'E', c == 'C', c == 'U', isLower(c),
			c == 'D' && len(s) > 1 && isDigit(s[1]):
			// The end, or the entity itself: a constructor,
			// destructor, operator, lambda or unnamed type. No
			// namespace component follows.
			return true
		default:
			// Template arguments, substitutions, template
			// parameters, decltype: stop here.
			return !w.wantsMore()
		}
	}
	return !w.wantsMore()
}

// std reads a standard-library abbreviation at the start of s and pushes
// its components. more reports whether a deeper pattern could still match.
func (w *walker) std(s string) (rest string, more, ok bool) {
	if len(s) < 2 || s[0] != 'S' {
		return s, false, false
	}
	var class string
	switch s[1] {
	case 't':
	case 'a':
		class = "allocator"
	case 'b', 's':
		class = "basic_string"
	case 'i':
		class = "basic_istream"
	case 'o':
		class = "basic_ostream"
	case 'd':
		class = "basic_iostream"
	default:
		return s, false, false
	}
	more = w.push("std")
	if more && class != "" {
		more = w.push(class)
	}
	return s[2:], more, true
}

// typeName reads the class type that TV, TT, TI, TS and TC name.
func (w *walker) typeName(s string) bool {
	if s == "" {
		return !w.wantsMore()
	}
	if c := s[0]; c == 'N' || c == 'Z' || c == 'S' || isDigit(c) {
		return w.name(s)
	}
	// Typeinfo for a fundamental type, or a pointer to one, comes from
	// libsupc++ (libstdc++): count it under std.
	t := strings.TrimLeft(s, "PKV")
	if t != "" && (isLower(t[0]) && t[0] != 'u' || t[0] == 'D' && len(t) > 1 && strings.IndexByte("nsiudefhaF", t[1]) >= 0) {
		w.push("std")
		return true
	}
	// Any other type (a function type, a pointer to a class, ...) has no
	// namespace of its own; demangling would not find one either.
	return true
}

// skipCallOffset skips a thunk's <call-offset>: h <number> _ or
// v <number> _ <number> _.
func skipCallOffset(s string) (string, bool) {
	if s == "" {
		return s, false
	}
	switch s[0] {
	case 'h':
		return skipNumber(s[1:])
	case 'v':
		if rest, ok := skipNumber(s[1:]); ok {
			return skipNumber(rest)
		}
	}
	return s, false
}

// skipNumber skips [n] <digits> _.
func skipNumber(s string) (string, bool) {
	s = strings.TrimPrefix(s, "n")
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != '_' {
		return s, false
	}
	return s[i+1:], true
}

// sourceName reads <length> <identifier>.
func sourceName(s string) (id, rest string, ok bool) {
	n, rest, ok := decimal(s)
	if !ok || n == 0 || n > len(rest) {
		return "", s, false
	}
	id = rest[:n]
	if strings.HasPrefix(id, "_GLOBAL__N") {
		id = anonymousNamespace
	}
	return id, rest[n:], true
}

// qualifiedPath demangles sym and returns the components of its qualified
// name, for the names the fast reading cannot decide (none past the
// demangler's bound or its run's budget).
func qualifiedPath(sym string) []string {
	return lookup(sym, func(e *entry) **[]string { return &e.path }, func() []string {
		if !afford(sym) {
			return nil
		}
		return demangledPath(sym)
	})
}

// demangledPath is qualifiedPath without the cache and budget.
func demangledPath(sym string) (path []string) {
	defer func() {
		if recover() != nil {
			path = nil
		}
	}()
	a, err := upstream.ToAST(sym, upstream.NoParams, upstream.NoRust)
	if err != nil {
		return nil
	}
	return appendPath(nil, a)
}

func appendPath(path []string, a upstream.AST) []string {
	switch a := a.(type) {
	case *upstream.Typed:
		return appendPath(path, a.Name)
	case *upstream.Clone:
		return appendPath(path, a.Base)
	case *upstream.Special:
		return appendPath(path, a.Val)
	case *upstream.Special2:
		// "construction vtable for BASE-in-DERIVED": the derived
		// class owns it, as in the fast reading of TC.
		return appendPath(path, a.Val2)
	case *upstream.Qualified:
		if a.LocalName {
			return appendPath(path, a.Scope)
		}
		return appendPath(appendPath(path, a.Scope), a.Name)
	case *upstream.Template:
		return appendPath(path, a.Name)
	case *upstream.TaggedName:
		return appendPath(path, a.Name)
	case *upstream.MethodWithQualifiers:
		return appendPath(path, a.Method)
	case *upstream.GlobalCDtor:
		return appendPath(path, a.Key)
	case *upstream.ModuleEntity:
		return appendPath(path, a.Name)
	case *upstream.Friend:
		return appendPath(path, a.Name)
	case *upstream.Name:
		return append(path, a.Name)
	}
	return path
}

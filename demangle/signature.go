package demangle

import (
	"strings"

	upstream "github.com/ianlancetaylor/demangle"
)

// Signature is what a mangled function name says of how it is called.
type Signature struct {
	// Params is the number of declared parameters (a member function's
	// object argument not counted: the name does not say whether a
	// nested name's scope is a class or a namespace).
	Params int
	// Constructor is true for a constructor (C1, C2, C3 and inheriting
	// ones): its first argument is the object under construction.
	Constructor bool
	// Member is true when the name says the function is a member (a
	// constructor, destructor, a cv- or ref-qualified method, a function
	// of a class template): its first argument is the object.
	Member bool
}

// FunctionSignature reads the signature of a mangled function name; ok is
// false for names that are not mangled functions (C names, data, names over
// the demangler's bound or its run's budget).
func FunctionSignature(sym string) (Signature, bool) {
	if !strings.HasPrefix(sym, "_Z") {
		return Signature{}, false
	}
	r := lookup(sym, func(e *entry) **sigResult { return &e.sig }, func() sigResult {
		if !afford(sym) {
			return sigResult{}
		}
		sig, ok := functionSignature(sym)
		return sigResult{sig, ok}
	})
	return r.sig, r.ok
}

// sigResult is FunctionSignature's answer, as the cache keeps it.
type sigResult struct {
	sig Signature
	ok  bool
}

// functionSignature is FunctionSignature without the cache and budget.
func functionSignature(sym string) (sig Signature, ok bool) {
	defer func() {
		if recover() != nil {
			sig, ok = Signature{}, false
		}
	}()
	a, err := upstream.ToAST(sym, upstream.NoRust)
	if err != nil {
		return Signature{}, false
	}
	if c, isClone := a.(*upstream.Clone); isClone {
		a = c.Base
	}
	t, isTyped := a.(*upstream.Typed)
	if !isTyped {
		return Signature{}, false
	}
	typ := t.Type
	if m, isMethod := typ.(*upstream.MethodWithQualifiers); isMethod {
		typ = m.Method // const, volatile or ref-qualified member function
		sig.Member = true
	}
	ft, isFunc := typ.(*upstream.FunctionType)
	if !isFunc {
		return Signature{}, false
	}
	sig.Params = len(ft.Args)
	if len(ft.Args) == 1 {
		if b, isBuiltin := ft.Args[0].(*upstream.BuiltinType); isBuiltin && b.Name == "void" {
			sig.Params = 0
		}
	}
	sig.Constructor = isConstructor(t.Name)
	sig.Member = sig.Member || sig.Constructor || isDestructor(t.Name) || templateScope(t.Name)
	return sig, true
}

func isDestructor(a upstream.AST) bool {
	if q, ok := a.(*upstream.Qualified); ok {
		_, ok := q.Name.(*upstream.Destructor)
		return ok
	}
	return false
}

// templateScope reports whether a qualified name's scope is a template
// specialization: a class, as namespaces take no template arguments.
func templateScope(a upstream.AST) bool {
	if t, ok := a.(*upstream.Template); ok {
		a = t.Name
	}
	q, ok := a.(*upstream.Qualified)
	if !ok {
		return false
	}
	_, ok = q.Scope.(*upstream.Template)
	return ok
}

func isConstructor(a upstream.AST) bool {
	switch a := a.(type) {
	case *upstream.Qualified:
		return isConstructor(a.Name)
	case *upstream.Template:
		return isConstructor(a.Name)
	case *upstream.MethodWithQualifiers:
		return isConstructor(a.Method)
	case *upstream.TaggedName:
		return isConstructor(a.Name)
	case *upstream.Constructor:
		return true
	}
	return false
}

// Reserved reports whether a symbol is in the names the C and C++ standards
// reserve for the implementation: a C name starting with two underscores or
// an underscore and a capital letter (__cxa_atexit, _Unwind_Resume), a C++
// name in namespace std or one whose first component starts with two
// underscores (__gnu_cxx), and the allocation functions (operator new and
// delete). A toolchain runtime defines these, never a project.
func Reserved(sym string) bool {
	if !strings.HasPrefix(sym, "_Z") {
		return strings.HasPrefix(sym, "__") || len(sym) > 1 && sym[0] == '_' && 'A' <= sym[1] && sym[1] <= 'Z'
	}
	rest := strings.TrimPrefix(sym, "_Z")
	if strings.HasPrefix(rest, "n") || strings.HasPrefix(rest, "d") && len(rest) > 1 && (rest[1] == 'l' || rest[1] == 'a') {
		return true // nw, na, dl, da
	}
	rest = strings.TrimLeft(strings.TrimPrefix(rest, "N"), "rVKRO")
	switch {
	case strings.HasPrefix(rest, "St"), strings.HasPrefix(rest, "Sa"), strings.HasPrefix(rest, "Sb"),
		strings.HasPrefix(rest, "Ss"), strings.HasPrefix(rest, "Si"), strings.HasPrefix(rest, "So"), strings.HasPrefix(rest, "Sd"):
		return true
	}
	id, _, ok := sourceName(strings.TrimPrefix(rest, "L"))
	return ok && strings.HasPrefix(id, "__")
}

// Library reports whether a mangled function belongs to the C++ standard
// library's implementation: a name in namespace std, or in a namespace
// whose name is reserved (__gnu_cxx, __cxxabiv1). A function a compiler
// names itself (__static_initialization_and_destruction_0) is not.
func Library(sym string) bool {
	rest, ok := strings.CutPrefix(sym, "_Z")
	if !ok || !Reserved(sym) {
		return false
	}
	return strings.HasPrefix(rest, "N") || strings.HasPrefix(rest, "S")
}

package cmake

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// tri is a three-valued truth: a condition on something etlink does not
// know is neither true nor false.
type tri int

const (
	triFalse tri = iota
	triTrue
	triUnknown
)

func triOf(b bool) tri {
	if b {
		return triTrue
	}
	return triFalse
}

func (t tri) not() tri {
	switch t {
	case triTrue:
		return triFalse
	case triFalse:
		return triTrue
	}
	return triUnknown
}

// ctok is one argument of if()/elseif()/while() after expansion, or a
// sub-expression already reduced to a truth value.
type ctok struct {
	s        string
	quoted   bool // quoted or bracket: never read as a variable name
	expanded bool // the argument held a ${} reference
	reduced  bool
	v        tri
}

// condEnv is what a condition can ask about the project.
type condEnv interface {
	// variable returns a variable's value and whether it is set, unset
	// (known not to be defined), or unknown.
	variable(name string) (string, varStatus)
	hasCommand(name string) bool
	hasTarget(name string) bool
	root() string
	// cmakeVersion is the CMake release the evaluation takes.
	cmakeVersion() string
	// modelled reports whether a modelled find_package() defined the
	// imported targets of namespace ns (Python3 for Python3::Module).
	modelled(ns string) bool
}

type varStatus int

const (
	varUnknown varStatus = iota
	varSet
	varUnset
)

// condEval evaluates one condition; why records the first thing that made
// it unknown, for the Note.
type condEval struct {
	env condEnv
	why string
	// guess says what the evaluation took without knowing it (a value
	// read as a variable name the tree never sets, decided false).
	guess string
}

func (ce *condEval) unknown(format string, args ...any) tri {
	if ce.why == "" {
		ce.why = fmt.Sprintf(format, args...)
	}
	return triUnknown
}

var unaryOps = map[string]bool{
	"EXISTS": true, "COMMAND": true, "DEFINED": true, "TARGET": true, "POLICY": true, "TEST": true,
	"IS_DIRECTORY": true, "IS_SYMLINK": true, "IS_ABSOLUTE": true, "IS_READABLE": true,
	"IS_WRITABLE": true, "IS_EXECUTABLE": true,
}

var binaryOps = map[string]bool{
	"EQUAL": true, "LESS": true, "LESS_EQUAL": true, "GREATER": true, "GREATER_EQUAL": true,
	"STREQUAL": true, "STRLESS": true, "STRLESS_EQUAL": true, "STRGREATER": true, "STRGREATER_EQUAL": true,
	"VERSION_EQUAL": true, "VERSION_LESS": true, "VERSION_LESS_EQUAL": true, "VERSION_GREATER": true,
	"VERSION_GREATER_EQUAL": true, "MATCHES": true, "IN_LIST": true, "PATH_EQUAL": true, "IS_NEWER_THAN": true,
}

func (t ctok) is(kw string) bool { return !t.reduced && !t.quoted && t.s == kw }

func (t ctok) isOp(m map[string]bool) bool { return !t.reduced && !t.quoted && m[t.s] }

// eval reduces the arguments as cmConditionEvaluator does: parentheses
// innermost first; then, left to right within each level, unary tests,
// binary tests, NOT, and AND and OR together.
func (ce *condEval) eval(toks []ctok) tri {
	if len(toks) == 0 {
		return triFalse
	}
	// Parentheses, iteratively: reduce the innermost pair each time.
	for {
		closeAt := -1
		for i, t := range toks {
			if t.is(")") {
				closeAt = i
				break
			}
		}
		openAt := -1
		limit := len(toks)
		if closeAt >= 0 {
			limit = closeAt
		}
		for i := limit - 1; i >= 0; i-- {
			if toks[i].is("(") {
				openAt = i
				break
			}
		}
		if closeAt < 0 && openAt < 0 {
			break
		}
		if closeAt < 0 || openAt < 0 {
			return ce.unknown("mismatched parenthesis")
		}
		v := ce.flat(append([]ctok(nil), toks[openAt+1:closeAt]...))
		toks = append(toks[:openAt], append([]ctok{{reduced: true, v: v}}, toks[closeAt+1:]...)...)
	}
	return ce.flat(toks)
}

// flat evaluates an expression without parentheses.
func (ce *condEval) flat(toks []ctok) tri {
	if len(toks) == 0 {
		return ce.unknown("empty parentheses")
	}
	// Unary tests.
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].isOp(unaryOps) {
			v := ce.unary(toks[i].s, toks[i+1])
			toks = splice(toks, i, 2, v)
		}
	}
	// Binary tests.
	for i := 0; i+2 < len(toks); i++ {
		if toks[i+1].isOp(binaryOps) {
			v := ce.binary(toks[i], toks[i+1].s, toks[i+2])
			toks = splice(toks, i, 3, v)
			i--
		}
	}
	// NOT, right to left so that NOT NOT x works.
	for i := len(toks) - 2; i >= 0; i-- {
		if toks[i].is("NOT") {
			v := ce.truth(toks[i+1]).not()
			toks = splice(toks, i, 2, v)
		}
	}
	// AND and OR: one level, left to right, as cmConditionEvaluator does
	// (A OR A AND B is false), whatever the documentation says.
	for i := 0; i+2 < len(toks); i++ {
		isAnd, isOr := toks[i+1].is("AND"), toks[i+1].is("OR")
		if !isAnd && !isOr {
			continue
		}
		a, b := ce.truth(toks[i]), ce.truth(toks[i+2])
		var v tri
		if isAnd {
			switch {
			case a == triFalse || b == triFalse:
				v = triFalse
			case a == triUnknown || b == triUnknown:
				v = triUnknown
			default:
				v = triTrue
			}
		} else {
			switch {
			case a == triTrue || b == triTrue:
				v = triTrue
			case a == triUnknown || b == triUnknown:
				v = triUnknown
			default:
				v = triFalse
			}
		}
		toks = splice(toks, i, 3, v)
		i--
	}
	if len(toks) != 1 {
		return ce.unknown("arguments etlink cannot read as one condition")
	}
	return ce.truth(toks[0])
}

func splice(toks []ctok, at, n int, v tri) []ctok {
	toks[at] = ctok{reduced: true, v: v}
	return append(toks[:at+1], toks[at+n:]...)
}

// isTrueConst and isFalseConst are CMake's boolean constants.
func isTrueConst(s string) bool {
	switch strings.ToUpper(s) {
	case "1", "ON", "YES", "TRUE", "Y":
		return true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f != 0 {
		return true
	}
	return false
}

func isFalseConst(s string) bool {
	u := strings.ToUpper(s)
	switch u {
	case "", "0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND":
		return true
	}
	if strings.HasSuffix(u, "-NOTFOUND") {
		return true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == 0 {
		return true
	}
	return false
}

// truth is if(<constant>) / if(<variable>) for one token.
func (ce *condEval) truth(t ctok) tri {
	if t.reduced {
		return t.v
	}
	if undecided(t.s) {
		return ce.unknown("%s", whyText(t.s))
	}
	if isTrueConst(t.s) {
		return triTrue
	}
	if isFalseConst(t.s) {
		return triFalse
	}
	if t.quoted {
		return triFalse
	}
	val, st := ce.env.variable(t.s)
	switch st {
	case varUnset:
		return triFalse
	case varUnknown:
		if t.expanded && !looksLikeVariable(t.s) {
			// if(${S}) with S "hello": CMake reads a variable named hello,
			// which a tree almost never means to set.
			if ce.guess == "" {
				ce.guess = fmt.Sprintf("%s is read as a variable no file read sets, taken as unset (false)", t.s)
			}
			return triFalse
		}
		return ce.unknown("variable %s is not set in the tree", t.s)
	}
	if undecided(val) {
		return ce.unknown("%s", whyVar(t.s, val))
	}
	return triOf(!isFalseConst(val))
}

// whyText says why an argument whose text is marked is not known.
func whyText(s string) string {
	if hasUnknown(s) {
		return stripMarks(s) + " is not known"
	}
	if strings.Contains(s, markBranch) {
		return fmt.Sprintf("%q is what one branch of an undecided if() set", stripMarks(s))
	}
	return fmt.Sprintf("%q is only a default a user may override", stripMarks(s))
}

// whyVar says why a variable whose value is marked is not known.
func whyVar(name, val string) string {
	if hasUnknown(val) {
		return fmt.Sprintf("%s holds %s, which is not known", name, stripMarks(val))
	}
	if strings.Contains(val, markBranch) {
		return fmt.Sprintf("%s is set differently in the branches of an undecided if() (%q in one)", name, stripMarks(val))
	}
	return fmt.Sprintf("%s is only a default a user may override (%q)", name, stripMarks(val))
}

// operand is the value of a binary test's operand: an unquoted argument
// naming a defined variable stands for its value. A name etlink does not
// know as a variable is unknown, unless it came out of an expansion (a
// value such as "Release" is almost never meant as a variable name).
func (ce *condEval) operand(t ctok) (string, bool) {
	if t.reduced {
		if t.v == triTrue {
			return "1", true
		}
		return "0", t.v == triFalse
	}
	if undecided(t.s) {
		ce.unknown("%s", whyText(t.s))
		return "", false
	}
	if t.quoted {
		return t.s, true
	}
	val, st := ce.env.variable(t.s)
	switch st {
	case varSet:
		if undecided(val) {
			ce.unknown("%s", whyVar(t.s, val))
			return "", false
		}
		return val, true
	case varUnknown:
		if !t.expanded && looksLikeVariable(t.s) {
			ce.unknown("variable %s is not set in the tree", t.s)
			return "", false
		}
	}
	return t.s, true
}

// looksLikeVariable tells a bare word such as CMAKE_SYSTEM_NAME from a
// literal such as 3.18 or "Linux".
func looksLikeVariable(s string) bool {
	if s == "" || !isVariableName(s) {
		return false
	}
	return strings.ToUpper(s) == s || strings.Contains(s, "_")
}

// isVariableName reports whether s is a name CMake's ${} takes for a
// variable: letters, digits and _ . / + - (BUILD.PYTHON is one), with a
// letter or _ first, so that 3.18 is not.
func isVariableName(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(c == '_' || c == '.' || c == '/' || c == '+' || c == '-' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (ce *condEval) unary(op string, t ctok) tri {
	if t.reduced {
		return ce.unknown("%s applied to a sub-expression", op)
	}
	if undecided(t.s) && op != "DEFINED" {
		return ce.unknown("%s %s", op, whyText(t.s))
	}
	switch op {
	case "DEFINED":
		name := stripMarks(t.s)
		if hasUnknown(t.s) {
			return ce.unknown("DEFINED %s is not known", name)
		}
		if strings.HasPrefix(name, "ENV{") {
			return ce.unknown("DEFINED %s depends on the environment", name)
		}
		if strings.HasPrefix(name, "CACHE{") && strings.HasSuffix(name, "}") {
			name = name[len("CACHE{") : len(name)-1]
		}
		_, st := ce.env.variable(name)
		switch st {
		case varSet:
			return triTrue
		case varUnset:
			return triFalse
		}
		return ce.unknown("DEFINED %s: %s is not set in the tree", name, name)
	case "COMMAND":
		if ce.env.hasCommand(t.s) {
			return triTrue
		}
		return ce.unknown("COMMAND %s is not defined in the tree", t.s)
	case "TARGET":
		if ce.env.hasTarget(t.s) {
			return triTrue
		}
		if ns, _, ok := strings.Cut(t.s, "::"); ok && ce.env.modelled(ns) {
			return triFalse // the modelled package's find_package() defines no such target on this CMake
		}
		return ce.unknown("TARGET %s is not defined in the tree (it may be imported)", t.s)
	case "IS_ABSOLUTE":
		return triOf(filepath.IsAbs(t.s))
	case "EXISTS", "IS_DIRECTORY":
		if !filepath.IsAbs(t.s) || !within(ce.env.root(), t.s) {
			return ce.unknown("%s %s is outside the tree", op, t.s)
		}
		fi, err := os.Stat(t.s)
		if op == "EXISTS" {
			return triOf(err == nil)
		}
		return triOf(err == nil && fi.IsDir())
	}
	if op == "POLICY" {
		if v, ok := policyExists(t.s, ce.env.cmakeVersion()); ok {
			return triOf(v)
		}
		return ce.unknown("POLICY %s: etlink does not know whether CMake %s has it", t.s, ce.env.cmakeVersion())
	}
	return ce.unknown("%s %s depends on the build machine", op, t.s)
}

func (ce *condEval) binary(a ctok, op string, b ctok) tri {
	if op == "IN_LIST" {
		return ce.inList(a, b)
	}
	if op == "PATH_EQUAL" || op == "IS_NEWER_THAN" {
		return ce.unknown("%s is not evaluated", op)
	}
	if v, ok := ce.pythonVersion(a, op, b); ok {
		return v
	}
	l, ok1 := ce.operand(a)
	var r string
	ok2 := true
	if op == "MATCHES" {
		// The regular expression is never dereferenced.
		if b.reduced || undecided(b.s) {
			return ce.unknown("MATCHES with an unknown pattern")
		}
		r = b.s
	} else {
		r, ok2 = ce.operand(b)
	}
	if !ok1 || !ok2 {
		return triUnknown
	}
	return compareOp(op, l, r, ce)
}

// compareOp applies a binary comparison to two known operands.
func compareOp(op, l, r string, ce *condEval) tri {
	switch op {
	case "STREQUAL":
		return triOf(l == r)
	case "STRLESS":
		return triOf(l < r)
	case "STRLESS_EQUAL":
		return triOf(l <= r)
	case "STRGREATER":
		return triOf(l > r)
	case "STRGREATER_EQUAL":
		return triOf(l >= r)
	case "MATCHES":
		re, err := regexp.Compile(r)
		if err != nil {
			return ce.unknown("MATCHES %q is not a regular expression etlink reads", r)
		}
		return triOf(re.MatchString(l))
	case "EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL":
		x, err1 := strconv.ParseFloat(strings.TrimSpace(l), 64)
		y, err2 := strconv.ParseFloat(strings.TrimSpace(r), 64)
		if err1 != nil || err2 != nil {
			return triFalse
		}
		return triOf(compare(op, cmpFloat(x, y)))
	}
	// VERSION_*
	return triOf(compare(strings.TrimPrefix(op, "VERSION_"), compareVersions(l, r)))
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func compare(op string, c int) bool {
	switch op {
	case "EQUAL":
		return c == 0
	case "LESS":
		return c < 0
	case "LESS_EQUAL":
		return c <= 0
	case "GREATER":
		return c > 0
	case "GREATER_EQUAL":
		return c >= 0
	}
	return false
}

// compareVersions compares dotted integer versions, missing components
// being 0, as CMake's VERSION_ tests do.
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		x, y := 0, 0
		if i < len(pa) {
			x = leadingInt(pa[i])
		}
		if i < len(pb) {
			y = leadingInt(pb[i])
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func leadingInt(s string) int {
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n < 1<<30; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func (ce *condEval) inList(a, b ctok) tri {
	l, ok := ce.operand(a)
	if !ok {
		return triUnknown
	}
	if b.reduced || b.quoted || undecided(b.s) {
		return ce.unknown("IN_LIST needs a variable name")
	}
	val, st := ce.env.variable(b.s)
	switch st {
	case varUnset:
		return triFalse
	case varUnknown:
		return ce.unknown("list %s is not set in the tree", b.s)
	}
	unsure := false
	for _, e := range splitListKeepEmpty(val) {
		if undecided(e) {
			unsure = true
			continue
		}
		if e == l {
			return triTrue
		}
	}
	if unsure {
		return ce.unknown("%s", whyVar(b.s, val))
	}
	return triFalse
}

// within reports whether path is root or inside it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// The interpreters a Python extension is built for: CPython 3.9 and later
// (the versions upstream supports). A comparison on the found Python's
// version that holds for every one of them is decided, as on any build
// today (Ultimaker/libArcus links libpython only IF the minor version is
// below 8); one that depends on which is undecided.
var pythonVersionRange = map[string][2]string{"": {"3.9", "3.99"}, "_STRING": {"3.9", "3.99"}, "_MAJOR": {"3", "3"}, "_MINOR": {"9", "99"}}

// pythonVersionVar reports whether a condition operand is the found
// Python's version, unknown to etlink: ${Python3_VERSION_MINOR} left as
// written, or the bare name of one the tree never sets.
func (ce *condEval) pythonVersionVar(t ctok) ([2]string, bool) {
	if t.reduced {
		return [2]string{}, false
	}
	name := stripMarks(t.s)
	if inner, ok := strings.CutPrefix(name, "${"); ok && hasUnknown(t.s) && strings.HasSuffix(inner, "}") {
		name = inner[:len(inner)-1]
	} else if t.quoted || t.expanded {
		return [2]string{}, false
	} else if _, st := ce.env.variable(name); st != varUnknown {
		return [2]string{}, false
	}
	for _, p := range []string{"Python_VERSION", "Python3_VERSION", "PYTHON_VERSION", "PYTHONLIBS_VERSION"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			if r, ok := pythonVersionRange[rest]; ok {
				return r, true
			}
		}
	}
	return [2]string{}, false
}

// pythonVersion decides a comparison of the found Python's version with a
// known value when it holds the same for every supported interpreter.
func (ce *condEval) pythonVersion(a ctok, op string, b ctok) (tri, bool) {
	if op == "MATCHES" {
		return triUnknown, false
	}
	rng, left := ce.pythonVersionVar(a)
	other := b
	if !left {
		var right bool
		if rng, right = ce.pythonVersionVar(b); !right {
			return triUnknown, false
		}
		other = a
	}
	v, ok := ce.operand(other)
	if !ok || undecided(v) {
		return triUnknown, false
	}
	var at [2]tri
	for i, x := range rng {
		l, r := x, v
		if !left {
			l, r = v, x
		}
		at[i] = compareOp(op, l, r, ce)
	}
	if at[0] != at[1] {
		return ce.unknown("the comparison depends on the Python version (3.9 or later)"), true
	}
	return at[0], true
}

// lastPolicy is the newest policy each CMake release up to 3.25 knows
// (cmake-policies(7)): if(POLICY CMPnnnn) is true on the releases at or
// after the one that introduced it.
var lastPolicy = []struct {
	version string
	last    int
}{
	{"2.8.12", 23}, {"3.0", 51}, {"3.1", 54}, {"3.2", 55}, {"3.3", 63}, {"3.4", 65}, {"3.7", 66}, {"3.8", 67},
	{"3.9", 69}, {"3.10", 71}, {"3.11", 72}, {"3.12", 75}, {"3.13", 81}, {"3.14", 88}, {"3.15", 94}, {"3.16", 97},
	{"3.17", 102}, {"3.18", 108}, {"3.19", 111}, {"3.20", 120}, {"3.21", 126}, {"3.22", 128}, {"3.23", 129},
	{"3.24", 139}, {"3.25", 140},
}

// policyExists says whether CMake version knows policy CMPnnnn; ok is
// false beyond the table (a release after 3.25 knowing a newer policy).
func policyExists(policy, version string) (exists, ok bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(policy, "CMP"))
	if err != nil || !strings.HasPrefix(policy, "CMP") {
		return false, true // not a policy name: CMake says false
	}
	last := -1
	for _, p := range lastPolicy {
		if compareVersions(version, p.version) >= 0 {
			last = p.last
		}
	}
	switch {
	case n <= last:
		return true, true
	case compareVersions(version, "3.26") < 0:
		return false, true
	}
	return false, false
}

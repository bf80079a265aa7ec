package cmake

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

func creatorArgs(args []xarg) []Arg {
	out := make([]Arg, len(args))
	for i, a := range args {
		q := Unquoted
		if a.src != nil {
			q = a.src.Quoting
		}
		out[i] = Arg{Text: stripMarks(a.val), Quoting: q}
		if a.src != nil {
			out[i].Line, out[i].Col = a.src.Line, a.src.Col
		}
	}
	return out
}

// newTarget records a target created by cmd, whose name is args[0].
func (e *evaluator) newTarget(c *ctx, cmd *Command, args []xarg, kind string) *Target {
	name := args[0].val
	t := &Target{
		nameMarked:  name,
		Name:        stripMarks(name),
		Kind:        kind,
		Creator:     cmd.Raw,
		Def:         e.cmdLoc(cmd),
		CreatorArgs: creatorArgs(args),
		Properties:  map[string]string{},
	}
	if hasUnknown(name) {
		e.note(e.cmdLoc(cmd), "%s(): the target name %s is not known", cmd.Raw, t.Name)
	}
	if prev := e.targets[t.Name]; len(prev) > 0 {
		e.note(e.cmdLoc(cmd), "%s() defines target %s again (also defined at %s): both kept", cmd.Raw, t.Name, prev[0].Def)
	}
	e.targets[t.Name] = append(e.targets[t.Name], t)
	e.p.Targets = append(e.p.Targets, t)
	switch kind {
	case KindImported, KindAlias:
	case KindInterface:
		c.dir.targets = append(c.dir.targets, t.Name)
	default:
		c.dir.targets = append(c.dir.targets, t.Name)
		t.Links = append(t.Links, c.dir.linkLibs...)
	}
	return t
}

func (e *evaluator) cmdAddLibrary(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	kind, imported, alias := "", false, -1
	typeUnknown := false
scan:
	for k := 1; k < len(args); k++ {
		switch v := args[k].val; v {
		case "STATIC", "SHARED", "MODULE", "OBJECT", "INTERFACE", "UNKNOWN":
			if kind == "" {
				kind = v
			}
		case "EXCLUDE_FROM_ALL", "GLOBAL":
		case "IMPORTED":
			imported = true
		case "ALIAS":
			alias = k + 1
			break scan
		default:
			typeUnknown = k == 1 && mayBeType(v) && kind == ""
			break scan
		}
	}
	switch {
	case alias > 0:
		t := e.newTarget(c, cmd, args, KindAlias)
		if alias < len(args) {
			t.Aliased = stripMarks(args[alias].val)
		}
		return
	case imported:
		kind = KindImported
	case kind == "UNKNOWN":
		kind = KindImported
	case typeUnknown:
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the library type %s is not known", cmd, stripMarks(args[1].val))
		kind = KindUnknown
	case kind == "":
		kind = e.defaultLibraryKind(c, cmd)
	}
	e.newTarget(c, cmd, args, kind)
}

// defaultLibraryKind is the type of add_library(name srcs...): SHARED when
// BUILD_SHARED_LIBS is true, STATIC otherwise (also when it is not set,
// CMake's default).
func (e *evaluator) defaultLibraryKind(c *ctx, cmd *Command) string {
	v, st := e.variable(c.sc, "BUILD_SHARED_LIBS")
	if st != varSet {
		return KindStatic
	}
	if hasUnknown(v) {
		e.note(e.cmdLoc(cmd), "%s() without a type: BUILD_SHARED_LIBS is not known; read as STATIC", cmd.Raw)
		return KindStatic
	}
	kind := KindStatic
	if !isFalseConst(stripMarks(v)) {
		kind = KindShared
	}
	if undecided(v) {
		e.note(e.cmdLoc(cmd), "%s() without a type: %s per the BUILD_SHARED_LIBS default %q, which a build may flip", cmd.Raw, kind, stripMarks(v))
	}
	return kind
}

func (e *evaluator) cmdAddExecutable(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	kind := KindExecutable
	for k := 1; k < len(args); k++ {
		switch args[k].val {
		case "WIN32", "MACOSX_BUNDLE", "EXCLUDE_FROM_ALL", "GLOBAL":
			continue
		case "IMPORTED":
			kind = KindImported
			continue
		case "ALIAS":
			t := e.newTarget(c, cmd, args, KindAlias)
			if k+1 < len(args) {
				t.Aliased = stripMarks(args[k+1].val)
			}
			return
		}
		break
	}
	e.newTarget(c, cmd, args, kind)
}

// implicitLink records an item a creator command links by itself.
func (e *evaluator) implicitLink(t *Target, cmd *Command, item, why string) {
	li := LinkItem{Item: item, marked: item, Scope: "PRIVATE", Loc: e.cmdLoc(cmd), Implicit: why}
	li.classify()
	t.Links = append(t.Links, li)
}

// mayBeType reports an argument etlink could not expand whose name says
// it holds a library type (${LIB_TYPE}, ${KIND}), as opposed to sources
// (${SRCS}), which are far more common in that place.
func mayBeType(v string) bool {
	if !hasUnknown(v) {
		return false
	}
	u := strings.ToUpper(stripMarks(v))
	for _, w := range []string{"TYPE", "KIND", "SHARED", "STATIC", "MODULE", "LINKAGE"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// keywords returns which of kws appear among args[1:], and whether an
// argument etlink could not expand might have been one of them.
func keywords(args []xarg, kws ...string) (map[string]bool, bool) {
	got := map[string]bool{}
	unsure := false
	for _, a := range args[1:] {
		for _, kw := range kws {
			if a.val == kw {
				got[kw] = true
			}
		}
		if mayBeType(a.val) {
			unsure = true
		}
	}
	return got, unsure
}

// cmdPybind11AddModule models pybind11's pybind11_add_module(name [MODULE |
// SHARED | STATIC] [THIN_LTO] [OPT_SIZE] [NO_EXTRAS] [WITHOUT_SOABI] ...):
// a MODULE library by default linking pybind11::module; SHARED or STATIC
// link pybind11::embed, which brings libpython (Python::Python).
func (e *evaluator) cmdPybind11AddModule(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	kind, kw := e.moduleKind(cmd, args, "WITHOUT_SOABI", "WITH_SOABI")
	t := e.newTarget(c, cmd, args, kind)
	if kind == KindModule {
		e.implicitLink(t, cmd, "pybind11::module", "pybind11_add_module() links pybind11::module (Python::Module) into a MODULE")
	} else {
		// As pybind11's own function does: Python_add_library(SHARED)
		// links <Python>::Python, then pybind11::embed.
		py := e.pythonPrefix(c) + "::Python"
		e.implicitLink(t, cmd, py, fmt.Sprintf("pybind11_add_module(%s) calls %s_add_library(%s), which links %s (libpython)", kind, e.pythonPrefix(c), kind, py))
		e.implicitLink(t, cmd, "pybind11::embed", fmt.Sprintf("pybind11_add_module(%s) links pybind11::embed, which links Python::Python (libpython)", kind))
	}
	if !kw["WITHOUT_SOABI"] && !kw["WITH_SOABI"] {
		t.Properties["PREFIX"] = ""
		t.Properties["SUFFIX"] = "${PYTHON_MODULE_EXTENSION}"
	}
}

// pythonPrefix is the FindPython module pybind11 uses: Python when the
// project set that module's variables (find_package(Python)), else
// Python3, what pybind11's own lookup prefers. Either way the item means
// libpython.
func (e *evaluator) pythonPrefix(c *ctx) string {
	for _, v := range []string{"Python_EXECUTABLE", "Python_FOUND"} {
		if _, found := c.sc.get(v); found {
			return "Python"
		}
	}
	return "Python3"
}

// moduleKind reads the library type of a Python module helper: MODULE
// unless STATIC or SHARED is given, with a note when an argument etlink could
// not expand might have been one. kw also reports the extra keywords.
func (e *evaluator) moduleKind(cmd *Command, args []xarg, extra ...string) (string, map[string]bool) {
	kw, unsure := keywords(args, append([]string{"STATIC", "SHARED", "MODULE"}, extra...)...)
	kind := KindModule
	switch {
	case kw["STATIC"]:
		kind = KindStatic
	case kw["SHARED"]:
		kind = KindShared
	}
	if unsure && !kw["MODULE"] && kind == KindModule {
		e.note(e.cmdLoc(cmd), "%s: an argument is not known (it could be SHARED); read as MODULE", cmd)
	}
	return kind, kw
}

// cmdPybind11Extension is pybind11_extension(name): PREFIX "" and the
// interpreter's extension suffix.
func (e *evaluator) cmdPybind11Extension(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	for _, t := range e.findTargets(cmd, args[0]) {
		t.Properties["PREFIX"] = ""
		t.Properties["SUFFIX"] = "${PYTHON_MODULE_EXTENSION}"
	}
}

// cmdNanobindAddModule models nanobind_add_module(name [options] srcs):
// Python_add_library(name MODULE WITH_SOABI ...), which links
// Python::Module.
func (e *evaluator) cmdNanobindAddModule(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	t := e.newTarget(c, cmd, args, KindModule)
	e.implicitLink(t, cmd, "Python::Module", "nanobind_add_module() makes a Python_add_library(MODULE), which links Python::Module")
	t.Properties["PREFIX"] = ""
}

// cmdPythonAddLibrary models FindPython's Python_add_library(name [STATIC |
// SHARED | MODULE] [WITH_SOABI] srcs): MODULE by default, linking
// <Prefix>::Module and with PREFIX ""; STATIC and SHARED link
// <Prefix>::Python.
func (e *evaluator) cmdPythonAddLibrary(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	prefix := "Python"
	switch cmd.Name {
	case "python3_add_library":
		prefix = "Python3"
	case "python2_add_library":
		prefix = "Python2"
	}
	kind, _ := e.moduleKind(cmd, args, "WITH_SOABI")
	t := e.newTarget(c, cmd, args, kind)
	if kind == KindModule {
		e.implicitLink(t, cmd, prefix+"::Module", fmt.Sprintf("%s() links %s::Module into a MODULE", cmd.Raw, prefix))
		t.Properties["PREFIX"] = ""
	} else {
		e.implicitLink(t, cmd, prefix+"::Python", fmt.Sprintf("%s(%s) links %s::Python (libpython)", cmd.Raw, kind, prefix))
	}
}

// cmdSwigAddLibrary models UseSWIG: swig_add_library(name LANGUAGE lang
// [TYPE MODULE|SHARED|STATIC|USE_BUILD_SHARED_LIBS] SOURCES ...) and the old
// swig_add_module(name lang sources...) make a library (a MODULE by
// default) whose real target name, kept in SWIG_MODULE_<name>_REAL_NAME, is
// name under policy CMP0078 (NEW from cmake_minimum_required 3.13) and
// _name before it, for Python. A Python one is an extension: its file is
// _name.so, which the generated name.py imports.
func (e *evaluator) cmdSwigAddLibrary(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	name := stripMarks(args[0].val)
	lang, kind := "", KindModule
	if cmd.Name == "swig_add_module" && len(args) > 1 {
		lang = stripMarks(args[1].val)
	}
	for k := 1; k+1 < len(args); k++ {
		switch args[k].val {
		case "LANGUAGE":
			lang = stripMarks(args[k+1].val)
		case "TYPE":
			switch args[k+1].val {
			case "SHARED":
				kind = KindShared
			case "STATIC":
				kind = KindStatic
			}
		}
	}
	real := name
	if strings.EqualFold(lang, "python") && compareVersions(e.policyVersion, "3.13") < 0 {
		real = "_" + name
	}
	c.sc.set("SWIG_MODULE_"+name+"_REAL_NAME", real)
	t := e.newTarget(c, cmd, append([]xarg{{val: real}}, args[1:]...), kind)
	if strings.EqualFold(lang, "python") {
		t.Properties["PREFIX"] = ""
		t.swigPython = true
	}
}

// cmdSwigLinkLibraries is swig_link_libraries(name items...): what
// target_link_libraries(${SWIG_MODULE_name_REAL_NAME} items...) does.
func (e *evaluator) cmdSwigLinkLibraries(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	name := stripMarks(args[0].val)
	real, st := e.variable(c.sc, "SWIG_MODULE_"+name+"_REAL_NAME")
	if st != varSet {
		real = name
	}
	e.cmdTargetLinkLibraries(c, cmd, append([]xarg{{val: real}}, args[1:]...))
}

// excluded reports whether a location under the conditions under is on a
// path the current one cannot take: another branch of an if() it is in.
func (e *evaluator) excluded(under []Cond) bool {
	for _, u := range under {
		for _, c := range e.conds {
			if u.excludes(c) {
				return true
			}
		}
	}
	return false
}

// cmdPythonAddModule is FindPythonLibs' python_add_module(name sources...):
// a MODULE library (SHARED when PYTHON_MODULE_<name>_BUILD_SHARED is set)
// with PREFIX "", which links nothing itself.
func (e *evaluator) cmdPythonAddModule(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	kind := KindModule
	if v, st := e.variable(c.sc, "PYTHON_MODULE_"+stripMarks(args[0].val)+"_BUILD_SHARED"); st == varSet && !undecided(v) && !isFalseConst(v) {
		kind = KindShared
	}
	t := e.newTarget(c, cmd, args, kind)
	t.Properties["PREFIX"] = ""
}

// findTargets returns the targets a command names, with a Note when there
// are none.
func (e *evaluator) findTargets(cmd *Command, name xarg) []*Target {
	if hasUnknown(name.val) {
		// A name computed at configure time (rdma-core's
		// ${MODULE}${CMAKE_PYTHON_SO_SUFFIX}): the same unknown value in
		// the same list file is the target made there last, as a helper
		// function makes one target per call.
		ts := e.targets[stripMarks(name.val)]
		if n := len(ts); n > 0 && ts[n-1].Def.File == cmd.File && hasUnknown(ts[n-1].nameMarked) && ts[n-1].nameMarked == name.val {
			return ts[n-1:]
		}
		e.note(e.cmdLoc(cmd), "%s(%s ...): the target name is not known; not recorded", cmd.Raw, stripMarks(name.val))
		return nil
	}
	ts := e.targets[stripMarks(name.val)]
	if len(ts) > 1 {
		// A target defined in both branches of an undecided if(): a
		// command in one branch is about that branch's target.
		ts = slices.DeleteFunc(slices.Clone(ts), func(t *Target) bool { return e.excluded(t.Def.Under) })
	}
	if len(ts) == 0 {
		e.note(e.cmdLoc(cmd), "%s(%s ...): no target %s is defined in the tree before this line; not recorded", cmd.Raw, stripMarks(name.val), stripMarks(name.val))
	}
	return ts
}

func (e *evaluator) linkItem(cmd *Command, a xarg, scope string) LinkItem {
	li := LinkItem{
		Item:    stripMarks(a.val),
		marked:  a.val,
		Scope:   scope,
		Unknown: hasUnknown(a.val),
	}
	if a.src != nil {
		li.Raw = a.src.Text
		li.Loc = e.loc(cmd.File, a.src.Line, a.src.Col)
		if name, ok := strings.CutPrefix(li.Raw, "${"); ok && strings.HasSuffix(name, "}") && isVariableName(name[:len(name)-1]) {
			li.Origins = e.origins[name[:len(name)-1]][li.Item]
		}
	} else {
		li.Loc = e.cmdLoc(cmd)
	}
	li.classify()
	return li
}

func (e *evaluator) cmdTargetLinkLibraries(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	ts := e.findTargets(cmd, args[0])
	if len(ts) == 0 {
		return
	}
	e.linkItems(cmd, args[1:], true, func(li LinkItem) {
		for _, t := range ts {
			t.Links = append(t.Links, li)
		}
	})
}

// cmdTargetLinkOptions: target_link_options(<target> [BEFORE] <scope>
// <option>...), which appends to LINK_OPTIONS and INTERFACE_LINK_OPTIONS
// by scope as target_link_libraries does to the library properties.
func (e *evaluator) cmdTargetLinkOptions(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	ts := e.findTargets(cmd, args[0])
	rest := args[1:]
	before := len(rest) > 0 && rest[0].is("BEFORE")
	if before {
		rest = rest[1:]
	}
	// Each scope keyword starts a group; BEFORE puts each group, in turn,
	// in front of what the property holds (so a later group comes first).
	start := 0
	for k := 0; k <= len(rest); k++ {
		if k < len(rest) && (k == start || scopeKeywords[rest[k].val] == "") {
			continue
		}
		var group []LinkItem
		e.linkItems(cmd, rest[start:k], true, func(li LinkItem) { group = append(group, li) })
		for _, t := range ts {
			if before {
				t.Options = append(slices.Clip(group), t.Options...)
			} else {
				t.Options = append(t.Options, group...)
			}
		}
		start = k
	}
}

func (e *evaluator) cmdLinkLibraries(c *ctx, cmd *Command, args []xarg) {
	e.linkItems(cmd, args, false, func(li LinkItem) { c.dir.linkLibs = append(c.dir.linkLibs, li) })
}

// scopeKeywords are target_link_libraries' scope keywords and the scope
// each sets (the LINK_ ones are the pre-3.0 spellings).
var scopeKeywords = map[string]string{
	"PRIVATE": "PRIVATE", "PUBLIC": "PUBLIC", "INTERFACE": "INTERFACE",
	"LINK_PRIVATE": "PRIVATE", "LINK_PUBLIC": "PUBLIC", "LINK_INTERFACE_LIBRARIES": "INTERFACE",
}

// linkItems reads the items of target_link_libraries (after the target;
// scoped, so the scope keywords apply) or of link_libraries, and gives each
// to add: every argument is a ;-list of items, and debug, optimized or
// general applies to the argument after it.
func (e *evaluator) linkItems(cmd *Command, args []xarg, scoped bool, add func(LinkItem)) {
	scope, config := "", ""
	for _, a := range args {
		if s, ok := scopeKeywords[a.val]; ok && scoped {
			scope = s
			continue
		}
		switch a.val {
		case "debug", "optimized":
			config = a.val
			continue
		case "general":
			config = ""
			continue
		}
		for _, item := range splitList(a.val) {
			x := a
			x.val = item
			li := e.linkItem(cmd, x, scope)
			li.Config = config
			add(li)
		}
		config = ""
	}
}

// setProp sets a target property. LINK_LIBRARIES and
// INTERFACE_LINK_LIBRARIES are the target's link items: set, they replace
// the items of that property (a PUBLIC item keeps its other half), with
// APPEND they extend them; an item the new value names again keeps where
// it first came from.
func (e *evaluator) setProp(cmd *Command, ts []*Target, name string, values []xarg, mode string) {
	lp, isLink := linkProps[name]
	if !isLink {
		v := strings.Join(vals(values), ";")
		for _, t := range ts {
			old, had := t.Properties[name]
			switch {
			case mode == "APPEND" && had && old != "" && v != "":
				t.Properties[name] = old + ";" + stripMarks(v)
			case mode == "APPEND_STRING" && had:
				t.Properties[name] = old + stripMarks(v)
			default:
				t.Properties[name] = stripMarks(v)
			}
		}
		return
	}
	var items []LinkItem
	for _, a := range values {
		for _, item := range splitList(a.val) {
			x := a
			x.val = item
			items = append(items, e.linkItem(cmd, x, lp.scope))
		}
	}
	what := "replaced"
	if mode != "" {
		what = "appended to"
	}
	edit := Edit{Loc: e.cmdLoc(cmd), What: fmt.Sprintf("%s %s %s", cmd.Raw, what, name)}
	for _, t := range ts {
		list := t.itemList(lp.options)
		if mode == "" {
			*list = replaceItems(*list, lp.scope, items)
		} else {
			*list = append(*list, items...)
		}
		t.LinkEdits = append(t.LinkEdits, edit)
	}
}

// linkProp is a property that holds link items: the scope of the items it
// alone holds, and whether they are link options rather than libraries.
type linkProp struct {
	scope   string
	options bool
}

var linkProps = map[string]linkProp{
	"LINK_LIBRARIES": {"PRIVATE", false}, "INTERFACE_LINK_LIBRARIES": {"INTERFACE", false},
	"LINK_OPTIONS": {"PRIVATE", true}, "INTERFACE_LINK_OPTIONS": {"INTERFACE", true},
}

// itemList is the target's library items, or its link options.
func (t *Target) itemList(options bool) *[]LinkItem {
	if options {
		return &t.Options
	}
	return &t.Links
}

// inProp reports whether an item of scope is in the link property that
// holds the items of scope prop.
func inProp(scope, prop string) bool {
	if prop == "INTERFACE" {
		return scope == "INTERFACE" || scope == "PUBLIC"
	}
	return scope != "INTERFACE"
}

// replaceItems sets the property of list holding the items of scope
// (PRIVATE: LINK_LIBRARIES or LINK_OPTIONS, INTERFACE: their INTERFACE_
// forms) to items, and returns the list.
func replaceItems(list []LinkItem, scope string, items []LinkItem) []LinkItem {
	var kept, old []LinkItem
	for _, li := range list {
		switch {
		case li.Scope == "PUBLIC":
			old = append(old, li)
			li.Scope = map[string]string{"PRIVATE": "INTERFACE", "INTERFACE": "PRIVATE"}[scope]
			li.noLinkOnly = li.noLinkOnly || scope == "INTERFACE"
			kept = append(kept, li)
		case inProp(li.Scope, scope):
			old = append(old, li)
		default:
			li.noLinkOnly = li.noLinkOnly || scope == "INTERFACE"
			kept = append(kept, li)
		}
	}
	for _, li := range items {
		for k, o := range old {
			if o.Item == li.Item {
				o.Scope = li.Scope
				li = o // the same item: it keeps where it came from
				old = append(old[:k], old[k+1:]...)
				break
			}
		}
		kept = append(kept, li)
	}
	return kept
}

// linkPropValue is a link property as get_target_property reads it: the
// items of the property, ;-joined, marked. A STATIC
// library's INTERFACE_LINK_LIBRARIES holds its PRIVATE items too, wrapped
// in $<LINK_ONLY:...>, as CMake stores them.
func (t *Target) linkPropValue(lp linkProp) (string, bool) {
	var items []string
	for _, li := range *t.itemList(lp.options) {
		switch {
		case inProp(li.Scope, lp.scope):
			items = append(items, li.marked)
		case lp.scope == "INTERFACE" && !lp.options && t.Kind == KindStatic && !li.noLinkOnly:
			items = append(items, "$<LINK_ONLY:"+li.marked+">")
		}
	}
	return strings.Join(items, ";"), len(items) > 0
}

// targetTypes are the TYPE property's values by kind.
var targetTypes = map[string]string{
	KindExecutable: "EXECUTABLE", KindShared: "SHARED_LIBRARY", KindStatic: "STATIC_LIBRARY",
	KindModule: "MODULE_LIBRARY", KindObject: "OBJECT_LIBRARY", KindInterface: "INTERFACE_LIBRARY",
}

// property reads a target property as get_target_property does; ok is
// false when etlink does not know it (set elsewhere, or not modelled).
func (t *Target) property(name string) (v string, set, ok bool) {
	if lp, isLink := linkProps[name]; isLink {
		v, set = t.linkPropValue(lp)
		return v, set, true
	}
	if name == "TYPE" {
		v, ok = targetTypes[t.Kind]
		return v, ok, ok
	}
	v, set = t.Properties[name]
	if set && strings.Contains(v, "${") {
		return "", false, false
	}
	return v, set, set
}

func (e *evaluator) cmdSetTargetProperties(c *ctx, cmd *Command, args []xarg) {
	at := -1
	for k, a := range args {
		if a.is("PROPERTIES") {
			at = k
			break
		}
	}
	if at < 0 {
		return
	}
	var ts []*Target
	for _, a := range args[:at] {
		ts = append(ts, e.findTargets(cmd, a)...)
	}
	rest := args[at+1:]
	for k := 0; k+1 < len(rest); k += 2 {
		e.setProp(cmd, ts, stripMarks(rest[k].val), rest[k+1:k+2], "")
	}
}

func (e *evaluator) cmdSetProperty(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || !args[0].is("TARGET") {
		return
	}
	var ts []*Target
	mode := ""
	for k := 1; k < len(args); k++ {
		switch args[k].val {
		case "APPEND", "APPEND_STRING":
			mode = args[k].val
		case "PROPERTY":
			if k+1 < len(args) {
				e.setProp(cmd, ts, stripMarks(args[k+1].val), args[k+2:], mode)
			}
			return
		default:
			ts = append(ts, e.findTargets(cmd, args[k])...)
		}
	}
}

// cmdGetProperty reads the current directory's BUILDSYSTEM_TARGETS, from
// get_property(var DIRECTORY PROPERTY BUILDSYSTEM_TARGETS) or
// get_directory_property(var BUILDSYSTEM_TARGETS); any other property is
// unknown.
func (e *evaluator) cmdGetProperty(c *ctx, name string, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	out := stripMarks(args[0].val)
	rest := vals(args[1:])
	if name == "get_property" && len(rest) == 4 && rest[0] == "TARGET" && rest[2] == "PROPERTY" {
		e.targetProperty(c, out, args[2], args[4])
		return
	}
	if name == "get_property" && len(rest) == 3 && rest[0] == "DIRECTORY" && rest[1] == "PROPERTY" && rest[2] == "BUILDSYSTEM_TARGETS" ||
		name == "get_directory_property" && len(rest) == 1 && rest[0] == "BUILDSYSTEM_TARGETS" {
		c.sc.set(out, strings.Join(c.dir.targets, ";"))
		return
	}
	e.setUnknown(c, out)
}

func (e *evaluator) cmdGetTargetProperty(c *ctx, args []xarg) {
	if len(args) < 3 || hasUnknown(args[0].val) {
		return
	}
	e.targetProperty(c, stripMarks(args[0].val), args[1], args[2])
}

// targetProperty sets out to target's property prop as get_target_property
// and get_property(TARGET) read it: the value, <out>-NOTFOUND when it is not
// set, unknown when etlink does not know the target or the property.
func (e *evaluator) targetProperty(c *ctx, out string, target, prop xarg) {
	ts := e.targets[stripMarks(target.val)]
	if len(ts) > 0 && !hasUnknown(target.val) && !hasUnknown(prop.val) {
		v, set, ok := ts[len(ts)-1].property(stripMarks(prop.val))
		switch {
		case ok && set:
			c.sc.set(out, v)
			return
		case ok:
			c.sc.set(out, out+"-NOTFOUND")
			return
		}
	}
	e.setUnknown(c, out)
}

// finish decides which targets are Python extension modules.
func (e *evaluator) finish() {
	for _, t := range e.p.Targets {
		t.Extension, t.ExtensionWhy = extension(t)
	}
	for _, name := range slices.Sorted(maps.Keys(e.unknownCmds)) {
		u := e.unknownCmds[name]
		e.note(u.first, "%s() is neither CMake's nor defined in a file read (%d calls, the first here): what it does to targets is not seen", name, u.calls)
	}
}

func extension(t *Target) (bool, string) {
	creator := strings.ToLower(t.Creator)
	switch creator {
	case "pybind11_add_module", "nanobind_add_module":
		return true, t.Creator + "()"
	case "swig_add_library", "swig_add_module":
		if t.swigPython {
			return true, t.Creator + "(... LANGUAGE python): _" + strings.TrimPrefix(t.Name, "_") + ".so, which the generated module imports"
		}
		return false, ""
	case "python_add_module":
		return true, "FindPythonLibs' python_add_module()"
	case "python_add_library", "python3_add_library", "python2_add_library":
		if t.Kind == KindModule {
			return true, t.Creator + "() of a MODULE"
		}
		for _, a := range t.CreatorArgs {
			if a.Text == "WITH_SOABI" {
				return true, t.Creator + "(... WITH_SOABI)"
			}
		}
		return false, ""
	}
	switch t.Kind {
	case KindModule:
		return true, "a MODULE library"
	case KindShared:
		prefix, hasPrefix := t.Properties["PREFIX"]
		suffix, hasSuffix := t.Properties["SUFFIX"]
		switch {
		case hasPrefix && prefix == "" && pythonSuffix(suffix):
			return true, fmt.Sprintf("a SHARED library with PREFIX \"\" and SUFFIX %q", suffix)
		case hasPrefix && prefix == "" && !hasSuffix:
			return true, "a SHARED library with PREFIX \"\" and no SUFFIX: NAME.so on Linux, the file import NAME loads"
		}
	}
	return false, ""
}

// pythonSuffix recognises an extension module's file suffix: ".so" (which
// covers .cpython-311-x86_64-linux-gnu.so and .abi3.so), ".pyd", or a
// variable that holds the interpreter's suffix (PYTHON_MODULE_EXTENSION,
// Python_SOABI, EXT_SUFFIX, ...).
func pythonSuffix(s string) bool {
	l := strings.ToLower(s)
	switch {
	case strings.HasSuffix(l, ".so"), strings.HasSuffix(l, ".pyd"):
		return true
	}
	for _, v := range []string{"python_module_extension", "soabi", "ext_suffix", "extension_suffix", "module_extension"} {
		if strings.Contains(l, v) {
			return true
		}
	}
	return false
}

package cmake

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// Bounds on evaluation, so that a hostile or broken tree ends promptly.
const (
	defaultMaxDepth = 64
	maxSteps        = 1_000_000 // commands executed in one Load
	maxLoop         = 10_000    // foreach iterations
	maxWhile        = 1_000     // while() iterations
	maxNest         = 1_000     // nested if/foreach/while/block being run
)

type ctl int

const (
	ctlNone ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

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

// block is a list file's commands with their flow-control structure.
type block struct {
	cmds []*Command
	// end is, for if/foreach/while/function/macro/block, the index of the
	// closing command.
	end []int
	// next is, for if/elseif/else, the index of the next branch head or of
	// the endif.
	next []int
}

type listFile struct {
	f   *File
	blk *block
	err error
}

type userCmd struct {
	name    string
	macro   bool
	params  []string
	blk     *block
	lo, hi  int
	subst   []*macroSubst
	absFile string
	line    int
}

// dirState is a directory being processed.
type dirState struct {
	src      string     // absolute source directory
	linkLibs []LinkItem // link_libraries() in force
	targets  []string   // BUILDSYSTEM_TARGETS: created here, not imported or aliases
}

// ctx is what the commands being run see.
type ctx struct {
	sc       *scope
	dir      *dirState
	listFile string        // absolute path of the list file being read
	subst    []*macroSubst // macro substitutions applied to arguments
	fnBase   int           // len(evaluator.conds) where the function or file began
	loopBase int           // len(evaluator.conds) where the innermost loop began, or -1
}

type evaluator struct {
	p        *Project
	opt      Options
	root     string // as given
	absRoot  string
	maxDepth int

	files    map[string]*listFile
	cache    map[string]string
	funcs    map[string]*userCmd
	targets  map[string][]*Target
	dirsSeen map[string]bool
	guarded  map[string]bool
	noted    map[string]bool

	via     []Frame
	conds   []Cond
	depth   int
	nest    int
	steps   int
	stopped bool
	errs    []error

	// onOther, when set (by tests), sees the commands etlink does not
	// evaluate with their expanded arguments.
	onOther func(cmd *Command, args []xarg)
}

// Load reads the project whose top CMakeLists.txt is in root (or root
// itself when it names a list file), following add_subdirectory() and
// include() into files inside the tree. Errors are the files that could not
// be read or parsed (each *SyntaxError or *fs.PathError), which are
// skipped; what evaluation could not know is in Project.Notes.
func Load(root string, opt Options) (*Project, []error) {
	e := newEvaluator(root, opt)
	entry := filepath.Join(root, "CMakeLists.txt")
	if fi, err := os.Stat(root); err != nil {
		return e.p, []error{err}
	} else if !fi.IsDir() {
		entry = root
		e.root = filepath.Dir(root)
		e.p.Root = e.root
	}
	abs, err := filepath.Abs(e.root)
	if err != nil {
		return e.p, []error{err}
	}
	e.absRoot = abs
	e.run(filepath.Join(abs, filepath.Base(entry)))
	return e.p, e.errs
}

func newEvaluator(root string, opt Options) *evaluator {
	e := &evaluator{
		p:        &Project{Root: root},
		opt:      opt,
		root:     root,
		maxDepth: opt.MaxDepth,
		files:    map[string]*listFile{},
		cache:    map[string]string{},
		funcs:    map[string]*userCmd{},
		targets:  map[string][]*Target{},
		dirsSeen: map[string]bool{},
		guarded:  map[string]bool{},
		noted:    map[string]bool{},
	}
	if e.maxDepth <= 0 {
		e.maxDepth = defaultMaxDepth
	}
	for k, v := range opt.Vars {
		e.cache[k] = v
	}
	return e
}

// run evaluates the top list file, entry, of the directory e.absRoot.
func (e *evaluator) run(entry string) {
	sc := newScope(nil)
	for _, name := range []string{"CMAKE_SOURCE_DIR", "CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"} {
		sc.set(name, e.absRoot)
	}
	sc.set("CMAKE_CURRENT_LIST_FILE", entry)
	// The platform is Linux (etlink checks ELF wheels): if(APPLE) and
	// if(WIN32) are false, if(UNIX) true. Options.Vars (-D) may say
	// otherwise: the cache is looked up before these.
	for _, name := range []string{"APPLE", "WIN32", "MSVC", "CYGWIN", "MINGW", "MSYS", "IOS", "ANDROID",
		"EMSCRIPTEN", "WINCE", "WINDOWS_PHONE", "WINDOWS_STORE", "XCODE", "CMAKE_HOST_APPLE", "CMAKE_HOST_WIN32"} {
		sc.vars[name] = binding{state: bindUnset}
	}
	for _, name := range []string{"UNIX", "LINUX", "CMAKE_HOST_UNIX", "CMAKE_HOST_LINUX"} {
		sc.set(name, "1")
	}
	sc.set("CMAKE_SYSTEM_NAME", "Linux")
	sc.set("CMAKE_HOST_SYSTEM_NAME", "Linux")
	e.dirsSeen[e.absRoot] = true
	c := &ctx{sc: sc, dir: &dirState{src: e.absRoot}, loopBase: -1}
	e.runFile(c, entry)
	e.finish()
}

// display is the path a Location shows: Root joined with the path inside
// the tree.
func (e *evaluator) display(abs string) string {
	rel, err := filepath.Rel(e.absRoot, abs)
	if err != nil || !within(e.absRoot, abs) {
		return abs
	}
	return filepath.Join(e.root, rel)
}

func (e *evaluator) loc(file string, line, col int) Location {
	l := Location{File: file, Line: line, Col: col}
	if len(e.via) > 0 {
		l.Via = append([]Frame(nil), e.via...)
	}
	if len(e.conds) > 0 {
		l.Under = append([]Cond(nil), e.conds...)
	}
	return l
}

func (e *evaluator) cmdLoc(cmd *Command) Location { return e.loc(cmd.File, cmd.Line, cmd.Col) }

func (e *evaluator) note(l Location, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := fmt.Sprintf("%s:%d:%d:%s", l.File, l.Line, l.Col, msg)
	if e.noted[key] {
		return
	}
	e.noted[key] = true
	e.p.Notes = append(e.p.Notes, Note{Loc: l, Msg: msg, Kind: noteKind(format)})
}

// noteKind sorts a note by what it says, from its format, for a summary.
func noteKind(format string) string {
	switch {
	case strings.Contains(format, "not found in the tree"), strings.Contains(format, "outside the tree"):
		return NoteModule
	case strings.Contains(format, "no CMakeLists.txt there"), strings.Contains(format, "no such file in the tree"):
		return NoteMissing
	case strings.Contains(format, "defines target"):
		return NoteRedefined
	case strings.Contains(format, "no target %s is defined"), strings.Contains(format, "target name"):
		return NoteTarget
	case strings.Contains(format, "nested deeper"), strings.Contains(format, "stopped after"), strings.Contains(format, "larger than"):
		return NoteLimit
	}
	return NoteUndecided
}

// load reads and parses a list file once.
func (e *evaluator) load(abs string) *listFile {
	if lf, ok := e.files[abs]; ok {
		return lf
	}
	lf := &listFile{}
	e.files[abs] = lf
	disp := e.display(abs)
	fail := func(err error) *listFile {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = disp
		}
		lf.err = err
		e.errs = append(e.errs, err)
		return lf
	}
	src, err := datafile.ReadFile(abs, MaxFileSize)
	if errors.Is(err, datafile.ErrTooLarge) {
		return fail(&SyntaxError{File: disp, Line: 1, Col: 1, Msg: fmt.Sprintf("larger than the %d bytes etlink reads", MaxFileSize)})
	}
	if err != nil {
		return fail(err)
	}
	f, err := Parse(disp, src)
	e.p.Files = append(e.p.Files, f)
	if err != nil {
		return fail(err)
	}
	blk, err := blockify(f)
	if err != nil {
		return fail(err)
	}
	lf.f, lf.blk = f, blk
	return lf
}

var closers = map[string]string{
	"endif": "if", "endforeach": "foreach", "endwhile": "while",
	"endfunction": "function", "endmacro": "macro", "endblock": "block",
}

// blockify matches flow-control commands. CMake refuses a file whose flow
// control is not properly nested, so this is a SyntaxError too.
func blockify(f *File) (*block, error) {
	n := len(f.Commands)
	b := &block{cmds: f.Commands, end: make([]int, n), next: make([]int, n)}
	type open struct {
		idx, branch int
		sawElse     bool
	}
	var stack []open
	bad := func(cmd *Command, format string, args ...any) error {
		return &SyntaxError{File: f.Path, Line: cmd.Line, Col: cmd.Col, Msg: fmt.Sprintf(format, args...)}
	}
	for i, cmd := range f.Commands {
		switch cmd.Name {
		case "if", "foreach", "while", "function", "macro", "block":
			stack = append(stack, open{idx: i, branch: i})
		case "elseif", "else":
			if len(stack) == 0 || f.Commands[stack[len(stack)-1].idx].Name != "if" {
				return nil, bad(cmd, "%s() without a matching if()", cmd.Raw)
			}
			top := &stack[len(stack)-1]
			if top.sawElse {
				return nil, bad(cmd, "%s() after else()", cmd.Raw)
			}
			b.next[top.branch] = i
			top.branch = i
			top.sawElse = cmd.Name == "else"
		default:
			opener, ok := closers[cmd.Name]
			if !ok {
				continue
			}
			if len(stack) == 0 {
				return nil, bad(cmd, "%s() without a matching %s()", cmd.Raw, opener)
			}
			top := stack[len(stack)-1]
			if oc := f.Commands[top.idx]; oc.Name != opener {
				return nil, bad(cmd, "%s() does not close the %s() opened at line %d", cmd.Raw, oc.Raw, oc.Line)
			}
			stack = stack[:len(stack)-1]
			b.end[top.idx] = i
			if opener == "if" {
				b.next[top.branch] = i
			}
		}
	}
	if len(stack) > 0 {
		oc := f.Commands[stack[len(stack)-1].idx]
		return nil, bad(oc, "%s() opened here is not closed by end%s()", oc.Raw, oc.Name)
	}
	return b, nil
}

// runFile reads a list file with the variables and directory of c.
func (e *evaluator) runFile(c *ctx, abs string) bool {
	lf := e.load(abs)
	if lf.err != nil {
		return false
	}
	nc := *c
	nc.listFile = abs
	nc.subst = nil
	nc.fnBase = len(e.conds)
	nc.loopBase = -1
	e.exec(&nc, lf.blk, 0, len(lf.blk.cmds))
	return true
}

func (e *evaluator) exec(c *ctx, b *block, lo, hi int) ctl {
	for i := lo; i < hi; i++ {
		if e.stopped {
			return ctlReturn
		}
		cmd := b.cmds[i]
		e.steps++
		if e.steps > maxSteps {
			e.stopped = true
			e.note(e.cmdLoc(cmd), "evaluation stopped after %d commands (a loop or recursion that does not end?)", maxSteps)
			return ctlReturn
		}
		var r ctl
		switch cmd.Name {
		case "if", "foreach", "while", "block":
			if e.nest >= maxNest {
				e.note(e.cmdLoc(cmd), "blocks nested deeper than %d: %s() not read", maxNest, cmd.Raw)
				i = b.end[i]
				continue
			}
			e.nest++
			switch cmd.Name {
			case "if":
				r = e.execIf(c, b, i)
			case "foreach":
				r = e.execForeach(c, b, i)
			case "while":
				r = e.execWhile(c, b, i)
			default:
				r = e.execBlock(c, b, i)
			}
			e.nest--
			i = b.end[i]
		case "function", "macro":
			e.define(c, b, i)
			i = b.end[i]
		case "elseif", "else", "endif", "endforeach", "endwhile", "endfunction", "endmacro", "endblock":
			// Never reached: blockify refuses a file where they do not match.
		default:
			r = e.call(c, cmd)
		}
		if r != ctlNone {
			return r
		}
	}
	return ctlNone
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

// condEnv for one context.
type condCtx struct {
	e *evaluator
	c *ctx
}

func (cc condCtx) variable(name string) (string, varStatus) { return cc.e.variable(cc.c.sc, name) }
func (cc condCtx) hasTarget(name string) bool               { return len(cc.e.targets[name]) > 0 }
func (cc condCtx) root() string                             { return cc.e.absRoot }
func (cc condCtx) hasCommand(name string) bool {
	name = strings.ToLower(name)
	return cc.e.funcs[name] != nil || knownCommands[name]
}

func (e *evaluator) condition(c *ctx, cmd *Command) (tri, string) {
	args := e.expandArgs(c, cmd)
	toks := make([]ctok, len(args))
	for i, a := range args {
		toks[i] = ctok{s: a.val, quoted: a.quoted, expanded: a.expanded}
	}
	ce := &condEval{env: condCtx{e, c}}
	v := ce.eval(toks)
	return v, ce.why
}

func (e *evaluator) execIf(c *ctx, b *block, i int) ctl {
	endIdx := b.end[i]
	undecidedSoFar := false
	for h := i; h < endIdx; h = b.next[h] {
		cmd := b.cmds[h]
		v, why := triTrue, ""
		if cmd.Name != "else" {
			v, why = e.condition(c, cmd)
		}
		if v == triFalse {
			continue
		}
		lo, hi := h+1, b.next[h]
		if v == triUnknown {
			if why == "" {
				why = "a value is not known"
			}
			e.note(e.cmdLoc(cmd), "cannot evaluate %s (%s): all branches read", cmd, why)
			undecidedSoFar = true
		}
		if !undecidedSoFar {
			return e.exec(c, b, lo, hi)
		}
		e.conds = append(e.conds, Cond{File: cmd.File, Line: cmd.Line, Text: cmd.String()})
		r := e.exec(c, b, lo, hi)
		e.conds = e.conds[:len(e.conds)-1]
		if r != ctlNone || v == triTrue {
			return r
		}
	}
	return ctlNone
}

func (e *evaluator) execForeach(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	args := e.expandArgs(c, cmd)
	lo, hi := i+1, b.end[i]
	if len(args) == 0 {
		return ctlNone
	}
	in := -1
	for k, a := range args {
		if a.is("IN") && !a.quoted {
			in = k
			break
		}
	}
	var loopVars []string
	nvars := 1
	if in > 0 {
		nvars = in
	}
	for _, a := range args[:nvars] {
		if hasUnknown(a.val) {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: the loop variable is not known; body not read", cmd)
			return ctlNone
		}
		loopVars = append(loopVars, stripMarks(a.val))
	}
	// rows[k] are the values of the loop variables in iteration k.
	var rows [][]string
	one := func(items []string) {
		for _, it := range items {
			rows = append(rows, []string{it})
		}
	}
	rest := args[nvars:]
	switch {
	case in < 0 && len(rest) > 0 && rest[0].is("RANGE"):
		items, ok := rangeItems(rest[1:])
		if !ok {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: the range is not known; body read once with %s unknown", cmd, loopVars[0])
			items = []string{unknownRef(refVar, loopVars[0])}
		}
		one(items)
	case in >= 0:
		mode := ""
		var zip [][]string
		for _, a := range args[in+1:] {
			if !a.quoted && (a.is("LISTS") || a.is("ITEMS") || a.is("ZIP_LISTS")) {
				mode = a.val
				continue
			}
			switch mode {
			case "ITEMS":
				one([]string{a.val})
			case "LISTS", "ZIP_LISTS":
				name := stripMarks(a.val)
				v, st := e.variable(c.sc, name)
				var items []string
				switch {
				case hasUnknown(a.val) || st == varUnknown:
					e.note(e.cmdLoc(cmd), "cannot evaluate %s: list %s is not known; body read once with it", cmd, name)
					items = []string{unknownRef(refVar, name)}
				case st == varSet:
					items = splitList(v)
				}
				if mode == "LISTS" {
					one(items)
				} else {
					zip = append(zip, items)
				}
			}
		}
		if zip != nil {
			rows = zipRows(zip)
			if nvars == 1 {
				base := loopVars[0]
				loopVars = nil
				for k := range zip {
					loopVars = append(loopVars, base+"_"+strconv.Itoa(k))
				}
			}
		}
	default:
		one(vals(rest))
	}
	nc := *c
	nc.loopBase = len(e.conds)
	saved := make([]binding, len(loopVars))
	had := make([]bool, len(loopVars))
	for k, v := range loopVars {
		saved[k], had[k] = c.sc.vars[v]
	}
	defer func() {
		for k, v := range loopVars {
			if had[k] {
				c.sc.vars[v] = saved[k]
			} else {
				delete(c.sc.vars, v)
			}
		}
	}()
	for n, row := range rows {
		if n >= maxLoop {
			e.note(e.cmdLoc(cmd), "%s stopped after %d iterations", cmd.Raw+"()", maxLoop)
			break
		}
		for k, v := range loopVars {
			if k < len(row) {
				c.sc.set(v, row[k])
			} else {
				c.sc.vars[v] = binding{state: bindUnset}
			}
		}
		switch r := e.exec(&nc, b, lo, hi); r {
		case ctlBreak:
			return ctlNone
		case ctlReturn:
			return r
		}
	}
	return ctlNone
}

func zipRows(lists [][]string) [][]string {
	n := 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	rows := make([][]string, n)
	for k := range rows {
		rows[k] = make([]string, len(lists))
		for j, l := range lists {
			if k < len(l) {
				rows[k][j] = l[k]
			}
		}
	}
	return rows
}

// rangeItems is foreach(RANGE stop | start stop [step]).
func rangeItems(args []xarg) ([]string, bool) {
	var n []int
	for _, a := range args {
		if undecided(a.val) {
			return nil, false
		}
		v, err := strconv.Atoi(strings.TrimSpace(a.val))
		if err != nil {
			return nil, false
		}
		n = append(n, v)
	}
	start, stop, step := 0, 0, 1
	switch len(n) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return nil, false
	}
	if step <= 0 || stop < start {
		return nil, stop < start || step > 0
	}
	var items []string
	for v := start; v <= stop && len(items) <= maxLoop; v += step {
		items = append(items, strconv.Itoa(v))
	}
	return items, true
}

func (e *evaluator) execWhile(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	lo, hi := i+1, b.end[i]
	for n := 0; ; n++ {
		v, why := e.condition(c, cmd)
		if v == triFalse {
			return ctlNone
		}
		if n >= maxWhile {
			e.note(e.cmdLoc(cmd), "%s stopped after %d iterations", cmd, maxWhile)
			return ctlNone
		}
		nc := *c
		if v == triUnknown {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s (%s): body read once", cmd, why)
			e.conds = append(e.conds, Cond{File: cmd.File, Line: cmd.Line, Text: cmd.String()})
			nc.loopBase = len(e.conds)
			r := e.exec(&nc, b, lo, hi)
			e.conds = e.conds[:len(e.conds)-1]
			if r == ctlReturn {
				return r
			}
			return ctlNone
		}
		nc.loopBase = len(e.conds)
		switch r := e.exec(&nc, b, lo, hi); r {
		case ctlBreak:
			return ctlNone
		case ctlReturn:
			return r
		}
	}
}

func (e *evaluator) execBlock(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	args := e.expandArgs(c, cmd)
	newVars := true
	var propagate []string
	mode := ""
	for _, a := range args {
		switch a.val {
		case "SCOPE_FOR":
			newVars = false
			mode = a.val
			continue
		case "PROPAGATE":
			mode = a.val
			continue
		}
		switch {
		case mode == "SCOPE_FOR" && a.val == "VARIABLES":
			newVars = true
		case mode == "PROPAGATE":
			propagate = append(propagate, stripMarks(a.val))
		}
	}
	nc := *c
	if newVars {
		nc.sc = newScope(c.sc)
	}
	r := e.exec(&nc, b, i+1, b.end[i])
	if newVars {
		for _, name := range propagate {
			if bd, ok := nc.sc.get(name); ok {
				c.sc.vars[name] = bd
			}
		}
	}
	return r
}

// modelled are commands of pybind11, nanobind and FindPython that etlink
// reads with its own model, even when the tree vendors their definitions
// (add_subdirectory(third-party/pybind11)): the model knows what they
// create and link without evaluating their internals.
var modelled = map[string]bool{
	"pybind11_add_module": true, "pybind11_extension": true, "nanobind_add_module": true,
	"python_add_library": true, "python3_add_library": true, "python2_add_library": true,
}

func (e *evaluator) define(c *ctx, b *block, i int) {
	cmd := b.cmds[i]
	args := e.expandArgs(c, cmd)
	if len(args) == 0 || hasUnknown(args[0].val) {
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the name is not known; not defined", cmd)
		return
	}
	name := stripMarks(args[0].val)
	lname := strings.ToLower(name)
	if modelled[lname] {
		e.note(e.cmdLoc(cmd), "%s() is defined in the tree; etlink reads calls to it with its own model", name)
		return
	}
	uc := &userCmd{
		name: name, macro: cmd.Name == "macro", blk: b, lo: i + 1, hi: b.end[i],
		subst: c.subst, absFile: c.listFile, line: cmd.Line,
	}
	for _, a := range args[1:] {
		uc.params = append(uc.params, stripMarks(a.val))
	}
	if old, ok := e.funcs[lname]; ok {
		// CMake keeps the previous definition under a leading underscore.
		e.funcs["_"+lname] = old
	}
	e.funcs[lname] = uc
}

func (e *evaluator) callUser(c *ctx, cmd *Command, uc *userCmd) ctl {
	args := vals(e.expandArgs(c, cmd))
	if e.depth >= e.maxDepth {
		e.note(e.cmdLoc(cmd), "calls nested deeper than %d: %s() not read", e.maxDepth, cmd.Raw)
		return ctlNone
	}
	if len(args) < len(uc.params) {
		e.note(e.cmdLoc(cmd), "%s() called with %d arguments, it takes at least %d", cmd.Raw, len(args), len(uc.params))
	}
	e.depth++
	e.via = append(e.via, Frame{Function: cmd.Raw, File: cmd.File, Line: cmd.Line})
	defer func() {
		e.depth--
		e.via = e.via[:len(e.via)-1]
	}()
	if uc.macro {
		nc := *c
		nc.subst = append(append([]*macroSubst(nil), uc.subst...), newMacroSubst(uc.params, args))
		// return() in a macro returns from its caller, break() leaves the
		// caller's loop: the control flow goes up as is.
		return e.exec(&nc, uc.blk, uc.lo, uc.hi)
	}
	sc := newScope(c.sc)
	sc.set("ARGC", strconv.Itoa(len(args)))
	sc.set("ARGV", strings.Join(args, ";"))
	for k, a := range args {
		sc.set("ARGV"+strconv.Itoa(k), a)
	}
	var argn []string
	if len(args) > len(uc.params) {
		argn = args[len(uc.params):]
	}
	sc.set("ARGN", strings.Join(argn, ";"))
	for k, p := range uc.params {
		if k < len(args) {
			sc.set(p, args[k])
		} else {
			sc.vars[p] = binding{state: bindUnset}
		}
	}
	sc.set("CMAKE_CURRENT_FUNCTION", uc.name)
	sc.set("CMAKE_CURRENT_FUNCTION_LIST_FILE", uc.absFile)
	sc.set("CMAKE_CURRENT_FUNCTION_LIST_DIR", filepath.Dir(uc.absFile))
	sc.set("CMAKE_CURRENT_FUNCTION_LIST_LINE", strconv.Itoa(uc.line))
	nc := &ctx{sc: sc, dir: c.dir, listFile: c.listFile, subst: uc.subst, fnBase: len(e.conds), loopBase: -1}
	e.exec(nc, uc.blk, uc.lo, uc.hi)
	return ctlNone
}

// call runs one command that is not flow control.
func (e *evaluator) call(c *ctx, cmd *Command) ctl {
	name := cmd.Name
	if uc := e.funcs[name]; uc != nil {
		return e.callUser(c, cmd, uc)
	}
	if strings.HasPrefix(name, "_") && knownCommands[name[1:]] {
		name = name[1:]
	}
	switch name {
	case "return":
		return e.cmdReturn(c, cmd)
	case "break", "continue":
		if c.loopBase < 0 {
			return ctlNone
		}
		if len(e.conds) > c.loopBase {
			e.note(e.cmdLoc(cmd), "%s() under an undecided if(): the loop goes on", cmd.Raw)
			return ctlNone
		}
		if name == "break" {
			return ctlBreak
		}
		return ctlContinue
	case "include_guard":
		if e.guarded[c.listFile] {
			return ctlReturn
		}
		e.guarded[c.listFile] = true
		return ctlNone
	}
	args := e.expandArgs(c, cmd)
	switch name {
	case "set":
		e.cmdSet(c, cmd, args)
	case "unset":
		e.cmdUnset(c, args)
	case "option":
		e.cmdOption(c, args)
	case "list":
		e.cmdList(c, cmd, args)
	case "string":
		e.cmdString(c, cmd, args)
	case "cmake_parse_arguments":
		e.cmdParseArguments(c, cmd, args)
	case "get_filename_component":
		e.cmdFilenameComponent(c, cmd, args)
	case "project":
		e.cmdProject(c, args)
	case "include":
		e.cmdInclude(c, cmd, args)
	case "add_subdirectory":
		e.cmdAddSubdirectory(c, cmd, args)
	case "add_library":
		e.cmdAddLibrary(c, cmd, args)
	case "add_executable":
		e.cmdAddExecutable(c, cmd, args)
	case "pybind11_add_module":
		e.cmdPybind11AddModule(c, cmd, args)
	case "pybind11_extension":
		e.cmdPybind11Extension(c, cmd, args)
	case "nanobind_add_module":
		e.cmdNanobindAddModule(c, cmd, args)
	case "python_add_library", "python3_add_library", "python2_add_library":
		e.cmdPythonAddLibrary(c, cmd, args)
	case "target_link_libraries":
		e.cmdTargetLinkLibraries(c, cmd, args)
	case "target_link_options":
		e.cmdTargetLinkOptions(c, cmd, args)
	case "link_libraries":
		e.cmdLinkLibraries(c, cmd, args)
	case "set_target_properties":
		e.cmdSetTargetProperties(c, cmd, args)
	case "set_property":
		e.cmdSetProperty(c, cmd, args)
	case "get_target_property":
		e.cmdGetTargetProperty(c, args)
	case "get_property", "get_directory_property":
		e.cmdGetProperty(c, name, args)
	default:
		if e.onOther != nil {
			e.onOther(cmd, args)
		}
		e.unknownOutputs(c, name, args)
	}
	return ctlNone
}

func (e *evaluator) cmdReturn(c *ctx, cmd *Command) ctl {
	if len(e.conds) > c.fnBase {
		e.note(e.cmdLoc(cmd), "return() under an undecided if(): what follows is read too")
		return ctlNone
	}
	args := e.expandArgs(c, cmd)
	if len(args) > 0 && args[0].is("PROPAGATE") {
		for _, a := range args[1:] {
			name := stripMarks(a.val)
			if b, ok := c.sc.get(name); ok {
				c.sc.setParent(name, b)
			}
		}
	}
	return ctlReturn
}

// unknownOutputs marks the variables commands etlink does not evaluate
// write, so that a stale value is not used after them.
func (e *evaluator) unknownOutputs(c *ctx, name string, args []xarg) {
	at := func(i int) {
		if i < len(args) && !hasUnknown(args[i].val) {
			e.setUnknown(c, args[i].val)
		}
	}
	switch name {
	case "math", "get_source_file_property", "get_cmake_property",
		"find_library", "find_path", "find_file", "find_program", "cmake_host_system_information",
		"site_name", "load_cache":
		if name == "math" || name == "cmake_host_system_information" {
			at(1)
			return
		}
		if strings.HasPrefix(name, "find_") {
			if len(args) > 0 {
				if _, st := e.variable(c.sc, stripMarks(args[0].val)); st == varSet {
					return
				}
			}
		}
		at(0)
	case "file":
		if len(args) == 0 {
			return
		}
		switch args[0].val {
		case "GLOB", "GLOB_RECURSE", "RELATIVE_PATH", "SIZE", "TIMESTAMP", "READ_SYMLINK":
			if args[0].val == "SIZE" || args[0].val == "TIMESTAMP" || args[0].val == "READ_SYMLINK" {
				at(2)
			} else {
				at(1)
			}
		case "READ", "STRINGS", "TO_CMAKE_PATH", "TO_NATIVE_PATH", "REAL_PATH", "MD5", "SHA1", "SHA256", "SHA512":
			at(2)
		}
	case "execute_process":
		for i, a := range args {
			switch a.val {
			case "OUTPUT_VARIABLE", "RESULT_VARIABLE", "ERROR_VARIABLE", "RESULTS_VARIABLE":
				at(i + 1)
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

func (e *evaluator) cmdOption(c *ctx, args []xarg) {
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
	if !e.opt.TrustDefaults {
		value = markEach(stripMarks(value), markDefault)
	}
	e.cache[name] = value
}

func (e *evaluator) cmdProject(c *ctx, args []xarg) {
	if len(args) == 0 {
		return
	}
	name := stripMarks(args[0].val)
	c.sc.set("PROJECT_NAME", name)
	c.sc.set("PROJECT_SOURCE_DIR", c.dir.src)
	c.sc.set(name+"_SOURCE_DIR", c.dir.src)
	if c.dir.src == e.absRoot {
		c.sc.set("CMAKE_PROJECT_NAME", name)
	}
	for k := 1; k+1 < len(args); k++ {
		if args[k].is("VERSION") {
			c.sc.set("PROJECT_VERSION", args[k+1].val)
			c.sc.set(name+"_VERSION", args[k+1].val)
		}
	}
}

func (e *evaluator) cmdList(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 2 || hasUnknown(args[1].val) {
		return
	}
	sub, name := args[0].val, stripMarks(args[1].val)
	cur, st := e.variable(c.sc, name)
	items := splitListKeepEmpty(cur)
	rest := vals(args[2:])
	unknownList := st == varUnknown
	set := func(v []string) { e.setVar(c, cmd, name, strings.Join(v, ";")) }
	out := func(i int, v string) {
		if i < len(args) && !hasUnknown(args[i].val) {
			e.setVar(c, cmd, stripMarks(args[i].val), v)
		}
	}
	outUnknown := func(i int) {
		if i < len(args) {
			e.setUnknown(c, args[i].val)
		}
	}
	switch sub {
	case "APPEND", "PREPEND":
		// A list the tree never set starts empty: list(APPEND) is how
		// lists are built.
		if len(rest) == 0 {
			if unknownList {
				set(nil)
			}
			return
		}
		if sub == "APPEND" {
			set(append(items, rest...))
		} else {
			set(append(rest, items...))
		}
	case "INSERT":
		if len(rest) < 1 {
			return
		}
		idx, err := strconv.Atoi(rest[0])
		if err != nil || idx < 0 || idx > len(items) {
			e.setUnknown(c, name)
			return
		}
		set(append(append(append([]string(nil), items[:idx]...), rest[1:]...), items[idx:]...))
	case "REMOVE_ITEM":
		if unknownList {
			return
		}
		drop := map[string]bool{}
		for _, r := range rest {
			drop[r] = true
		}
		var kept []string
		for _, it := range items {
			if !drop[it] {
				kept = append(kept, it)
			}
		}
		set(kept)
	case "REMOVE_DUPLICATES":
		seen := map[string]bool{}
		var kept []string
		for _, it := range items {
			if !seen[it] {
				seen[it] = true
				kept = append(kept, it)
			}
		}
		if !unknownList {
			set(kept)
		}
	case "REVERSE":
		for l, r := 0, len(items)-1; l < r; l, r = l+1, r-1 {
			items[l], items[r] = items[r], items[l]
		}
		if !unknownList {
			set(items)
		}
	case "LENGTH":
		if unknownList || undecided(cur) {
			outUnknown(2)
			return
		}
		out(2, strconv.Itoa(len(items)))
	case "GET":
		if len(args) < 4 || unknownList {
			outUnknown(len(args) - 1)
			return
		}
		var got []string
		for _, s := range rest[:len(rest)-1] {
			idx, err := strconv.Atoi(s)
			if idx < 0 {
				idx += len(items)
			}
			if err != nil || idx < 0 || idx >= len(items) {
				outUnknown(len(args) - 1)
				return
			}
			got = append(got, items[idx])
		}
		out(len(args)-1, strings.Join(got, ";"))
	case "JOIN":
		if len(args) < 4 || unknownList {
			outUnknown(3)
			return
		}
		out(3, strings.Join(items, args[2].val))
	case "FIND":
		if len(args) < 4 || unknownList || undecided(cur) {
			outUnknown(3)
			return
		}
		found := -1
		for k, it := range items {
			if it == args[2].val {
				found = k
				break
			}
		}
		out(3, strconv.Itoa(found))
	case "POP_BACK", "POP_FRONT":
		if unknownList {
			for k := 2; k < len(args); k++ {
				outUnknown(k)
			}
			return
		}
		for k := 2; k < len(args) && len(items) > 0; k++ {
			if sub == "POP_BACK" {
				out(k, items[len(items)-1])
				items = items[:len(items)-1]
			} else {
				out(k, items[0])
				items = items[1:]
			}
		}
		if len(args) == 2 && len(items) > 0 {
			if sub == "POP_BACK" {
				items = items[:len(items)-1]
			} else {
				items = items[1:]
			}
		}
		set(items)
	case "FILTER":
		// list(FILTER <list> INCLUDE|EXCLUDE REGEX <regex>)
		if unknownList || len(rest) != 3 || rest[1] != "REGEX" || (rest[0] != "INCLUDE" && rest[0] != "EXCLUDE") {
			e.setUnknown(c, name)
			return
		}
		re, err := cmakeRegexp(rest[2])
		if err != nil {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: %v", cmd, err)
			e.setUnknown(c, name)
			return
		}
		var kept []string
		for _, it := range items {
			// An item etlink could not evaluate may match or not: kept,
			// still unknown.
			if undecided(it) || re.MatchString(it) == (rest[0] == "INCLUDE") {
				kept = append(kept, it)
			}
		}
		set(kept)
	case "TRANSFORM":
		e.listTransform(c, cmd, name, items, unknownList, args)
	case "SUBLIST", "SORT", "REMOVE_AT":
		for k, a := range args {
			if a.is("OUTPUT_VARIABLE") {
				outUnknown(k + 1)
				return
			}
		}
		if sub == "SUBLIST" {
			outUnknown(4)
			return
		}
		e.setUnknown(c, name)
	}
}

// listTransform is list(TRANSFORM <list> <ACTION> [REGEX <regex>]
// [OUTPUT_VARIABLE <out>]) for the actions APPEND, PREPEND, TOLOWER,
// TOUPPER, STRIP and REPLACE; the AT and FOR selectors and GENEX_STRIP
// leave the result unknown.
func (e *evaluator) listTransform(c *ctx, cmd *Command, name string, items []string, unknownList bool, args []xarg) {
	rest := vals(args[2:])
	out := name
	for k, a := range rest {
		if a == "OUTPUT_VARIABLE" && k+1 < len(rest) {
			out, rest = stripMarks(rest[k+1]), rest[:k]
			break
		}
	}
	if len(rest) == 0 || unknownList {
		e.setUnknown(c, out)
		return
	}
	action, rest := rest[0], rest[1:]
	var arg []string
	switch action {
	case "APPEND", "PREPEND":
		if len(rest) < 1 {
			e.setUnknown(c, out)
			return
		}
		arg, rest = rest[:1], rest[1:]
	case "REPLACE":
		if len(rest) < 2 {
			e.setUnknown(c, out)
			return
		}
		arg, rest = rest[:2], rest[2:]
	case "TOLOWER", "TOUPPER", "STRIP":
	default:
		e.setUnknown(c, out)
		return
	}
	var sel *regexp.Regexp
	switch {
	case len(rest) == 2 && rest[0] == "REGEX":
		var err error
		if sel, err = cmakeRegexp(rest[1]); err != nil {
			e.setUnknown(c, out)
			return
		}
	case len(rest) > 0:
		e.setUnknown(c, out)
		return
	}
	var replace *regexp.Regexp
	if action == "REPLACE" {
		var err error
		if replace, err = cmakeRegexp(arg[0]); err != nil {
			e.setUnknown(c, out)
			return
		}
	}
	res := make([]string, len(items))
	for k, it := range items {
		res[k] = it
		if undecided(it) || sel != nil && !sel.MatchString(it) {
			continue
		}
		switch action {
		case "APPEND":
			res[k] = it + arg[0]
		case "PREPEND":
			res[k] = arg[0] + it
		case "TOLOWER":
			res[k] = strings.ToLower(it)
		case "TOUPPER":
			res[k] = strings.ToUpper(it)
		case "STRIP":
			res[k] = strings.TrimSpace(it)
		case "REPLACE":
			res[k] = replace.ReplaceAllString(it, cmakeReplacement(arg[1]))
		}
	}
	e.setVar(c, cmd, out, strings.Join(res, ";"))
}

// cmakeRegexp compiles a CMake regular expression (a POSIX ERE subset:
// ^ $ . [] * + ? | () and no backreferences) with Go's engine, which reads
// every one of them alike.
func cmakeRegexp(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%q is not a regular expression etlink reads: %v", expr, err)
	}
	return re, nil
}

// cmakeReplacement turns CMake's \1 references into Go's ${1}.
func cmakeReplacement(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if r[i] == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9' {
			b.WriteString("${" + string(r[i+1]) + "}")
			i++
			continue
		}
		if r[i] == '$' {
			b.WriteString("$$")
			continue
		}
		b.WriteByte(r[i])
	}
	return b.String()
}

func (e *evaluator) cmdString(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 2 {
		return
	}
	sub := args[0].val
	// result computes a string result from inputs, carrying the marks.
	result := func(out int, inputs []string, f func([]string) string) {
		if out >= len(args) || hasUnknown(args[out].val) {
			return
		}
		dflt := false
		for k, in := range inputs {
			if hasUnknown(in) {
				e.setUnknown(c, args[out].val)
				return
			}
			if undecided(in) {
				dflt = true
			}
			inputs[k] = stripMarks(in)
		}
		v := f(inputs)
		if dflt {
			v = markEach(v, markDefault)
		}
		e.setVar(c, cmd, stripMarks(args[out].val), v)
	}
	concat := func(in []string) string { return strings.Join(in, "") }
	switch sub {
	case "APPEND", "PREPEND":
		name := stripMarks(args[1].val)
		cur, st := e.variable(c.sc, name)
		if st == varUnknown {
			cur = ""
		}
		in := append([]string{cur}, vals(args[2:])...)
		if sub == "PREPEND" {
			in = append(vals(args[2:]), cur)
		}
		result(1, in, concat)
	case "CONCAT":
		result(1, vals(args[2:]), concat)
	case "JOIN":
		if len(args) < 3 {
			return
		}
		glue := args[1].val
		result(2, vals(args[3:]), func(in []string) string { return strings.Join(in, stripMarks(glue)) })
	case "TOLOWER", "TOUPPER", "STRIP", "LENGTH":
		if len(args) < 3 {
			return
		}
		result(2, []string{args[1].val}, func(in []string) string {
			switch sub {
			case "TOLOWER":
				return strings.ToLower(in[0])
			case "TOUPPER":
				return strings.ToUpper(in[0])
			case "STRIP":
				return strings.TrimSpace(in[0])
			}
			return strconv.Itoa(len(in[0]))
		})
	case "REPLACE":
		if len(args) < 4 {
			return
		}
		in := append([]string{args[1].val, args[2].val}, vals(args[4:])...)
		result(3, in, func(in []string) string {
			if in[0] == "" {
				return strings.Join(in[2:], "")
			}
			return strings.ReplaceAll(strings.Join(in[2:], ""), in[0], in[1])
		})
	case "REGEX":
		e.stringRegex(c, cmd, args, result)
	case "FIND", "COMPARE", "SUBSTRING":
		switch sub {
		case "FIND":
			e.unknownAt(c, args, 3)
		default:
			e.unknownAt(c, args, 4)
		}
	case "MAKE_C_IDENTIFIER", "GENEX_STRIP", "CONFIGURE", "HEX", "REPEAT":
		if sub == "REPEAT" {
			e.unknownAt(c, args, 3)
		} else {
			e.unknownAt(c, args, 2)
		}
	case "MD5", "SHA1", "SHA256", "SHA512", "TIMESTAMP", "UUID", "JSON", "RANDOM", "ASCII":
		if sub == "RANDOM" || sub == "ASCII" {
			e.unknownAt(c, args, len(args)-1)
		} else {
			e.unknownAt(c, args, 1)
		}
	}
}

// stringRegex is string(REGEX MATCH|MATCHALL <regex> <out> <input>...) and
// string(REGEX REPLACE <regex> <replacement> <out> <input>...); result
// carries the inputs' marks as cmdString's other forms do.
func (e *evaluator) stringRegex(c *ctx, cmd *Command, args []xarg, result func(int, []string, func([]string) string)) {
	if len(args) < 4 {
		return
	}
	mode := args[1].val
	outAt, inAt := 3, 4
	if mode == "REPLACE" {
		outAt, inAt = 4, 5
	}
	if outAt >= len(args) || hasUnknown(args[2].val) {
		e.unknownAt(c, args, outAt)
		return
	}
	re, err := cmakeRegexp(stripMarks(args[2].val))
	if err != nil || mode == "REPLACE" && hasUnknown(args[3].val) {
		e.unknownAt(c, args, outAt)
		return
	}
	in := vals(args[min(inAt, len(args)):])
	switch mode {
	case "MATCH":
		result(outAt, in, func(in []string) string { return re.FindString(strings.Join(in, "")) })
	case "MATCHALL":
		result(outAt, in, func(in []string) string {
			return strings.Join(re.FindAllString(strings.Join(in, ""), -1), ";")
		})
	case "REPLACE":
		repl := cmakeReplacement(stripMarks(args[3].val))
		result(outAt, in, func(in []string) string { return re.ReplaceAllString(strings.Join(in, ""), repl) })
	default:
		e.unknownAt(c, args, outAt)
	}
}

func (e *evaluator) unknownAt(c *ctx, args []xarg, i int) {
	if i >= 0 && i < len(args) && !hasUnknown(args[i].val) {
		e.setUnknown(c, args[i].val)
	}
}

func (e *evaluator) cmdFilenameComponent(c *ctx, cmd *Command, args []xarg) {
	if len(args) < 3 || hasUnknown(args[0].val) {
		return
	}
	out := stripMarks(args[0].val)
	if hasUnknown(args[1].val) {
		e.setUnknown(c, out)
		return
	}
	p := stripMarks(args[1].val)
	base := filepath.Base(p)
	var v string
	switch args[2].val {
	case "DIRECTORY", "PATH":
		v = filepath.Dir(p)
	case "NAME":
		v = base
	case "EXT":
		if i := strings.Index(base, "."); i >= 0 {
			v = base[i:]
		}
	case "NAME_WE":
		if i := strings.Index(base, "."); i >= 0 {
			v = base[:i]
		} else {
			v = base
		}
	case "LAST_EXT":
		v = filepath.Ext(base)
	case "NAME_WLE":
		v = strings.TrimSuffix(base, filepath.Ext(base))
	case "ABSOLUTE", "REALPATH":
		v = p
		if !filepath.IsAbs(v) {
			v = filepath.Join(c.dir.src, v)
		}
		v = filepath.Clean(v)
	default:
		e.setUnknown(c, out)
		return
	}
	e.setVar(c, cmd, out, v)
}

// cmdParseArguments is cmake_parse_arguments, both forms:
//
//	cmake_parse_arguments(PREFIX "options" "one_value" "multi_value" args...)
//	cmake_parse_arguments(PARSE_ARGV N PREFIX "options" "one_value" "multi_value")
func (e *evaluator) cmdParseArguments(c *ctx, cmd *Command, args []xarg) {
	var prefix string
	var lists [3][]string
	var input []string
	if len(args) > 0 && args[0].is("PARSE_ARGV") {
		if len(args) < 6 {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: too few arguments", cmd)
			return
		}
		n, err := strconv.Atoi(args[1].val)
		argcVal, st := e.variable(c.sc, "ARGC")
		argc, err2 := strconv.Atoi(argcVal)
		if err != nil || err2 != nil || st != varSet {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: ARGC or N not known", cmd)
			return
		}
		for k := n; k < argc; k++ {
			v, _ := e.variable(c.sc, "ARGV"+strconv.Itoa(k))
			input = append(input, v)
		}
		prefix = stripMarks(args[2].val)
		for k := range 3 {
			lists[k] = splitList(stripMarks(args[3+k].val))
		}
	} else {
		if len(args) < 4 {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: too few arguments", cmd)
			return
		}
		prefix = stripMarks(args[0].val)
		for k := range 3 {
			lists[k] = splitList(stripMarks(args[1+k].val))
		}
		input = vals(args[4:])
	}
	const (
		kwOption = iota + 1
		kwOne
		kwMulti
	)
	kind := map[string]int{}
	for k, l := range lists {
		for _, kw := range l {
			kind[kw] = k + 1
		}
	}
	options := map[string]bool{}
	values := map[string][]string{}
	given := map[string]bool{}
	var unparsed []string
	current := ""
	for _, a := range input {
		if k := kind[a]; k != 0 {
			switch k {
			case kwOption:
				options[a] = true
				current = ""
			default:
				given[a] = true
				values[a] = nil
				current = a
			}
			continue
		}
		switch {
		case current == "":
			unparsed = append(unparsed, a)
		case kind[current] == kwOne:
			values[current] = []string{a}
			current = ""
		default:
			values[current] = append(values[current], a)
		}
	}
	setOrUnset := func(name string, v []string, ok bool) {
		if ok {
			e.setVar(c, cmd, prefix+"_"+name, strings.Join(v, ";"))
		} else {
			c.sc.vars[prefix+"_"+name] = binding{state: bindUnset}
		}
	}
	var missing []string
	for _, kw := range lists[0] {
		if options[kw] {
			c.sc.set(prefix+"_"+kw, "TRUE")
		} else {
			c.sc.set(prefix+"_"+kw, "FALSE")
		}
	}
	for _, l := range lists[1:] {
		for _, kw := range l {
			v := values[kw]
			if given[kw] && len(v) == 0 {
				missing = append(missing, kw)
			}
			setOrUnset(kw, v, len(v) > 0)
		}
	}
	setOrUnset("UNPARSED_ARGUMENTS", unparsed, len(unparsed) > 0)
	setOrUnset("KEYWORDS_MISSING_VALUES", missing, len(missing) > 0)
}

func (e *evaluator) cmdInclude(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	arg := args[0].val
	optional := false
	resultVar := ""
	for k := 1; k < len(args); k++ {
		switch args[k].val {
		case "OPTIONAL":
			optional = true
		case "RESULT_VARIABLE":
			if k+1 < len(args) {
				resultVar = stripMarks(args[k+1].val)
				k++
			}
		}
	}
	setResult := func(v string) {
		if resultVar != "" {
			c.sc.set(resultVar, v)
		}
	}
	if hasUnknown(arg) {
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the file is not known; not read", cmd)
		if resultVar != "" {
			e.setUnknown(c, resultVar)
		}
		return
	}
	name := stripMarks(arg)
	path := ""
	if !filepath.IsAbs(name) {
		mp, st := e.variable(c.sc, "CMAKE_MODULE_PATH")
		if st == varSet {
			for _, d := range splitList(mp) {
				if undecided(d) {
					continue
				}
				d = stripMarks(d)
				if !filepath.IsAbs(d) {
					d = filepath.Join(c.dir.src, d)
				}
				if cand := filepath.Join(d, name+".cmake"); isFile(cand) {
					path = cand
					break
				}
			}
		}
	}
	if path == "" {
		path = name
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.dir.src, name)
		}
		path = filepath.Clean(path)
	}
	isModule := !strings.ContainsAny(name, `/\`) && !strings.HasSuffix(name, ".cmake")
	switch {
	case !within(e.absRoot, path):
		if !isModule {
			e.note(e.cmdLoc(cmd), "include(%s): outside the tree; not read", name)
		} else {
			e.note(e.cmdLoc(cmd), "include(%s): module not found in the tree (a CMake module or one installed elsewhere); not read", name)
		}
		setResult("NOTFOUND")
		return
	case !isFile(path):
		setResult("NOTFOUND")
		switch {
		case optional:
		case isModule:
			e.note(e.cmdLoc(cmd), "include(%s): module not found in the tree (a CMake module or one installed elsewhere); not read", name)
		default:
			e.note(e.cmdLoc(cmd), "include(%s): no such file in the tree (a submodule not checked out?); not read", name)
		}
		return
	}
	if e.depth >= e.maxDepth {
		e.note(e.cmdLoc(cmd), "include() nested deeper than %d: %s not read", e.maxDepth, name)
		return
	}
	setResult(path)
	saved := [2]binding{}
	had := [2]bool{}
	keys := [2]string{"CMAKE_CURRENT_LIST_FILE", "CMAKE_CURRENT_LIST_DIR"}
	for k, key := range keys {
		saved[k], had[k] = c.sc.vars[key]
	}
	c.sc.set("CMAKE_CURRENT_LIST_FILE", path)
	c.sc.set("CMAKE_CURRENT_LIST_DIR", filepath.Dir(path))
	e.depth++
	e.runFile(c, path)
	e.depth--
	for k, key := range keys {
		if had[k] {
			c.sc.vars[key] = saved[k]
		} else {
			delete(c.sc.vars, key)
		}
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (e *evaluator) cmdAddSubdirectory(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	if hasUnknown(args[0].val) {
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the directory is not known; not read", cmd)
		return
	}
	name := stripMarks(args[0].val)
	dir := name
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.dir.src, dir)
	}
	dir = filepath.Clean(dir)
	if !within(e.absRoot, dir) {
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): outside the tree; not read", name)
		return
	}
	entry := filepath.Join(dir, "CMakeLists.txt")
	if !isFile(entry) {
		// A submodule not checked out, an optional vendor tree: what
		// a clean checkout of a real project looks like, not an error.
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): no CMakeLists.txt there (a submodule not checked out?); not read", name)
		return
	}
	if e.dirsSeen[dir] {
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): directory already added; not read again", name)
		return
	}
	if e.depth >= e.maxDepth {
		e.note(e.cmdLoc(cmd), "add_subdirectory() nested deeper than %d: %s not read", e.maxDepth, name)
		return
	}
	e.dirsSeen[dir] = true
	sc := newScope(c.sc)
	sc.set("CMAKE_CURRENT_SOURCE_DIR", dir)
	sc.set("CMAKE_CURRENT_LIST_DIR", dir)
	sc.set("CMAKE_CURRENT_LIST_FILE", entry)
	child := &dirState{src: dir, linkLibs: append([]LinkItem(nil), c.dir.linkLibs...)}
	nc := &ctx{sc: sc, dir: child, loopBase: -1}
	e.depth++
	e.runFile(nc, entry)
	e.depth--
}

// knownCommands are CMake's own commands (for if(COMMAND) and the
// _name form of an overridden command).
var knownCommands = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`
		add_compile_definitions add_compile_options add_custom_command add_custom_target
		add_definitions add_dependencies add_executable add_library add_link_options
		add_subdirectory add_test aux_source_directory block break build_command
		cmake_host_system_information cmake_language cmake_minimum_required cmake_parse_arguments
		cmake_path cmake_policy configure_file continue create_test_sourcelist define_property
		else elseif enable_language enable_testing endblock endforeach endfunction endif
		endmacro endwhile execute_process export file find_file find_library find_package
		find_path find_program fltk_wrap_ui foreach function get_cmake_property
		get_directory_property get_filename_component get_property get_source_file_property
		get_target_property get_test_property if include include_directories
		include_external_msproject include_guard include_regular_expression install
		link_directories link_libraries list load_cache macro mark_as_advanced math message
		option project qt_wrap_cpp qt_wrap_ui remove_definitions return separate_arguments set
		set_directory_properties set_property set_source_files_properties set_target_properties
		set_tests_properties site_name source_group string target_compile_definitions
		target_compile_features target_compile_options target_include_directories
		target_link_directories target_link_libraries target_link_options target_precompile_headers
		target_sources try_compile try_run unset variable_watch while`) {
		m[n] = true
	}
	return m
}()

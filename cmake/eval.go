package cmake

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

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
	readRoot string // what include() and add_subdirectory() may read: absRoot or the repository's root
	// policyVersion is the project's cmake_minimum_required: the policies
	// it sets NEW (CMP0078 for UseSWIG's target names).
	policyVersion string
	maxDepth      int

	files    map[string]*listFile
	cache    map[string]string
	funcs    map[string]*userCmd
	targets  map[string][]*Target
	dirsSeen map[string]bool
	guarded  map[string]bool
	noted    map[string]bool
	// imported are the imported targets the modelled find_package() calls
	// define, with the call that defined each.
	imported map[string]string
	// modelledNS are the namespaces of the modelled find_package() calls
	// made so far: every target of theirs is in imported.
	modelledNS map[string]bool
	// origins are, per variable and element, the set() or list() that put
	// the element there last (LinkItem.Origin), up to maxOrigins.
	origins map[string]map[string][]*Origin
	// unknownCmds counts the calls of commands neither CMake's nor defined
	// in a file read, by name, with the first call's location.
	unknownCmds map[string]*unknownCmd

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
	e.absRoot, e.readRoot = abs, abs
	if opt.ReadRoot != "" {
		if rr, err := filepath.Abs(opt.ReadRoot); err == nil && within(rr, abs) {
			e.readRoot = rr
		}
	}
	e.run(filepath.Join(abs, filepath.Base(entry)))
	return e.p, e.errs
}

func newEvaluator(root string, opt Options) *evaluator {
	e := &evaluator{
		p:           &Project{Root: root},
		opt:         opt,
		root:        root,
		maxDepth:    opt.MaxDepth,
		files:       map[string]*listFile{},
		cache:       map[string]string{},
		funcs:       map[string]*userCmd{},
		targets:     map[string][]*Target{},
		dirsSeen:    map[string]bool{},
		guarded:     map[string]bool{},
		noted:       map[string]bool{},
		imported:    map[string]string{},
		modelledNS:  map[string]bool{},
		origins:     map[string]map[string][]*Origin{},
		unknownCmds: map[string]*unknownCmd{},
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
	v := e.opt.CMakeVersion
	if v == "" {
		v = DefaultCMakeVersion
	}
	setCMakeVersion(sc, v)
	e.dirsSeen[e.absRoot] = true
	c := &ctx{sc: sc, dir: &dirState{src: e.absRoot}, loopBase: -1}
	e.runFile(c, entry)
	e.p.CMakeVersion = e.cmakeVersion(c)
	e.finish()
}

// display is the path a Location shows: Root joined with the path from
// the tree, for a file in the tree or the repository around it.
func (e *evaluator) display(abs string) string {
	rel, err := filepath.Rel(e.absRoot, abs)
	if err != nil || !within(e.readRoot, abs) {
		return abs
	}
	return filepath.Join(e.root, rel) // ../../cmake/helpers.cmake for a file of the repository outside the tree
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
	case strings.Contains(format, "neither CMake's nor defined"):
		return NoteCommand
	case strings.Contains(format, "decided without knowing"):
		return NoteGuessed
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
	e.via = append(e.via, Frame{Function: cmd.Raw, File: e.display(cmd.File), Line: cmd.Line})
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
	if strings.HasPrefix(name, "_") && knownCommands()[name[1:]] {
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
		e.cmdOption(c, cmd, args)
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
	case "subdirs":
		e.cmdSubdirs(c, cmd, args)
	case "find_package":
		e.cmdFindPackage(c, cmd, args)
	case "cmake_minimum_required":
		e.cmdMinimumRequired(c, args)
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
	case "swig_add_library", "swig_add_module":
		e.cmdSwigAddLibrary(c, cmd, args)
	case "swig_link_libraries":
		e.cmdSwigLinkLibraries(c, cmd, args)
	case "python_add_library", "python3_add_library", "python2_add_library":
		e.cmdPythonAddLibrary(c, cmd, args)
	case "python_add_module":
		e.cmdPythonAddModule(c, cmd, args)
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
	case "file":
		if !e.cmdFilePath(c, args) {
			e.unknownOutputs(c, name, args)
		}
	default:
		if e.onOther != nil {
			e.onOther(cmd, args)
		}
		if !knownCommands()[name] {
			e.unknownCommand(cmd, name)
		}
		e.unknownOutputs(c, name, args)
	}
	return ctlNone
}

// unknownCmd is a command neither CMake's nor defined in a file read.
type unknownCmd struct {
	first Location
	calls int
}

// unknownCommand counts a call of a command etlink does not know: one
// defined in a module or package configuration it did not read (what it
// does to targets, such as linking libpython, is not seen). finish makes
// one note per name.
func (e *evaluator) unknownCommand(cmd *Command, name string) {
	u := e.unknownCmds[name]
	if u == nil {
		u = &unknownCmd{first: e.cmdLoc(cmd)}
		e.unknownCmds[name] = u
	}
	u.calls++
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

// knownCommands are CMake's own commands (for if(COMMAND) and the
// _name form of an overridden command), made when first asked: a run that
// reads no CMake (conflicts, check) does not pay for it at start-up.
var knownCommands = sync.OnceValue(func() map[string]bool {
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
})

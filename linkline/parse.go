package linkline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/budget"
)

// Options steer parsing. The zero value asks the real drivers.
type Options struct {
	// Dir is the working directory for relative paths and @files ("" = the
	// directory of the file being parsed, or the process's cwd).
	Dir string
	// DefaultAsNeeded overrides the driver's default (user flag
	// --default-as-needed=on|off); nil = ask the driver.
	DefaultAsNeeded *bool
	// Specs returns the driver's specs as `-dumpspecs` prints them; nil =
	// read the driver's *link spec from its file (programs named like gcc
	// only; never run); tests inject canned specs.
	Specs func(driver string) (string, error)
	// SearchDirs returns the system library dirs for -l resolution; nil =
	// GCC's Debian layout for the driver's target and version.
	SearchDirs func(driver string) []string
	// Budget is the run's (nil: no limits): each build file read (a
	// ninja include, a response file, a File API reply) is charged one
	// Included and its size.
	Budget *budget.Budget
}

// session holds what one Parse call learns and may reuse across the links
// it finds: driver answers, file kinds, -l lookups.
type session struct {
	opt Options
	// rspRoot is the directory response files read from disk must lie in:
	// the build directory, or a log's or link.txt's working directory, all
	// untrusted ("": anywhere, for a command the user gave).
	rspRoot    string
	overlay    map[string]string // response files known without reading them
	overlaySrc map[string]string
	models     map[string]driverModel
	specCache  map[string]specResult
	tools      map[string]toolInfo
	sysDirs    map[string][]string
	kinds      map[string]kindResult
	found      map[lookupKey]string
	dirs       map[string]dirListing
}

type toolInfo struct {
	kind         toolKind
	name, triple string
}

func newSession(opt Options) *session {
	return &session{
		opt:        opt,
		overlay:    map[string]string{},
		overlaySrc: map[string]string{},
		models:     map[string]driverModel{},
		specCache:  map[string]specResult{},
		tools:      map[string]toolInfo{},
		sysDirs:    map[string][]string{},
		kinds:      map[string]kindResult{},
		found:      map[lookupKey]string{},
		dirs:       map[string]dirListing{},
	}
}

// at renders a source as an error prefix ("file:line: "), or "".
// srcError is an error of the line src points at: a datafile.Error naming
// the file, or err with src's description when src names no file.
func srcError(src Source, err error) error {
	switch {
	case src.File == "" && src.String() == "":
		return err
	case src.File == "":
		return fmt.Errorf("%s: %w", src, err)
	}
	if cm := (Source{CMakeFile: src.CMakeFile, CMakeLine: src.CMakeLine, CMakeCommand: src.CMakeCommand}).String(); cm != "" {
		err = fmt.Errorf("(%s) %w", cm, err)
	}
	return &datafile.Error{Path: src.File, Line: src.Line, Err: err}
}

// readBuildFile reads a build file (a ninja file, a response file, a File
// API reply) of at most limit bytes. It is charged to b first, one
// Included and its size, so that a tree of small files naming each other
// cannot make a run read without end.
func readBuildFile(b *budget.Budget, path string, limit int64) ([]byte, error) {
	if fi, err := os.Stat(path); err == nil { // else ReadFile says why
		if err := b.Charge(budget.Included, 1, path); err != nil {
			return nil, fileError(path, err)
		}
		if err := b.Charge(budget.Read, fi.Size(), path); err != nil {
			return nil, fileError(path, err)
		}
	}
	return datafile.ReadFile(path, limit)
}

// realFile is the absolute path of the file p leads to, symbolic links
// resolved.
func realFile(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// realWithin resolves the symbolic links of p and reports whether the
// file they lead to lies inside dir (its links resolved too).
func realWithin(p, dir string) (real string, inside bool, err error) {
	real, err = realFile(p)
	if err != nil {
		return "", false, err
	}
	d, err := realFile(dir)
	if err != nil {
		return "", false, err
	}
	if !strings.HasSuffix(d, string(filepath.Separator)) { // all but "/"
		d += string(filepath.Separator)
	}
	return real, strings.HasPrefix(real, d), nil
}

// fileError is an error of the input file path.
func fileError(path string, err error) error { return &datafile.Error{Path: path, Err: err} }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// tool classifies argv[0], looking through symlinks of an installed
// cc/c++ (Debian's alternatives may point them at clang).
func (s *session) tool(argv0 string) toolInfo {
	if t, ok := s.tools[argv0]; ok {
		return t
	}
	kind, name, triple := classify(argv0)
	if kind == toolGCC && (name == "cc" || name == "c++") {
		if rk, rn, _ := classify(realPath(argv0)); rk == toolClang {
			kind, name = rk, rn
		}
	}
	t := toolInfo{kind, name, triple}
	s.tools[argv0] = t
	return t
}

// systemDirs are the driver's and linker's own library dirs.
func (s *session) systemDirs(driver string, t toolInfo) []string {
	if d, ok := s.sysDirs[driver]; ok {
		return d
	}
	var d []string
	if s.opt.SearchDirs != nil {
		d = s.opt.SearchDirs(driver)
	} else {
		d = defaultSearchDirs(driver, t.kind, t.triple)
	}
	s.sysDirs[driver] = d
	return d
}

// ParseArgs parses the argv of one command (argv[0] is the driver or
// linker). Paths are taken from opt.Dir, or the process's working directory.
// The command is the caller's: its response files are read wherever they
// are.
func ParseArgs(args []string, opt Options) (*Link, error) {
	s := newSession(opt)
	dir, err := baseDir(opt.Dir, "")
	if err != nil {
		return nil, err
	}
	words := make([]word, len(args))
	for i, a := range args {
		words[i] = word{text: a}
	}
	return s.parseArgv(words, dir, Source{})
}

// ParseCommand parses one shell command line: quoting, commands joined by
// &&, ||, ; or newlines (the link is the first command that links), cd DIR
// changing the directory of what follows, env VAR=x and VAR=x prefixes,
// launchers (ccache), and no-op ':' commands. Like ParseArgs, it reads
// response files wherever they are.
func ParseCommand(cmd string, opt Options) (*Link, error) {
	s := newSession(opt)
	dir, err := baseDir(opt.Dir, "")
	if err != nil {
		return nil, err
	}
	links, err := s.parseShell(cmd, dir, Source{}, true)
	if err != nil {
		return nil, err
	}
	return links[0], nil
}

// baseDir is the working directory: opt, else fallback, else the cwd.
func baseDir(opt, fallback string) (string, error) {
	d := opt
	if d == "" {
		d = fallback
	}
	if d == "" {
		return os.Getwd()
	}
	return filepath.Abs(d)
}

// parseShell finds the link commands of a shell line. With first set it
// stops at the first link; it fails with ErrNotLink when there is none.
func (s *session) parseShell(line, dir string, src Source, first bool) ([]*Link, error) {
	cmds, err := splitShell(line)
	if err != nil {
		return nil, srcError(src, err)
	}
	var links []*Link
	for _, c := range cmds {
		words := stripPrefix(c.words)
		if len(words) == 0 {
			continue
		}
		if words[0] == "cd" {
			if len(words) > 1 {
				d := words[1]
				if !filepath.IsAbs(d) {
					d = filepath.Join(dir, d)
				}
				dir = filepath.Clean(d)
			}
			continue
		}
		if !s.looksLikeLink(words) {
			continue
		}
		argv := make([]word, len(words))
		for i, w := range words {
			argv[i] = word{text: w, src: src}
		}
		l, err := s.parseArgv(argv, dir, src)
		if errors.Is(err, ErrNotLink) {
			continue
		}
		if err != nil {
			return links, err
		}
		links = append(links, l)
		if first {
			break
		}
	}
	if len(links) == 0 {
		return nil, srcError(src, ErrNotLink)
	}
	return links, nil
}

// looksLikeLink is the cheap test of a command found in a shell line or a
// log before it is parsed: a linker, or a compiler (or unknown tool) with -o
// (or a response file that may hold it) and none of -c -S -E.
func (s *session) looksLikeLink(words []string) bool {
	t := s.tool(words[0])
	switch t.kind {
	case toolNotLink:
		return false
	case toolLinker:
		return len(words) > 1
	}
	if strings.HasSuffix(words[0], ":") {
		return false // a diagnostic ("g++: error: ..."), not a command
	}
	out, rsp := false, false
	for _, w := range words[1:] {
		switch {
		case compileOnly(w):
			return false
		case w == "-o" || strings.HasPrefix(w, "-o") && !strings.HasPrefix(w, "-obj"):
			out = true
		case strings.HasPrefix(w, "@") && len(w) > 1:
			rsp = true
		}
	}
	return out || rsp
}

// compileOnly reports a driver option that stops before linking.
func compileOnly(w string) bool {
	switch w {
	case "-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "--precompile", "-emit-llvm":
		return true
	}
	return false
}

// Driver options that take the next argument as their value (unless given
// attached, -Ifoo or --sysroot=x).
var driverArgOpts = map[string]bool{
	"-x": true, "-I": true, "-D": true, "-U": true, "-include": true, "-imacros": true,
	"-isystem": true, "-iquote": true, "-idirafter": true, "-iprefix": true,
	"-iwithprefix": true, "-iwithprefixbefore": true, "-isysroot": true, "-imultilib": true,
	"-MF": true, "-MT": true, "-MQ": true, "-Xassembler": true, "-Xpreprocessor": true,
	"-Xclang": true, "-mllvm": true, "-e": true, "-B": true, "-aux-info": true,
	"-dumpbase": true, "-dumpbase-ext": true, "-dumpdir": true, "--param": true,
	"-target": true, "-arch": true, "-install_name": true, "-framework": true,
	"-wrapper": true, "-cxx-isystem": true, "-Xarch_host": true, "-Xarch_device": true,
	"-Xopenmp-target": true, "--serialize-diagnostics": true,
}

// driverWalk is what a compiler driver's arguments say about the link.
type driverWalk struct {
	items       []item
	switches    []string // every option, without its dash, for spec conditions
	libDirs     []string // -L given to the driver
	output      string
	hasOutput   bool
	compileOnly bool
	libm, libc  int // position in items of the first -lm / -lc given to the driver, or -1
}

// walkDriver reads a compiler driver's arguments: linker-level items in
// order (objects, -l, -Wl, and -Xlinker values), and the driver's own
// switches.
func (s *session) walkDriver(link *Link, args []word) (*driverWalk, error) {
	w := &driverWalk{libm: -1, libc: -1, items: make([]item, 0, len(args)+4), switches: make([]string, 0, 8)}
	pos := 0
	xlang := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		here := pos
		pos++
		// value takes the next word as the value of option a.
		value := func(count bool) (string, error) {
			if i+1 >= len(args) {
				return "", srcError(a.src, fmt.Errorf("argument %d: %s: missing value", here, t))
			}
			i++
			if count {
				pos++
			}
			return args[i].text, nil
		}
		switch {
		case t == "-Xlinker":
			pos-- // the -Xlinker word itself is not an item
			v, err := value(true)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, item{text: v, index: pos - 1, src: args[i].src})
		case strings.HasPrefix(t, "-Wl,"):
			pos--
			for _, part := range strings.Split(t[len("-Wl,"):], ",") {
				w.items = append(w.items, item{text: part, index: pos, src: a.src})
				pos++
			}
		case strings.HasPrefix(t, "-l"):
			name, arg := t[2:], t
			if name == "" {
				v, err := value(true)
				if err != nil {
					return nil, err
				}
				name, arg = v, "-l "+v
			}
			if name == "m" && w.libm < 0 {
				w.libm = len(w.items)
			}
			if name == "c" && w.libc < 0 {
				w.libc = len(w.items)
			}
			w.items = append(w.items, item{text: "-l" + name, arg: arg, index: here, src: a.src})
		case t == "-L" || strings.HasPrefix(t, "-L"):
			d := t[2:]
			if d == "" {
				v, err := value(true)
				if err != nil {
					return nil, err
				}
				d = v
			}
			w.libDirs = append(w.libDirs, d)
			link.LibDirs = append(link.LibDirs, d)
		case t == "-o" || strings.HasPrefix(t, "-o") && !strings.HasPrefix(t, "-obj"):
			o := t[2:]
			if o == "" {
				v, err := value(true)
				if err != nil {
					return nil, err
				}
				o = v
			}
			w.output, w.hasOutput = o, true
		case t == "-T" || strings.HasPrefix(t, "-T") && len(t) > 2 && !strings.HasPrefix(t, "-Ttext") && !strings.HasPrefix(t, "-Tdata") && !strings.HasPrefix(t, "-Tbss"):
			f := t[2:]
			if f == "" {
				v, err := value(true)
				if err != nil {
					return nil, err
				}
				f = v
			}
			w.items = append(w.items, item{text: "-T", index: here, src: a.src}, item{text: f, index: here, src: a.src})
		case t == "-z", t == "-u":
			// Passed to the linker as they are: -z KEYWORD, -u SYMBOL.
			v, err := value(true)
			if err != nil {
				return nil, err
			}
			w.items = append(w.items, item{text: t, index: here, src: a.src}, item{text: v, index: here + 1, src: a.src})
		case strings.HasPrefix(t, "-u") && len(t) > 2:
			w.items = append(w.items, item{text: t, index: here, src: a.src})
		case t == "--sysroot":
			v, err := value(true)
			if err != nil {
				return nil, err
			}
			link.Sysroot = v
		case strings.HasPrefix(t, "--sysroot="):
			link.Sysroot = t[len("--sysroot="):]
		case strings.HasPrefix(t, "-fuse-ld="):
			link.Linker = linkerName(t[len("-fuse-ld="):])
			w.switches = append(w.switches, t[1:])
		case strings.HasPrefix(t, "--ld-path="):
			link.Linker = linkerName(t[len("--ld-path="):])
		case t == "-x":
			v, err := value(true)
			if err != nil {
				return nil, err
			}
			xlang = v
			if xlang == "none" {
				xlang = ""
			}
		case driverArgOpts[t]:
			if _, err := value(true); err != nil {
				return nil, err
			}
			w.switches = append(w.switches, t[1:])
		case strings.HasPrefix(t, "-Wa,"), strings.HasPrefix(t, "-Wp,"):
		case t == "-" || len(t) == 0 || t[0] != '-':
			it := item{text: t, index: here, src: a.src}
			if xlang != "" && t != "-" {
				// Compiled by the driver first: an object the link reads.
				it.kind = KindObject
			}
			w.items = append(w.items, it)
		default:
			if compileOnly(t) {
				w.compileOnly = true
			}
			// Switches as specs name them: --coverage is "coverage".
			w.switches = append(w.switches, strings.TrimPrefix(t[1:], "-"))
		}
	}
	return w, nil
}

// parseArgv parses one command's argv.
func (s *session) parseArgv(argv []word, dir string, src Source) (*Link, error) {
	if len(argv) == 0 || argv[0].text == "" {
		return nil, srcError(src, fmt.Errorf("empty command: %w", ErrNotLink))
	}
	driver := argv[0].text
	t := s.tool(driver)
	if t.kind == toolNotLink {
		return nil, srcError(src, fmt.Errorf("%s: %w", driver, ErrNotLink))
	}
	args, err := s.expandRsp(argv[1:], dir, nil)
	if err != nil {
		return nil, err
	}
	link := &Link{Driver: driver, Dir: dir, Source: src}
	m := &machine{s: s, link: link, dir: dir}
	if t.kind == toolLinker {
		return s.parseLinker(link, m, t, args)
	}
	w, err := s.walkDriver(link, args)
	if err != nil {
		return nil, err
	}
	if w.compileOnly {
		return nil, srcError(src, fmt.Errorf("%s compiles without linking: %w", driver, ErrNotLink))
	}
	if t.kind == toolOther && !w.hasOutput {
		return nil, srcError(src, fmt.Errorf("%s: no -o: %w", driver, ErrNotLink))
	}
	link.Output = w.output
	if !w.hasOutput {
		link.Output = "a.out"
	}
	sw := w.switches
	has := func(name string) bool {
		for _, x := range sw {
			if x == name {
				return true
			}
		}
		return false
	}
	cxx := isCXXDriver(t.name)
	if cxx && !has("static") && !has("static-libgcc") {
		sw = append(sw, "shared-libgcc")
	}
	if t.kind == toolGCC && (has("fopenmp") || has("fopenacc")) {
		sw = append(sw, "pthread") // GCC's self spec adds -pthread for OpenMP
	}
	link.Shared = has("shared")
	link.Static = has("static") || has("static-pie")
	link.PIE = has("pie") || has("static-pie")
	link.Relocatable = has("r")

	model := s.model(driver, t.kind, t.name, sw)
	n := len(w.items) + len(model.beforeItems) + len(model.afterItems) + 4
	m.inputs, m.isLib = make([]Input, 0, n), make([]bool, 0, n)
	m.run(model.beforeItems, true)
	link.DefaultAsNeeded = m.st.AsNeeded
	link.DefaultAsNeededSource = model.source
	if model.before == nil && model.after == nil && link.Static {
		m.st.Static = true // an unknown driver: -static at least is known
	}
	if s.opt.DefaultAsNeeded != nil {
		m.st.AsNeeded = *s.opt.DefaultAsNeeded
		link.DefaultAsNeeded = m.st.AsNeeded
		link.DefaultAsNeededSource = "--default-as-needed"
	}
	link.DefaultAsNeeded = m.st.AsNeeded

	// g++ moves the first -lm and -lc written on the line after its own
	// -lstdc++ (libstdc++ uses libm), where they replace its -lm.
	defaultLibs := !has("nostdlib") && !has("nodefaultlibs") && !has("r")
	items := w.items
	var moved []item
	if cxx && model.moveLibm && defaultLibs && (w.libm >= 0 || w.libc >= 0) {
		var keep []item
		for i, it := range items {
			if i == w.libm || i == w.libc {
				continue
			}
			keep = append(keep, it)
		}
		if w.libm >= 0 {
			moved = append(moved, items[w.libm])
		}
		if w.libc >= 0 {
			moved = append(moved, items[w.libc])
		}
		items = keep
	}
	m.run(items, false)
	if cxx && defaultLibs && !has("nostdlib++") {
		lib := libstdcxx
		if has("static-libstdc++") && !has("static") {
			lib = libstdcxxStatic
		}
		m.run(lib, true)
		if w.libm >= 0 && model.moveLibm {
			m.run(moved[:1], false)
			moved = moved[1:]
		} else {
			m.run(libm, true)
		}
		m.run(moved, false)
	}
	m.run(model.afterItems, true)
	if m.err != nil {
		return nil, m.err
	}
	if m.st.Group > 0 {
		m.warn(item{src: src}, "--start-group without --end-group")
	}
	// ld's search order: the driver's -L, the -L the driver adds for its
	// own dirs, -L given through -Wl, then the linker's built-in dirs
	// (part of Options.SearchDirs when that is set).
	dirs := append(append([]string(nil), w.libDirs...), s.systemDirs(driver, t)...)
	dirs = append(dirs, m.wlDirs...)
	if s.opt.SearchDirs == nil {
		ld := link.Linker
		if ld == "" {
			ld = "bfd"
		}
		dirs = append(dirs, linkerDefaultDirs(ld, t.triple)...)
	}
	m.resolve(dirs)
	return link, nil
}

// parseLinker parses the arguments of a linker run directly: it starts with
// --as-needed off and knows only its own dirs.
func (s *session) parseLinker(link *Link, m *machine, t toolInfo, args []word) (*Link, error) {
	link.Linker = linkerName(link.Driver)
	link.DefaultAsNeededSource = "linker invoked directly"
	items := make([]item, len(args))
	for i, a := range args {
		items[i] = item{text: a.text, index: i, src: a.src}
	}
	m.run(items, false)
	if m.err != nil {
		return nil, m.err
	}
	if link.Output == "" && !link.Relocatable {
		link.Output = "a.out"
	}
	if m.st.Group > 0 {
		m.warn(item{src: link.Source}, "--start-group without --end-group")
	}
	var dirs []string
	if s.opt.SearchDirs != nil {
		dirs = s.opt.SearchDirs(link.Driver)
	} else {
		dirs = linkerDefaultDirs(link.Linker, t.triple)
	}
	m.resolve(append(append([]string(nil), m.wlDirs...), dirs...))
	return link, nil
}

// implicitItems are linker arguments the driver adds; their inputs take the
// command's Source.
func implicitItems(words ...string) []item {
	out := make([]item, len(words))
	for i, w := range words {
		out[i] = item{text: w, index: -1}
	}
	return out
}

// What a C++ driver adds after the user's inputs.
var (
	libstdcxx       = implicitItems("-lstdc++")
	libstdcxxStatic = implicitItems("-Bstatic", "-lstdc++", "-Bdynamic")
	libm            = implicitItems("-lm")
)

func isNotLink(err error) bool { return errors.Is(err, ErrNotLink) }

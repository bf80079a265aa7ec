// Package pyload reads a Python package's own sources, without running
// anything, for how importing it loads native code: the extension modules
// its __init__ chain imports, in order, the libraries it opens with ctypes,
// and whether each is opened RTLD_GLOBAL (sys.setdlopenflags around an
// import, ctypes' mode=). The dynamic loader's model takes these as the
// package's own load order (analyze.NewSide).
//
// The reader evaluates what decides those facts and nothing else: module
// and function bodies statement by statement, the package's own functions
// when called, constants and flags bound to names, os.path computations on
// __file__, and conditions on the platform (Linux: sys.platform "linux",
// os.name "posix", platform.system() "Linux") and on environment variables
// (unset: the package's default import). A branch it cannot decide, an
// environment variable's other value and an except clause are read too,
// their steps marked with the condition (Step.Cond).
package pyload

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/etlink/etlink/internal/sysfile"
)

// Step is one library the import opens.
type Step struct {
	// Path is the file, relative to the tree read ("" when the import
	// names a library for the loader to search: Name).
	Path, Name string
	// Module is the dotted name of an extension module; "" for a library
	// opened with ctypes.
	Module string
	Global bool
	// At is the statement that opened it (file:line, with the call chain
	// that led there); Flags the statement that set RTLD_GLOBAL ("" when
	// the library is opened RTLD_LOCAL).
	At, Flags string
	// Cond is "" on the package's default import; else the branch that
	// leads to the step (an environment variable set, an except clause).
	Cond string
}

// Plan is what importing one top-level package opens, in order.
type Plan struct {
	Package string
	Steps   []Step
	// Undecided lists, as file:line and why, what the reader could not
	// follow: a library opened by a name it cannot evaluate, a bound hit.
	Undecided []string
}

// Bounds on one Read: files, bytes of source, statements run, call depth.
const (
	maxFiles      = 512
	maxFileBytes  = 4 << 20
	maxTotalBytes = 64 << 20
	maxStatements = 500000
	maxDepth      = 16
)

// Read reads the packages of a tree: dir itself when it holds __init__.py
// (a package given by its directory), else each directory below it that
// does (a sys.path entry, a wheel's root). Names in fsys are slash paths;
// natives are the tree's shared objects (extension modules, libraries),
// which say which modules can matter (reader.matters).
func Read(fsys fs.FS, dir string, natives []string) []Plan {
	var pkgs []string
	isPackage := func(p string) bool {
		return isFile(fsys, path.Join(p, "__init__.py")) || slices.ContainsFunc(natives, func(n string) bool {
			return path.Dir(n) == p && extensionFile(path.Base(n), "__init__")
		})
	}
	if isPackage(dir) {
		pkgs = []string{dir}
	} else {
		entries, _ := fs.ReadDir(fsys, dir)
		for _, e := range entries {
			if p := path.Join(dir, e.Name()); e.IsDir() && isPackage(p) {
				pkgs = append(pkgs, p)
			}
		}
	}
	var plans []Plan
	for _, p := range pkgs {
		root, name := path.Dir(p), path.Base(p)
		r := &reader{fsys: fsys, root: root, pkg: name, modules: map[string]*module{}}
		for _, n := range natives {
			if rel, ok := strings.CutPrefix(n, pathIn(root, name)+"/"); ok {
				base, _, _ := strings.Cut(path.Base(rel), ".")
				r.natives = append(r.natives, native{path: path.Join(name, rel), module: base})
			}
		}
		r.names = indexNatives(r.natives)
		r.importModule(nil, name)
		plan := Plan{Package: name, Undecided: r.undecided}
		for _, s := range r.steps {
			s.Path = pathIn(root, s.Path)
			plan.Steps = append(plan.Steps, s)
		}
		if len(plan.Steps) > 0 || len(plan.Undecided) > 0 {
			plans = append(plans, plan)
		}
	}
	return plans
}

func pathIn(root, p string) string {
	if p == "" || root == "." {
		return p
	}
	return path.Join(root, p)
}

func isFile(fsys fs.FS, name string) bool {
	fi, err := fs.Stat(fsys, name)
	return err == nil && fi.Mode().IsRegular()
}

// native is a shared object of the package: its path as steps name it,
// and the module name an import would give it (libfoo for libfoo.so.1).
type native struct{ path, module string }

// flags are the dlopen flags in force: RTLD_GLOBAL or not, and where set.
type flags struct {
	global bool
	at     string
}

type module struct {
	name, file string // dotted name; source file relative to the root ("" for an extension)
	pkg        bool
	vars       map[string]value
	// cond is the branch the module was first run in ("" by default).
	cond string
	// deferred is whether the module's run is put off (matters), and
	// lazyFrom the frame that imported it.
	deferred bool
	lazyFrom *frame
	// stars are the modules whose run was put off that this one imports
	// every name of: read when a name is not found.
	stars []*module
}

type function struct {
	name   string
	params []string
	def    *stmt // its body built when called (stmt.block)
	mod    *module
}

// frame is a running module body or function call.
type frame struct {
	mod    *module
	locals map[string]value // nil for a module body
	caller *frame
	line   int
	fn     *function
}

func (fr *frame) at() string { return fmt.Sprintf("%s:%d", fr.mod.file, fr.line) }

// site is where a step happens: the statement, and the calls that led to
// it from module level.
func (fr *frame) site() string {
	s := fr.at()
	for c := fr.caller; c != nil; c = c.caller {
		s += " (called from " + c.at() + ")"
		if c.fn == nil {
			break
		}
	}
	return s
}

type reader struct {
	fsys       fs.FS
	root       string
	pkg        string // the top-level package read
	modules    map[string]*module
	dirs       map[string]map[string]bool
	subdirs    map[string]map[string]bool // of each directory listed whole: what may be a directory
	natives    []native
	names      nativeNames // r.natives by module name (matters)
	files      int
	bytes      int
	statements int
	depth      int
	fl         flags
	cond       string
	alt        *branchFlags // flags a branch not taken left set (conditional)
	steps      []Step
	opened     map[string]bool
	undecided  []string
	bounded    bool
	buf        []byte // the source read last (read)
}

func (r *reader) note(fr *frame, format string, args ...any) {
	if r.cond != "" {
		return // off the default import: it decides nothing the model uses
	}
	msg := fmt.Sprintf(format, args...)
	if fr != nil {
		msg = fr.at() + ": " + msg
	}
	if len(r.undecided) < 100 && !slices.Contains(r.undecided, msg) {
		r.undecided = append(r.undecided, msg)
	}
}

// branchFlags are dlopen flags a branch not taken by default leaves set.
type branchFlags struct {
	flags
	cond string
}

// step records a library opened, once per file on the default import
// (Python imports a module once; the loader maps a file once), and, when
// a branch not taken left RTLD_GLOBAL set, as opened so on that branch.
func (r *reader) step(fr *frame, s Step) {
	if a := r.alt; a != nil && r.cond == "" && !r.fl.global {
		saved := r.fl
		r.fl, r.cond = a.flags, a.cond
		r.step(fr, s)
		r.fl, r.cond = saved, ""
	}
	s.Global, s.Cond = r.fl.global, r.cond
	if fr != nil {
		s.At = fr.site()
	}
	if s.Global {
		s.Flags = r.fl.at
	}
	key := s.Path + "\x00" + s.Name + "\x00" + s.Cond
	if r.opened == nil {
		r.opened = map[string]bool{}
	}
	if r.opened[key] || r.opened[s.Path+"\x00"+s.Name+"\x00"] { // opened by default already
		return
	}
	r.opened[key] = true
	if len(r.steps) < 10000 {
		r.steps = append(r.steps, s)
	}
}

// read returns a source file's bytes, within the bounds, in r.buf (valid
// until the next read).
func (r *reader) read(fr *frame, name string) []byte {
	if r.files >= maxFiles || r.bytes >= maxTotalBytes {
		if !r.bounded {
			r.bounded = true
			r.note(fr, "stopped reading at %d files, %d bytes of Python (a bound)", r.files, r.bytes)
		}
		return nil
	}
	buf, ok := r.load(name)
	if !ok {
		return nil
	}
	n := len(buf)
	r.files++
	r.bytes += n
	if n > maxFileBytes {
		r.note(fr, "%s is over %d bytes: not read", name, maxFileBytes)
		return nil
	}
	return buf
}

// minBuffer is what sources are read into at least: the buffer is
// reused, and its pages are touched only by the sources read (all but two
// of torch's are under 150 KB).
const minBuffer = 256 << 10

// load reads a file into r.buf, to its end or one byte past maxFileBytes.
// Reads ask for the size the file states and one byte more, to see the
// end (io.ReadAll's buffer, grown from 512 bytes, made a third of reading
// torch's 2 MB of source copying; asking for the whole buffer made the
// race detector's tests mark 256 KB a read).
func (r *reader) load(name string) ([]byte, bool) {
	if b, ok := r.fsys.(BufferFS); ok {
		if cap(r.buf) < minBuffer {
			r.buf = make([]byte, 0, minBuffer)
		}
		buf, err := b.AppendFile(name, r.buf[:0], maxFileBytes+1)
		if err != nil {
			return nil, false
		}
		r.buf = buf
		return buf, true
	}
	f, err := r.fsys.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	limit := maxFileBytes + 1
	size := limit
	if fi, err := f.Stat(); err == nil && fi.Size() >= 0 {
		size = int(min(fi.Size()+1, int64(limit)))
	}
	if cap(r.buf) < size {
		r.buf = make([]byte, 0, max(size, minBuffer))
	}
	buf := sysfile.ReadUpTo(f, r.buf[:0], size)
	if len(buf) == size && size < limit { // longer than it said
		buf = sysfile.ReadUpTo(f, buf, limit)
	}
	r.buf = buf
	return buf, true
}

// A BufferFS is a file system that reads a file into a buffer it is
// handed (Read reads every source into one): opening, asking the size and
// reading through fs.File cost twice the system calls of the reading.
type BufferFS interface {
	fs.FS
	// AppendFile reads name to its end, or to limit bytes, appended to
	// buf. The error is the open's: a read that fails ends the file, as
	// it ends when read through fs.File.
	AppendFile(name string, buf []byte, limit int) ([]byte, error)
}

// importModule imports a dotted module as Python does (each parent package
// first) and returns its value: a module of the tree, an extension module
// (its step recorded), or an outside module (ext).
func (r *reader) importModule(fr *frame, dotted string) value {
	parts := strings.Split(dotted, ".")
	var v value
	for i := range parts {
		name := strings.Join(parts[:i+1], ".")
		v = r.importOne(fr, name)
		if v.ext != "" {
			return value{ext: dotted}
		}
		if v.mod == nil {
			return value{}
		}
	}
	return v
}

// importOne imports name, whose parent package is imported already.
func (r *reader) importOne(fr *frame, name string) value {
	if m := r.modules[name]; m != nil && (m.cond == "" || r.cond != "") {
		return value{mod: m}
	}
	if top, _, _ := strings.Cut(name, "."); top != r.pkg {
		// Another package: its own import is read when it is an input.
		return value{ext: name}
	}
	rel := strings.ReplaceAll(name, ".", "/")
	if r.depth >= maxDepth {
		r.note(fr, "import of %s not followed (nesting bound)", name)
		return value{}
	}
	// As the import system's FileFinder looks: a package before a module,
	// an extension module before source (lxml ships builder.py beside the
	// builder extension it imports; apsw's package is an extension).
	if ext := r.extension(path.Join(rel, "__init__")); ext != "" {
		return r.extensionModule(fr, name, ext, true)
	}
	if r.has(path.Join(r.root, rel, "__init__.py")) {
		m := &module{name: name, file: pathIn(r.root, path.Join(rel, "__init__.py")), pkg: true, vars: map[string]value{}, cond: r.cond}
		r.modules[name] = m
		r.runOrDefer(fr, m, name == r.pkg)
		return value{mod: m}
	}
	if ext := r.extension(rel); ext != "" {
		return r.extensionModule(fr, name, ext, false)
	}
	if r.has(path.Join(r.root, rel+".py")) {
		m := &module{name: name, file: pathIn(r.root, rel+".py"), vars: map[string]value{}, cond: r.cond}
		r.modules[name] = m
		r.runOrDefer(fr, m, false)
		return value{mod: m}
	}
	if !strings.Contains(name, ".") {
		return value{ext: name} // not in the tree: the standard library
	}
	return value{}
}

// extensionModule is the module name imported from the extension file
// ext, a package's when pkg: the import opens it (the package's own
// import, with no statement to point at, is "import NAME").
func (r *reader) extensionModule(fr *frame, name, ext string, pkg bool) value {
	m := &module{name: name, pkg: pkg, vars: map[string]value{}, cond: r.cond}
	r.modules[name] = m
	r.step(fr, Step{Path: ext, Module: name, At: "import " + name})
	return value{mod: m}
}

// extension finds the extension module file for rel (a/b: a/b.cpython-311-x86_64-linux-gnu.so,
// a/b.abi3.so, a/b.so), preferring the interpreter's own tag.
func (r *reader) extension(rel string) string {
	dir, base := path.Dir(rel), path.Base(rel)
	var found []string
	for n := range r.list(path.Join(r.root, dir)) {
		if extensionFile(n, base) {
			found = append(found, path.Join(dir, n))
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found) // cpython-311 after cpython-310: the newest tag last
	return found[len(found)-1]
}

// extensionFile reports whether the file name n is an extension module
// named base: base.so, or base.TAG.so.
func extensionFile(n, base string) bool {
	return n == base+".so" || strings.HasPrefix(n, base+".") && strings.HasSuffix(n, ".so") && strings.Count(n, ".") == 2
}

// list returns the regular files of a directory, read once.
func (r *reader) list(dir string) map[string]bool {
	if names, ok := r.dirs[dir]; ok {
		return names
	}
	if r.dirs == nil {
		r.dirs, r.subdirs = map[string]map[string]bool{}, map[string]map[string]bool{}
	}
	if subdirs, listed := r.subdirs[path.Dir(dir)]; listed && dir != "." && !subdirs[path.Base(dir)] {
		// Its parent holds no such directory (most modules are no
		// package), and so it holds none either.
		r.dirs[dir], r.subdirs[dir] = nil, nil
		return nil
	}
	names, subdirs := map[string]bool{}, map[string]bool{}
	entries, err := fs.ReadDir(r.fsys, dir)
	for _, e := range entries {
		switch {
		case e.Type().IsRegular():
			names[e.Name()] = true
		case e.Type()&fs.ModeSymlink != 0:
			subdirs[e.Name()] = true // or a file
			if isFile(r.fsys, path.Join(dir, e.Name())) {
				names[e.Name()] = true
			}
		default:
			subdirs[e.Name()] = true
		}
	}
	r.dirs[dir] = names
	if err == nil {
		r.subdirs[dir] = subdirs
	}
	return names
}

// has reports whether the tree holds the regular file name.
func (r *reader) has(name string) bool { return r.list(path.Dir(name))[path.Base(name)] }

func (r *reader) runSource(caller *frame, m *module, src string) {
	r.depth++
	defer func() { r.depth-- }()
	fr := &frame{mod: m, caller: caller}
	stmts := parse(src)
	if len(m.vars) == 0 {
		m.vars = make(map[string]value, len(stmts)) // about one name a statement
	}
	r.run(fr, stmts)
}

// runOrDefer runs a module that matters (or the package itself, always),
// and puts off one that does not until a name is asked of it.
func (r *reader) runOrDefer(fr *frame, m *module, always bool) {
	src := r.read(fr, m.file)
	if always || r.matters(src) {
		r.runSource(fr, m, string(src))
		return
	}
	m.deferred, m.lazyFrom = src != nil, fr
}

// settle reads a name imported from a module whose run was put off: the
// module runs now.
func (r *reader) settle(v value) value {
	for i := 0; v.later != nil && i < maxDepth; i++ {
		r.force(v.later.mod)
		v = v.later.mod.vars[v.later.name]
	}
	if v.later != nil {
		return value{}
	}
	return v
}

// force runs a module whose run was put off, now that a name is asked of
// it. Its source is read again: most modules put off are never run (in
// torch, 11 of 87), and keeping each one's source cost more than reading
// those few twice. The read counted against the bounds was the first.
func (r *reader) force(m *module) {
	if m.deferred {
		m.deferred = false
		src, _ := r.load(m.file)
		if len(src) > maxFileBytes {
			src = nil
		}
		r.runSource(m.lazyFrom, m, string(src))
	}
}

// lookup finds a name as Python would: locals, the module, builtins.
func (r *reader) lookup(fr *frame, name string) value {
	if fr.locals != nil {
		if v, ok := fr.locals[name]; ok {
			return r.settle(v)
		}
	}
	if v, ok := fr.mod.vars[name]; ok {
		v = r.settle(v)
		fr.mod.vars[name] = v
		return v
	}
	for _, m := range fr.mod.stars {
		r.force(m)
		if v, ok := m.vars[name]; ok && !strings.HasPrefix(name, "_") {
			return r.settle(v)
		}
	}
	switch name {
	case "True":
		return value{truth: yes}
	case "False":
		return value{truth: no}
	case "None":
		return value{truth: no, ext: "None"}
	case "__file__":
		return str(fr.mod.file)
	case "__name__":
		return str(fr.mod.name)
	case "__package__":
		// A package is its own; a module's is its parent (SWIG's wrappers
		// import their extension relatively when it is set).
		if fr.mod.pkg {
			return str(fr.mod.name)
		}
		parent := ""
		if i := strings.LastIndex(fr.mod.name, "."); i >= 0 {
			parent = fr.mod.name[:i]
		}
		return str(parent)
	case "exec", "__import__", "getattr", "hasattr", "bool", "str":
		return value{ext: name}
	}
	return value{}
}

// attr is v.name.
func (r *reader) attr(fr *frame, v value, name string) value {
	switch {
	case v.mod != nil:
		r.force(v.mod)
		if w, ok := v.mod.vars[name]; ok {
			return r.settle(w)
		}
		if m := r.modules[v.mod.name+"."+name]; m != nil {
			return value{mod: m}
		}
		return value{}
	case v.isStr:
		return value{ext: "str." + name, str: v.str}
	case v.ext == "":
		return value{}
	}
	full := v.ext + "." + name
	switch full {
	case "sys.platform":
		return str("linux")
	case "os.name":
		return str("posix")
	case "os.sep":
		return str("/")
	case "typing.TYPE_CHECKING":
		return value{truth: no}
	case "sys.version_info.major":
		return number(pythonMajor)
	}
	if name == "RTLD_GLOBAL" {
		return value{global: true, truth: yes}
	}
	return value{ext: full}
}

// call runs a call: one the reader models, or a function of the package.
func (r *reader) call(fr *frame, f value, name string, args []value, kw map[string]value) value {
	if f.fn != nil {
		return r.callFunction(fr, f.fn, args, kw)
	}
	arg := func(i int, key string) (value, bool) {
		if v, ok := kw[key]; ok {
			return v, true
		}
		if i < len(args) {
			return args[i], true
		}
		return value{}, false
	}
	switch ext := f.ext; {
	case ext == "sys.setdlopenflags":
		if r.cond == "" {
			r.alt = nil // the default path sets them again
		}
		v, _ := arg(0, "flags")
		switch {
		case v.saved != nil:
			r.fl = *v.saved
		case v.global:
			r.fl = flags{global: true, at: fr.site()}
		default:
			r.fl = flags{}
		}
	case ext == "sys.getdlopenflags":
		saved := r.fl
		return value{saved: &saved, global: saved.global}
	case ext == "ctypes.CDLL" || ext == "ctypes.PyDLL" || ext == "ctypes.cdll.LoadLibrary" ||
		ext == "ctypes.pydll.LoadLibrary" || ext == "ctypes.LoadLibrary":
		p, _ := arg(0, "name")
		mode, _ := arg(1, "mode")
		r.openLibrary(fr, p, mode.global)
	case ext == "importlib.import_module" || ext == "__import__":
		n, _ := arg(0, "name")
		pkg, _ := arg(1, "package")
		if !n.isStr {
			r.note(fr, "imports a module whose name etlink cannot evaluate")
			return value{}
		}
		target := n.str
		if strings.HasPrefix(target, ".") && pkg.isStr {
			target = resolveRelative(pkg.str, true, target)
		}
		return r.importModule(fr, target)
	case ext == "exec":
		code, _ := arg(0, "source")
		if !code.isStr {
			return value{}
		}
		// Run in the caller's namespace: a helper handed an import
		// statement runs it where it was called from (graph-tool's
		// dl_import uses its caller's globals).
		at := fr
		if fr.fn != nil && fr.caller != nil {
			at = fr.caller
		}
		inner := &frame{mod: at.mod, caller: at.caller, line: at.line}
		for _, s := range parse(code.str) {
			s.line = at.line
			r.run(inner, []*stmt{s})
		}
	case ext == "os.getenv" || ext == "os.environ.get":
		n, _ := arg(0, "key")
		def, _ := arg(1, "default")
		if def.ext == "" && !def.isStr && def.truth == unknown {
			def = value{truth: no, ext: "None"}
		}
		def.env = n.str
		if def.env == "" {
			def.env = "an environment variable"
		}
		return def
	case ext == "platform.system":
		return str("Linux")
	case ext == "platform.python_implementation":
		return str("CPython") // the interpreter etlink's process model reads
	case strings.HasPrefix(ext, "os.path."):
		v, _ := pathCall(ext, args)
		return v
	case ext == "str.startswith" || ext == "str.endswith":
		if a, ok := arg(0, "prefix"); ok && a.isStr {
			if ext == "str.startswith" {
				return boolean(strings.HasPrefix(f.str, a.str))
			}
			return boolean(strings.HasSuffix(f.str, a.str))
		}
	case ext == "str.lower":
		return str(strings.ToLower(f.str))
	case ext == "str.find":
		if sub, ok := arg(0, "sub"); ok && sub.isStr && len(args) == 1 {
			return number(int64(strings.Index(f.str, sub.str)))
		}
	case ext == "str.partition" || ext == "str.rpartition":
		if sep, ok := arg(0, "sep"); ok && sep.isStr && sep.str != "" {
			i := strings.Index(f.str, sep.str)
			if ext == "str.rpartition" {
				i = strings.LastIndex(f.str, sep.str)
			}
			switch {
			case i >= 0:
				return value{items: []value{str(f.str[:i]), sep, str(f.str[i+len(sep.str):])}, truth: yes}
			case ext == "str.partition":
				return value{items: []value{str(f.str), str(""), str("")}, truth: yes}
			default:
				return value{items: []value{str(""), str(""), str(f.str)}, truth: yes}
			}
		}
	case ext == "str.join":
		// '.'.join((pkg, '_openbabel')): SWIG's module name.
		if seq, ok := arg(0, "iterable"); ok && len(seq.items) > 0 {
			parts := make([]string, len(seq.items))
			for i, it := range seq.items {
				if !it.isStr {
					return value{}
				}
				parts[i] = it.str
			}
			return str(strings.Join(parts, f.str))
		}
	case ext == "str.strip" || ext == "str.lstrip" || ext == "str.rstrip":
		cut, ok := arg(0, "chars")
		if !ok {
			cut = str(" \t\n\r\x0b\x0c")
		}
		if cut.isStr {
			switch ext {
			case "str.lstrip":
				return str(strings.TrimLeft(f.str, cut.str))
			case "str.rstrip":
				return str(strings.TrimRight(f.str, cut.str))
			}
			return str(strings.Trim(f.str, cut.str))
		}
	case ext == "str.replace":
		// gevent's import_c_accel: 'gevent.__hub_local' -> 'gevent._gevent_c_hub_local'.
		old, ok1 := arg(0, "old")
		repl, ok2 := arg(1, "new")
		if _, counted := arg(2, "count"); ok1 && ok2 && old.isStr && repl.isStr && !counted {
			return str(strings.ReplaceAll(f.str, old.str, repl.str))
		}
	case ext == "bool":
		v, _ := arg(0, "")
		return value{truth: v.truth, env: v.env}
	}
	return value{}
}

// openLibrary records a library opened with ctypes.
func (r *reader) openLibrary(fr *frame, p value, global bool) {
	if !p.isStr || p.str == "" {
		r.note(fr, "opens a library whose name etlink cannot evaluate")
		return
	}
	saved := r.fl
	r.fl = flags{global: global, at: fr.site()}
	defer func() { r.fl = saved }()
	if !strings.Contains(p.str, "/") {
		r.step(fr, Step{Name: p.str}) // searched by the loader
		return
	}
	rel := path.Clean(p.str)
	if r.root != "." {
		if !strings.HasPrefix(rel, r.root+"/") {
			r.note(fr, "opens %s, outside the tree read", p.str)
			return
		}
		rel = strings.TrimPrefix(rel, r.root+"/")
	}
	if !r.has(path.Join(r.root, rel)) {
		r.note(fr, "opens %s, which the tree does not hold", p.str)
		return
	}
	r.step(fr, Step{Path: rel})
}

func (r *reader) callFunction(fr *frame, fn *function, args []value, kw map[string]value) value {
	if r.depth >= maxDepth {
		return value{}
	}
	for c := fr; c != nil; c = c.caller {
		if c.fn == fn {
			return value{} // recursion: not followed
		}
	}
	locals := map[string]value{}
	for i, p := range fn.params {
		if v, ok := kw[p]; ok {
			locals[p] = v
		} else if i < len(args) {
			locals[p] = args[i]
		}
	}
	r.depth++
	defer func() { r.depth-- }()
	inner := &frame{mod: fn.mod, locals: locals, caller: fr, fn: fn}
	v, _ := r.runBody(inner, fn.def.block())
	return v
}

// resolveRelative turns a relative import's target into a dotted name,
// from the importing module's name (pkg says whether it is a package).
func resolveRelative(mod string, pkg bool, target string) string {
	level := len(target) - len(strings.TrimLeft(target, "."))
	base := mod
	if !pkg {
		base = parentOf(base)
	}
	for i := 1; i < level; i++ {
		base = parentOf(base)
	}
	rest := target[level:]
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

func parentOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

package analyze

import (
	"archive/zip"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/cachedir"
	"github.com/etlink/etlink/internal/memo"
	"github.com/etlink/etlink/internal/sysfile"
	"github.com/etlink/etlink/pyload"
)

// PythonPlan is what importing the inputs' Python packages opens, read
// from their own sources (pyload): the side's first roots, in the
// packages' order and RTLD_GLOBAL where their code says so.
type PythonPlan struct {
	Roots []Root
	// Alternatives are opened only on a branch the default import does
	// not take (an environment variable set, an except clause): Root.Cond.
	Alternatives []Root
	// Undecided says, as file:line, what the reader could not follow.
	Undecided []string
}

// ReadPythonPlan reads the Python packages of each input directory or
// wheel and maps the libraries their imports open to objs.
func ReadPythonPlan(paths []string, objs []*elfobj.Object) PythonPlan {
	var plan PythonPlan
	for _, p := range paths {
		t, ok := openPlanTree(p)
		if !ok {
			continue
		}
		byRel := t.objects(objs)
		plan.add(readPlans(t.fsys, t.dir, nativesOf(byRel)), byRel)
		t.close()
	}
	return plan
}

// add adds the steps of plans whose objects byRel names (by their path in
// the tree) as roots, or alternatives when a condition opens them.
func (plan *PythonPlan) add(plans []pyload.Plan, byRel map[string]*elfobj.Object) {
	for _, pl := range plans {
		plan.Undecided = append(plan.Undecided, pl.Undecided...)
		for _, s := range pl.Steps {
			r := Root{Global: s.Global, Name: s.Name, Cond: s.Cond, Why: why(s)}
			if s.Path != "" {
				if r.Object = byRel[s.Path]; r.Object == nil {
					continue // not an object read (another Python's module)
				}
			}
			if s.Cond == "" {
				plan.Roots = append(plan.Roots, r)
			} else {
				plan.Alternatives = append(plan.Alternatives, r)
			}
		}
	}
}

// nativesOf is the tree's shared objects for pyload: byRel's paths, sorted.
func nativesOf[T any](byRel map[string]T) []string {
	return slices.Sorted(maps.Keys(byRel))
}

// planAhead is a directory's Python plan read while the shared objects it
// maps to are: pyload is given the files about to be read as the tree's
// natives, and the plan stands when each became an object (plan).
type planAhead struct {
	dir     string
	tree    planTree
	natives []string
	plans   chan []pyload.Plan
}

// readPlanAhead starts reading the Python plan of the directory dir, whose
// objects will be read from the files paths (as elfobj lists them): torch's
// 105 files of Python beside its closure, not after it. nil when dir is no
// directory.
func readPlanAhead(dir string, paths []string) *planAhead {
	t, ok := openPlanTree(dir)
	if !ok || t.wheel {
		return nil
	}
	byRel := map[string]bool{}
	for _, p := range paths {
		if rel, ok := t.rel(p); ok {
			byRel[rel] = true
		}
	}
	a := &planAhead{dir: dir, tree: t, natives: nativesOf(byRel), plans: make(chan []pyload.Plan, 1)}
	go func() { a.plans <- readPlans(t.fsys, t.dir, a.natives) }()
	return a
}

// plan is ReadPythonPlan([]string{a.dir}, objs): the plan read ahead when
// the files it was given are objs' (each file read one object), else one
// read for objs.
func (a *planAhead) plan(objs []*elfobj.Object) PythonPlan {
	if a == nil {
		return PythonPlan{}
	}
	plans := <-a.plans
	byRel := a.tree.objects(objs)
	if !slices.Equal(a.natives, nativesOf(byRel)) {
		return ReadPythonPlan([]string{a.dir}, objs)
	}
	var plan PythonPlan
	plan.add(plans, byRel)
	return plan
}

// planStore remembers plans read from directories (a wheel's are read
// every time): reading torch's is 105 files and 2 MB of source parsed,
// about 35 ms; checking them is a stat each.
var planStore = memo.Open(cachedir.File("pyplan"), 64)

// readPlans is pyload.Read of dir in fsys, remembered when fsys is a
// directory tree (os.DirFS), with every name the reading opened, listed or
// looked for as its witnesses.
func readPlans(fsys fs.FS, dir string, natives []string) []pyload.Plan {
	root, ok := fsys.(dirFS)
	if !ok || memo.Program() == "" {
		return pyload.Read(fsys, dir, natives)
	}
	sorted := slices.Sorted(slices.Values(natives))
	// The question: the tree, the package directory, the natives, and this
	// etlink (another build may read Python otherwise).
	key := strings.Join(append([]string{"pyload plan", memo.Program(), string(root), dir}, sorted...), "\x00")
	var plans []pyload.Plan
	if planStore.Get(key, &plans) {
		return plans
	}
	rec := &recordingFS{dirFS: root}
	plans = pyload.Read(rec, dir, natives)
	paths := make([]string, 0, len(rec.names))
	for n := range rec.names {
		paths = append(paths, filepath.Join(string(root), filepath.FromSlash(n)))
	}
	planStore.Put(key, plans, paths)
	return plans
}

// dirFS is a directory tree for pyload, by its root: its directories
// listed by os.ReadDir and its files read by sysfile.Append, neither
// through an os.File.
type dirFS string

func (d dirFS) Open(name string) (fs.File, error) { return os.DirFS(string(d)).Open(name) }

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.DirFS(string(d)).(fs.ReadDirFS).ReadDir(name)
}

func (d dirFS) AppendFile(name string, buf []byte, limit int) ([]byte, error) {
	if !fs.ValidPath(name) || d == "" {
		return buf, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return sysfile.Append(filepath.Join(string(d), filepath.FromSlash(name)), buf, limit)
}

// recordingFS is a directory tree that notes every name opened, listed or
// read in it.
type recordingFS struct {
	dirFS
	names map[string]bool
}

func (r *recordingFS) note(name string) {
	if r.names == nil {
		r.names = map[string]bool{}
	}
	r.names[name] = true
}

func (r *recordingFS) Open(name string) (fs.File, error) {
	r.note(name)
	return r.dirFS.Open(name)
}

func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.note(name)
	return r.dirFS.ReadDir(name)
}

func (r *recordingFS) AppendFile(name string, buf []byte, limit int) ([]byte, error) {
	r.note(name)
	return r.dirFS.AppendFile(name, buf, limit)
}

// why is a step's evidence: where it was opened, and where RTLD_GLOBAL
// was set.
func why(s pyload.Step) string {
	what := "imported at " + s.At
	switch {
	case s.Module == "" && s.Global:
		what = "opened RTLD_GLOBAL with ctypes at " + s.At
	case s.Module == "":
		what = "opened with ctypes at " + s.At
	case s.Global:
		what += ", RTLD_GLOBAL (set at " + s.Flags + ")"
	}
	if s.Cond != "" {
		what += ", " + s.Cond
	}
	return what
}

// planTree is an input opened for pyload: a directory (read from its
// parent, so that a package given by its own directory is found) or a
// wheel.
type planTree struct {
	fsys   fs.FS
	dir    string // the input in fsys
	wheel  bool
	path   string // the wheel's path, or the directory's parent
	closer func()
}

// openPlanTree opens the input p; ok is false when it is neither a
// directory nor a wheel that opens.
func openPlanTree(p string) (t planTree, ok bool) {
	if strings.HasSuffix(p, ".whl") {
		f, fi, err := datafile.Open(p)
		if err != nil {
			return t, false
		}
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			f.Close()
			return t, false
		}
		return planTree{fsys: zr, dir: ".", wheel: true, path: p, closer: func() { f.Close() }}, true
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return t, false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return t, false
	}
	parent := filepath.Dir(abs)
	return planTree{fsys: dirFS(parent), dir: path.Base(filepath.ToSlash(abs)), path: parent}, true
}

func (t planTree) close() {
	if t.closer != nil {
		t.closer()
	}
}

// objects maps the input's objects of objs by their path in the tree.
func (t planTree) objects(objs []*elfobj.Object) map[string]*elfobj.Object {
	byRel := map[string]*elfobj.Object{}
	for _, o := range objs {
		switch {
		case t.wheel:
			if o.Wheel == t.path && o.Entry != "" {
				byRel[o.Entry] = o
			}
		case o.Wheel != "" || o.Archive != "":
		default:
			if rel, ok := t.rel(o.Path); ok {
				byRel[rel] = o
			}
		}
	}
	return byRel
}

// rel is the path in a directory's tree of the file p, if it lies in it.
func (t planTree) rel(p string) (string, bool) {
	op, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(t.path, op)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// notePlan says what the side's Python import order was read to open,
// and what that reading could not follow.
func (s *Side) notePlan(log Log) {
	n, global := 0, ""
	for _, r := range s.Roots {
		if r.Why == "" {
			continue
		}
		n++
		if r.Global && global == "" {
			global = fmt.Sprintf("; %s RTLD_GLOBAL: %s", baseName(r.Object.Path), r.Why)
		}
	}
	if n > 0 {
		log.Notef("%s: its Python's imports open %d of its libraries first, in their order%s", s.Name, n, global)
	}
	const shown = 3
	for _, u := range s.Undecided[:min(len(s.Undecided), shown)] {
		log.Notef("%s: its Python not followed: %s", s.Name, u)
	}
	if n := len(s.Undecided) - shown; n > 0 {
		log.Notef("%s: its Python not followed in %d more places", s.Name, n)
	}
}

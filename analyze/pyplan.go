package analyze

import (
	"archive/zip"
	"fmt"
	"io/fs"
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
		fsys, dir, byRel, closer := planTree(p, objs)
		if fsys == nil {
			continue
		}
		natives := make([]string, 0, len(byRel))
		for rel := range byRel {
			natives = append(natives, rel)
		}
		for _, pl := range readPlans(fsys, dir, natives) {
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
		if closer != nil {
			closer()
		}
	}
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

// planTree opens an input for pyload: a directory (read from its parent,
// so that a package given by its own directory is found) or a wheel, and
// the input's objects by their path in that tree.
func planTree(p string, objs []*elfobj.Object) (fs.FS, string, map[string]*elfobj.Object, func()) {
	byRel := map[string]*elfobj.Object{}
	if strings.HasSuffix(p, ".whl") {
		f, fi, err := datafile.Open(p)
		if err != nil {
			return nil, "", nil, nil
		}
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil {
			f.Close()
			return nil, "", nil, nil
		}
		for _, o := range objs {
			if o.Wheel == p && o.Entry != "" {
				byRel[o.Entry] = o
			}
		}
		return zr, ".", byRel, func() { f.Close() }
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return nil, "", nil, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", nil, nil
	}
	parent := filepath.Dir(abs)
	for _, o := range objs {
		if o.Wheel != "" || o.Archive != "" {
			continue
		}
		op, err := filepath.Abs(o.Path)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(parent, op); err == nil && !strings.HasPrefix(rel, "..") {
			byRel[filepath.ToSlash(rel)] = o
		}
	}
	return dirFS(parent), path.Base(filepath.ToSlash(abs)), byRel, nil
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

// Package pylocate finds an installed Python package's directory the way
// Python would: by asking an interpreter's import system where it is.
package pylocate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/keepfile"
	"github.com/etlink/etlink/internal/memo"
	"github.com/etlink/etlink/internal/sysfile"
)

// Attempt is one interpreter asked, and what it answered.
type Attempt struct {
	Python string // as named
	Path   string // as found on PATH ("" when not found)
	Err    string // why it gave no answer; "" on success
}

// NotFound lists every attempt when no interpreter could import the package.
type NotFound struct {
	Package  string
	Attempts []Attempt
}

func (e *NotFound) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no Python interpreter finds %s; tried:", e.Package)
	for _, a := range e.Attempts {
		where := a.Python
		if a.Path != "" && a.Path != a.Python {
			where += " (" + a.Path + ")"
		}
		fmt.Fprintf(&b, "\n  %s: %s", where, a.Err)
	}
	b.WriteString("\n  (name an interpreter with --python, or give the package's directory: --with PATH)")
	return b.String()
}

// Result is a located package.
type Result struct {
	Dir     string // the package directory (dirname of pkg.__file__)
	Version string // the installed distribution's version, when it has metadata
	Python  string // the interpreter that answered
	// Executable is that interpreter's program (sys.executable, links
	// resolved): what a pyenv shim or a venv's python3 runs.
	Executable string
	// Skipped are interpreters tried before the one that answered.
	Skipped []Attempt
	// Took is how long the interpreter took to answer; Remembered is true
	// when the answer came from an earlier run (CacheDir) instead, Read
	// when it was read from the interpreter's files (both: read so in an
	// earlier run, which nothing it read has changed since); Started says
	// why the interpreter had to be run (its files could not answer).
	Took       time.Duration
	Remembered bool
	Read       bool
	Started    string
}

// script locates the package exactly as `import pkg` would (the same finders
// and sys.path) without executing it, and prints its directory, the
// interpreter's program and sys.path (what the answer depends on, for the
// cache), NUL-separated (the first two empty when it is not found): importing torch runs seconds of
// initialisation that tells nothing about where its files are. A name that
// is not a package, or is not installed, fails as import would. The
// interpreter's start is most of etlink's wait, so the script imports
// nothing the start has not: importlib.util.find_spec costs a fifth of it in
// imports, and calls the import system's _find_spec (the meta path finders
// over sys.path), which the script calls directly where it exists;
// importlib.metadata alone costs twice the start (see Version).
const script = `import os, sys
try:
    from _frozen_importlib import _find_spec
    spec = _find_spec(sys.argv[1], None)
except ImportError:
    import importlib.util
    spec = importlib.util.find_spec(sys.argv[1])
paths = [os.path.abspath(p) for p in sys.path]
if spec is None or spec.origin is None:
    print("\0".join(["", ""] + paths))
    sys.exit("No module named " + repr(sys.argv[1]))
print("\0".join([os.path.dirname(os.path.abspath(spec.origin)), sys.executable] + paths))`

// versionScript asks the interpreter's importlib.metadata for the installed
// distribution's version; it prints an empty line when there is none.
const versionScript = `import importlib.metadata, sys
try:
    print(importlib.metadata.version(sys.argv[1]))
except Exception:
    print("")`

// Timeout bounds one interpreter's answer.
var Timeout = time.Minute

// defaultPythons are the interpreters Find and Guess ask when given none.
var defaultPythons = []string{"python3", "/usr/bin/python3"}

// Find asks the interpreters where pkg (a top-level package name) is and
// returns the answer of the first one, in the order given, that finds it.
// With pythons empty it asks "python3" on PATH, then /usr/bin/python3 (a
// distribution's torch is importable only by the system interpreter when a
// pyenv or venv python3 comes first on PATH).
func Find(pkg string, pythons ...string) (*Result, error) {
	if len(pythons) == 0 {
		pythons = defaultPythons
	}
	// Ask every interpreter at once (a pyenv shim takes a third of a second
	// to fail) and keep the answer of the first in order of preference;
	// an answer remembered from an earlier run (CacheDir) is not asked
	// again while what it depended on is unchanged.
	type answer struct {
		a        Attempt
		dir, exe string
		version  string // remembered with the answer
		asked    bool
		took     time.Duration
		cached   bool
		read     bool   // answered from the interpreter's files
		started  string // why the interpreter is run
		key      string
		sysPath  []string // what a fresh answer depends on; nil for a bare one, not remembered
	}
	answers := make([]answer, len(pythons))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i, py := range pythons {
		an := &answers[i]
		an.a = Attempt{Python: py}
		p, err := exec.LookPath(py)
		if err != nil {
			an.a.Err = "not found"
			continue
		}
		an.a.Path = p
		if seen[p] {
			continue // the same interpreter under another name
		}
		seen[p] = true
		an.asked = true
		ans, remembered, err := readRemembered(py, p, pkg)
		var why *unreadable
		if !errors.As(err, &why) {
			an.read, an.cached, an.dir, an.exe, an.version = true, remembered, ans.Dir, ans.Exe, ans.Version
			if err == nil && ans.Dir == "" {
				err = fmt.Errorf("No module named '%s' (read from its files)", pkg)
			}
			if err != nil {
				an.a.Err = err.Error()
				continue
			}
			break // an answer: no interpreter after it can be preferred
		}
		an.started, an.key = why.reason, cacheKey(pkg, p) // its run is remembered with sys.path as witnesses
		if r := findRecord(an.key); r != nil {
			an.dir, an.exe, an.version, an.a.Err, an.cached = r.Dir, r.Exe, r.Version, r.Err, true
			if r.Err == "" {
				break // an answer: no interpreter after it can be preferred
			}
			continue
		}
		wg.Go(func() {
			start := time.Now()
			out, err := ask(p, script, pkg)
			an.took = time.Since(start)
			parts := strings.Split(out, "\x00")
			if len(parts) >= 3 {
				an.sysPath = parts[2:] // else an interpreter that is not the script's
			}
			dir, exe := parts[0], ""
			if len(parts) > 1 {
				exe = parts[1]
			}
			if err == nil && !filepath.IsAbs(dir) {
				err = fmt.Errorf("unexpected answer %q (want the package's directory)", out)
			}
			if err != nil {
				an.a.Err = err.Error()
				return
			}
			an.dir, an.exe = dir, exe
		})
	}
	wg.Wait()
	var res *Result
	var tried []Attempt
	var fresh []*record
	for i := range answers {
		an := &answers[i]
		found := an.a.Err == "" && an.asked
		keep := an.sysPath != nil && an.a.Err != "" // a fresh failure
		if found && !an.cached && !an.read {
			var beside bool
			an.version, beside = Version(an.dir, pkg)
			if !beside && res == nil {
				// Not beside the package: only the interpreter's own
				// search of sys.path can say (a failure leaves it unknown).
				an.version, _ = ask(an.a.Path, versionScript, pkg)
				beside = true
			}
			// An answer after the one used is remembered only with a
			// version it cost no interpreter to know.
			keep = an.sysPath != nil && beside
		}
		if keep {
			fresh = append(fresh, &record{Key: an.key, Dir: an.dir, Exe: an.exe, Version: an.version, Err: an.a.Err,
				Witnesses: witnesses(an.a.Path, pkg, an.sysPath)})
		}
		switch {
		case res != nil:
		case found:
			res = &Result{Dir: an.dir, Version: an.version, Python: an.a.Path, Executable: resolve(an.exe), Skipped: tried,
				Took: an.took, Remembered: an.cached, Read: an.read, Started: an.started}
		case an.a.Err != "":
			tried = append(tried, an.a)
		}
	}
	remember(fresh...)
	if res == nil {
		return nil, &NotFound{Package: pkg, Attempts: tried}
	}
	return res, nil
}

// executableScript prints the interpreter's program.
const executableScript = `import sys
print(sys.executable)`

// Interpreter returns the program of the first interpreter among pythons
// (python3 on PATH, then /usr/bin/python3, when none is given), links
// resolved: the executable whose DT_NEEDED closure is a Python process's
// global scope. A candidate that is an ELF file is read as it is; one that
// is a script (a pyenv shim, a wrapper) is asked for sys.executable only
// when named explicitly, since starting it can cost a third of a second.
func Interpreter(pythons ...string) (string, error) {
	explicit := len(pythons) > 0
	if !explicit {
		pythons = defaultPythons
	}
	var errs []string
	for _, py := range pythons {
		p, err := exec.LookPath(py)
		if err != nil {
			errs = append(errs, py+": not found")
			continue
		}
		p = resolve(p)
		if elfobj.IsELFFile(p) {
			return p, nil
		}
		if !explicit {
			errs = append(errs, py+": a script, not the interpreter itself")
			continue
		}
		exe, err := ask(p, executableScript, "")
		if err != nil {
			errs = append(errs, py+": "+err.Error())
			continue
		}
		if exe = resolve(exe); elfobj.IsELFFile(exe) {
			return exe, nil
		}
		errs = append(errs, fmt.Sprintf("%s: sys.executable %q is not an ELF program", py, exe))
	}
	return "", fmt.Errorf("no Python interpreter to read: %s", strings.Join(errs, "; "))
}

// resolve makes p absolute with its links resolved; p as it is on failure.
func resolve(p string) string {
	if p == "" {
		return ""
	}
	p = absPath(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// ask runs a script with pkg as its argument and returns the last line it
// printed (packages may print on import), also when it failed.
func ask(python, script, pkg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", script, pkg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := strings.TrimSuffix(stdout.String(), "\n")
	out = out[strings.LastIndex(out, "\n")+1:]
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("locating %s timed out after %s", pkg, Timeout)
		}
		return out, errors.New(lastLine(stderr.String(), err.Error()))
	}
	return out, nil
}

func lastLine(s, fallback string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback
	}
	return s[strings.LastIndex(s, "\n")+1:]
}

// PackageFiles lists what a binary Python package ships for the loader: its
// lib/ directory (torch/lib: libtorch_cpu.so, ...) and its extension modules
// anywhere in the package. Test executables and data files are left out.
//
// The listing is remembered in CacheDir with every directory walked as a
// witness: a name added, removed or renamed in a directory changes its
// modification time, each as the walk found it (stat'd once open, before
// its entries were read). Walking torch's 140 directories costs four
// system calls each, checking them one. A directory modified in the last
// keepfile.Racy (whose next change may keep the same time stamp, as git's
// "racy" index entries) keeps the listing from being remembered.
func PackageFiles(dir string) ([]string, error) {
	store, key := memo.Open(CacheDir, maxRecords), filesKey(dir)
	var rel []string // relative to dir: dir may be given another way next time
	if store.Get(key, &rel) {
		out := make([]string, len(rel))
		for i, f := range rel {
			out[i] = filepath.Join(dir, f)
		}
		return out, nil
	}
	out, walked, err := walkPackage(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range out {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			return out, nil
		}
		rel = append(rel, r)
	}
	racy := clock().Add(-keepfile.Racy).UnixNano()
	for _, w := range walked {
		if !w.Exists || w.Mtime > racy || w.Changed > racy {
			return out, nil
		}
	}
	store.PutWitnessed(key, rel, walked)
	return out, nil
}

// walkPackage is PackageFiles' walk, and the directories it read: what
// filepath.WalkDir would visit, in its order (a directory's entries by
// name), each directory read with sysfile.Scan into one buffer and only
// the entries kept (directories, extension modules) made strings and
// sorted: torch's 140 directories hold 3,000 entries.
func walkPackage(dir string) (out []string, walked []memo.Witness, err error) {
	w := walker{lib: filepath.Join(dir, "lib")}
	if fi, err := os.Stat(w.lib); err == nil && fi.IsDir() {
		w.out = append(w.out, w.lib)
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return nil, nil, err
	case fi.IsDir() && fi.Name() != "__pycache__":
		if err := w.walk(dir); err != nil {
			return nil, nil, err
		}
	case !fi.IsDir() && IsExtensionName(fi.Name()):
		w.out = append(w.out, dir)
	}
	if len(w.out) == 0 {
		return nil, nil, fmt.Errorf("%s: no lib/ directory and no extension modules", dir)
	}
	return w.out, w.walked, nil
}

// walker is one walkPackage.
type walker struct {
	lib    string
	out    []string
	walked []memo.Witness
	buf    []byte
	kept   []kept // the entries of the directories being walked
}

// kept is an entry walk keeps: a directory to walk, or an extension module.
type kept struct {
	name string
	dir  bool
}

// walk walks the directory p.
func (w *walker) walk(p string) error {
	from := len(w.kept)
	info, buf, err := sysfile.Scan(p, w.buf, func(name []byte, typ fs.FileMode) {
		// __pycache__ holds bytecode only: the import system never loads
		// an extension module from it. Half of torch's directories are
		// such caches.
		if typ.IsDir() && string(name) != "__pycache__" || !typ.IsDir() && bytes.HasSuffix(name, []byte(".so")) && IsExtensionName(string(name)) {
			w.kept = append(w.kept, kept{string(name), typ.IsDir()})
		}
	})
	w.buf = buf
	defer func() { w.kept = w.kept[:from] }()
	if err != nil {
		return err
	}
	w.walked = append(w.walked, memo.WitnessOfInfo(p, info))
	slices.SortFunc(w.kept[from:], func(a, b kept) int { return strings.Compare(a.name, b.name) })
	for i := from; i < len(w.kept); i++ {
		e := w.kept[i]
		child := filepath.Join(p, e.name)
		switch {
		case !e.dir:
			w.out = append(w.out, child)
		case child != w.lib:
			if err := w.walk(child); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExtensionTag returns the CPython version an extension module's file name
// is tagged for ("311" for name.cpython-311-x86_64-linux-gnu.so), or ""
// for a name any version imports (name.abi3.so) or that is no module's.
func ExtensionTag(name string) string {
	_, rest, ok := strings.Cut(name, ".cpython-")
	if !ok || !strings.HasSuffix(name, ".so") {
		return ""
	}
	tag, _, _ := strings.Cut(rest, "-")
	return tag
}

// IsExtensionName reports whether a file name is an extension module's:
// name.cpython-311-x86_64-linux-gnu.so or name.abi3.so.
func IsExtensionName(name string) bool {
	return strings.HasSuffix(name, ".so") && (strings.Contains(name, ".cpython-") || strings.HasSuffix(name, ".abi3.so"))
}

// Version reads the version of the distribution named pkg from the metadata
// installed beside its package directory (site-packages/pkg-1.0.dist-info/
// METADATA, or an .egg-info directory's PKG-INFO, or an .egg-info file), as
// importlib.metadata would find it in the same sys.path entry. ok is false
// when there is no such metadata, or more than one candidate (which of them
// Python reads depends on sys.path order: ask it).
func Version(dir, pkg string) (version string, ok bool) {
	return newReading().versionAmong(filepath.Dir(dir), pkg)
}

// versionAmong is Version of the package in the directory parent.
func (r *reading) versionAmong(parent, pkg string) (version string, ok bool) {
	var found string
	for _, n := range r.names(parent) {
		stem, isDist := strings.CutSuffix(n, ".dist-info")
		if !isDist {
			var isEgg bool
			if stem, isEgg = strings.CutSuffix(n, ".egg-info"); !isEgg {
				continue
			}
		}
		name, _, _ := strings.Cut(stem, "-")
		if normalize(name) != normalize(pkg) {
			continue
		}
		if found != "" {
			return "", false
		}
		found = filepath.Join(parent, n)
	}
	if found == "" {
		return "", false
	}
	meta := found // an .egg-info file is the metadata itself
	if r.isDir(found) {
		meta = filepath.Join(found, "METADATA")
		if strings.HasSuffix(found, ".egg-info") {
			meta = filepath.Join(found, "PKG-INFO")
		}
	}
	data, err := r.readFile(meta, datafile.SmallText)
	if err != nil {
		return "", false
	}
	// RFC 822 headers, up to the first empty line.
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// normalize is the distribution-name comparison of PEP 503: case and runs
// of "-", "_" and "." do not matter.
func normalize(name string) string {
	var b strings.Builder
	sep := false
	for _, r := range strings.ToLower(name) {
		if r == '-' || r == '_' || r == '.' {
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('-')
		}
		sep = false
		b.WriteRune(r)
	}
	return b.String()
}

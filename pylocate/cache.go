package pylocate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/cachedir"
	"github.com/etlink/etlink/internal/keepfile"
	"github.com/etlink/etlink/internal/memo"
)

// CacheDir is where Find remembers interpreters' answers between runs
// (and PackageFiles its listings), a file per question (its key, .json):
// $ETLINK_CACHE_DIR, else $XDG_CACHE_HOME/etlink, else ~/.cache/etlink,
// directory pylocate; "" (ETLINK_CACHE_DIR=off) remembers nothing. A run
// reads the answers to its own questions only, whatever else was asked on
// the machine.
//
// Starting an interpreter is most of a conflicts run, and a pyenv shim
// that cannot import the package costs a third of a second before the
// next interpreter's answer counts. An answer is reused only while
// everything it depended on is as it was: the question (package, the
// interpreter as found on PATH, the working directory, the environment
// variables Python and the usual shims read) is the key, and the answer
// holds witnesses, checked before it is used: the interpreter's file,
// every sys.path entry (the names in it an import of the package could
// take: the package's name as a prefix, and .pth files) and the .pth files
// themselves (a .pth file can add finders), and a .python-version in the
// working directory or a parent, and pyenv's version file (what a pyenv
// shim reads to choose the interpreter it runs). A witness that changed
// means the interpreter is asked again. An answer read from the
// interpreter's files is kept here too (readRemembered), with every path
// the reading touched as its witnesses.
var CacheDir = cachedir.File("pylocate")

// keyEnv are the environment variables an interpreter's answer (or a
// shim's choice of interpreter) may depend on, beside every PYTHON*.
var keyEnv = []string{"PATH", "HOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_VERSION", "PYENV_ROOT", "PYENV_DIR", "PYENV_HOOK_PATH", "LD_LIBRARY_PATH"}

// keyed reports whether the environment variable name is part of
// cacheKey's question.
func keyed(name string) bool {
	return strings.HasPrefix(name, "PYTHON") || slices.Contains(keyEnv, name)
}

// maxRecords bounds the directory: the most recently stored answers are
// kept.
const maxRecords = 64

// witness is a file or directory as it was when an answer was given
// (memo.Witness), or, for a directory on sys.path, the names in it an
// import of the package could take (Prefix: the package's name, and the
// .pth files), so that unrelated files coming and going in a busy working
// directory do not count: its Changed is then the directory's change time
// when its names were taken (0 when it changed within keepfile.Racy of
// that), and while it is the same no name in it was added, removed or
// renamed, and it is not listed.
type witness struct {
	memo.Witness
	Prefix string `json:"prefix,omitempty"`
	Names  string `json:"names,omitempty"`
}

func witnessOf(p string) witness { return witness{Witness: memo.WitnessOf(p)} }

// witnessEntries is the witness of a sys.path entry: a directory by the
// names in it that start with prefix or end in .pth (a hash of them), a
// zip or anything else by witnessOf.
func witnessEntries(p, prefix string) witness {
	changed := memo.ChangeTime(p)
	entries, err := os.ReadDir(p)
	if err != nil {
		return witnessOf(p)
	}
	h := sha256.New()
	for _, e := range entries { // sorted by name
		if n := e.Name(); strings.HasPrefix(n, prefix) || strings.HasSuffix(n, ".pth") {
			h.Write([]byte(n + "\x00"))
		}
	}
	w := witness{Witness: memo.Witness{Path: p, Exists: true}, Prefix: prefix, Names: hex.EncodeToString(h.Sum(nil))}
	if changed != 0 && changed < clock().Add(-keepfile.Racy).UnixNano() && memo.ChangeTime(p) == changed {
		w.Changed = changed
	}
	return w
}

// now is the witness as p stands now, taken as w was: w itself when a
// directory holds the names it held (unchanged since, or listed again).
func (w witness) now() witness {
	if w.Prefix == "" {
		return witnessOf(w.Path)
	}
	if w.Changed != 0 && memo.ChangeTime(w.Path) == w.Changed {
		return w
	}
	if n := witnessEntries(w.Path, w.Prefix); n.Exists != w.Exists || n.Names != w.Names {
		return n
	}
	return w
}

// clock is what the racy rule reads (tests move it on).
var clock = time.Now

// record is one remembered answer: the package's directory and the
// interpreter's program, or why it could not import the package.
type record struct {
	Key       string    `json:"key"`
	Dir       string    `json:"dir,omitempty"`
	Exe       string    `json:"exe,omitempty"`
	Version   string    `json:"version,omitempty"`
	Err       string    `json:"err,omitempty"`
	Witnesses []witness `json:"witnesses"`
	Used      int64     `json:"used"`
}

func (r *record) valid() bool {
	for _, w := range r.Witnesses {
		if w.now() != w {
			return false
		}
	}
	return true
}

// recordVersion changes when the witnesses an answer holds do: an answer
// remembered before is asked again, once, and remembered with them.
const recordVersion = "witnesses with inodes"

// cacheKey is the question an answer is to: the package and the
// interpreter's path as found, in this directory and environment.
func cacheKey(pkg, python string) string {
	h := sha256.New()
	wd, _ := os.Getwd()
	for _, s := range []string{recordVersion, pkg, python, wd} {
		h.Write([]byte(s + "\x00"))
	}
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); keyed(name) {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	for _, kv := range env {
		h.Write([]byte(kv + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// readAnswer is an answer read from an interpreter's files (fromFiles').
type readAnswer struct {
	Dir     string `json:"dir,omitempty"` // "": the interpreter cannot import the package
	Exe     string `json:"exe"`
	Version string `json:"version,omitempty"`
}

// readKey is the question an answer read from files is to: cacheKey's
// (the package, the interpreter as found on PATH, the working directory,
// the environment), the interpreter as named, the user (site.py enables
// the user's site directory by the process's ids), and this etlink (the
// reading's rules are its build's); "" when this etlink cannot be named.
func readKey(pkg, named, path string) string {
	if memo.Program() == "" {
		return ""
	}
	return fmt.Sprintf("read from files\x00%s\x00%s\x00%s\x00%d %d %d %d", memo.Program(), cacheKey(pkg, path), named,
		os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid())
}

// readRemembered is fromFiles' answer, remembered in CacheDir with what
// the reading depended on (reading's witnesses) and given again while
// none of it changed: reading Debian's dist-packages and site.py is a few
// milliseconds, checking the hundred paths it read a tenth of that. An
// answer that needs the interpreter started (*unreadable) is not kept
// here (Find keeps the interpreter's).
func readRemembered(named, path, pkg string) (ans readAnswer, remembered bool, err error) {
	store, key := memo.Open(CacheDir, maxRecords), readKey(pkg, named, path)
	if key != "" && store.Get(key, &ans) {
		return ans, true, nil
	}
	r := newReading()
	ans.Dir, ans.Exe, ans.Version, err = r.fromFiles(path, pkg)
	if err == nil && key != "" {
		paths, links := r.witnesses()
		store.PutLinks(key, ans, paths, links)
	}
	return ans, false, err
}

// filesKey is the key of PackageFiles' listing of dir.
func filesKey(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	h := sha256.Sum256([]byte("package files\x00" + abs))
	return hex.EncodeToString(h[:])
}

// witnesses lists what python's answer about pkg, given with sys.path
// paths, depends on.
func witnesses(python, pkg string, paths []string) []witness {
	var out []witness
	seen := map[string]bool{}
	add := func(p string, w func() witness) {
		if !seen[p] {
			seen[p] = true
			out = append(out, w())
		}
	}
	file := func(p string) { add(p, func() witness { return witnessOf(p) }) }
	file(python)
	if real, err := filepath.EvalSymlinks(python); err == nil {
		file(real)
	}
	for _, p := range paths {
		add(p, func() witness { return witnessEntries(p, pkg) })
		pths, _ := filepath.Glob(filepath.Join(p, "*.pth"))
		for _, pth := range pths {
			file(pth)
		}
	}
	// What a pyenv shim reads to choose the interpreter it runs: a
	// .python-version in the working directory or a parent, else pyenv's
	// version file.
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			file(filepath.Join(d, ".python-version"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		if home, err := os.UserHomeDir(); err == nil {
			root = filepath.Join(home, ".pyenv")
		}
	}
	if root != "" {
		file(filepath.Join(root, "version"))
	}
	return out
}

// recordFile is where the answer to key is kept.
func recordFile(key string) string { return filepath.Join(CacheDir, key+".json") }

// findRecord returns the remembered answer to key while it is valid. A
// file that is not one (broken, another key) is no answer.
func findRecord(key string) *record {
	if CacheDir == "" {
		return nil
	}
	data, err := datafile.ReadFile(recordFile(key), 16<<20)
	if err != nil {
		return nil
	}
	var r record
	if json.Unmarshal(data, &r) != nil || r.Key != key || !r.valid() {
		return nil
	}
	return &r
}

// remember stores records, each replacing the answer to its key, and
// drops the oldest past maxRecords; a cache that cannot be written is no
// error (the next run asks again).
func remember(recs ...*record) {
	if CacheDir == "" || len(recs) == 0 {
		return
	}
	now := time.Now().UnixNano()
	for _, r := range recs {
		r.Used = now
		data, err := json.Marshal(r)
		if err != nil || keepfile.Write(recordFile(r.Key), data) != nil {
			return
		}
	}
	keepfile.Trim(CacheDir, maxRecords)
}

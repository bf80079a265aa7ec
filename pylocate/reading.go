package pylocate

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/elfobj"
)

// reading is one answer read from an interpreter's files, and the files
// it depends on: every path it stat'd, listed, read or found absent (a
// directory listed by its own stat, whose times change when a name in it
// is added, removed or renamed), and every symbolic link it resolved. The
// from-files path reaches the file system and the environment through it
// only (TestReadingSeesEveryAccess holds it to that), so that what an
// answer depends on is what it read, not a list kept beside the code; the
// environment variables it consults are in the answer's key (readKey).
type reading struct {
	paths map[string]bool
	links map[string]bool
	// listed are the names in each directory listed so far, sorted (nil
	// for one that cannot be listed): a site directory is listed once a
	// reading, however many modules are looked for in it.
	listed map[string][]string
}

func newReading() *reading {
	return &reading{paths: map[string]bool{}, links: map[string]bool{}, listed: map[string][]string{}}
}

// witnesses are the paths (followed) and links (by themselves) read.
func (r *reading) witnesses() (paths, links []string) {
	return slices.Collect(maps.Keys(r.paths)), slices.Collect(maps.Keys(r.links))
}

// getenv is the variable name, one of those the answer's key holds
// (keyed: TestReadingSeesEveryAccess).
func (r *reading) getenv(name string) string { return os.Getenv(name) }

func (r *reading) stat(p string) (fs.FileInfo, error) {
	r.paths[p] = true
	return os.Stat(p)
}

// isFile reports whether p names a regular file (links followed).
func (r *reading) isFile(p string) bool {
	fi, err := r.stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// isDir reports whether p names a directory (links followed).
func (r *reading) isDir(p string) bool {
	fi, err := r.stat(p)
	return err == nil && fi.IsDir()
}

func (r *reading) readFile(p string, limit int64) ([]byte, error) {
	r.paths[p] = true
	return datafile.ReadFile(p, limit)
}

func (r *reading) isELF(p string) bool {
	r.paths[p] = true
	return elfobj.IsELFFile(p)
}

func (r *reading) isExecutable(p string) bool {
	r.paths[p] = true
	_, err := exec.LookPath(p)
	return err == nil
}

// names lists dir once a reading.
func (r *reading) names(dir string) []string {
	names, ok := r.listed[dir]
	if !ok {
		r.paths[dir] = true
		if f, err := os.Open(dir); err == nil {
			names, _ = f.Readdirnames(-1)
			f.Close()
			slices.Sort(names)
		}
		r.listed[dir] = names
	}
	return names
}

// withPrefix are the names in dir that start with prefix.
func (r *reading) withPrefix(dir, prefix string) []string {
	names := r.names(dir)
	i, _ := slices.BinarySearch(names, prefix)
	j := i
	for j < len(names) && strings.HasPrefix(names[j], prefix) {
		j++
	}
	return names[i:j]
}

// maxLinks bounds the links one path resolves through (Linux's 40).
const maxLinks = 40

// resolve is the package's resolve (p absolute, links resolved; as it is
// when that fails), each link on the way a witness by itself: what an
// answer names (the program, a venv's home) is the path a link leads to,
// not only the file there. It walks p a name at a time as
// filepath.EvalSymlinks does, ".." taken from the directory reached.
func (r *reading) resolve(p string) string {
	if p == "" {
		return ""
	}
	p = absPath(p)
	done, rest := "/", strings.Split(p, "/")
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		fi, err := os.Lstat(next)
		if err != nil {
			r.paths[next] = true // absent: created, it may resolve
			return p
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		r.links[next] = true
		target, err := os.Readlink(next)
		if hops++; err != nil || hops > maxLinks {
			return p
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	r.paths[done] = true
	return done
}

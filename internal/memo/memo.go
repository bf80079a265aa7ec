// Package memo remembers a value computed from files, with those files as
// witnesses: the value is answered again only while every witness is as it
// was (the same inode, size, modification and change times, or still
// absent), so a changed input is never answered from memory. It is the
// session's store for what costs more to compute than to check (a
// package's Python import plan: a hundred files parsed, checked with a
// hundred stat calls).
package memo

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/keepfile"
)

// Store is a directory of records, one file per key; the zero Store (no
// directory: ETLINK_CACHE_DIR=off) remembers nothing.
type Store struct {
	dir string
	max int
}

// Open is the store in dir, keeping the max most recently written records.
func Open(dir string, max int) *Store { return &Store{dir: dir, max: max} }

// Witness is a file or directory as it was when a value was computed from
// it: what a later run compares (WitnessOf) before it answers from memory.
// A Link witness is a symbolic link itself (LinkWitnessOf), not what it
// leads to: two links to one file (a hard link under two names) stat the
// same, but a value that names the path a link resolves to differs.
type Witness struct {
	Path    string `json:"path"`
	Link    bool   `json:"link,omitempty"`
	Exists  bool   `json:"exists,omitempty"`
	Ino     uint64 `json:"ino,omitempty"`
	Size    int64  `json:"size,omitempty"`
	Mtime   int64  `json:"mtime,omitempty"`
	Changed int64  `json:"changed,omitempty"`
}

// ChangeTime is p's change time (0 when there is no p, or the system
// keeps none).
func ChangeTime(p string) int64 { return WitnessOf(p).Changed }

// WitnessOf is p as it is now.
func WitnessOf(p string) Witness { return statWitness(p, false) }

// WitnessOfInfo is p as fi says it is: a stat of p (followed) just taken,
// by whoever had it open already.
func WitnessOfInfo(p string, fi fs.FileInfo) Witness {
	ino, changed := inodeAndChange(fi)
	return Witness{Path: p, Exists: true, Ino: ino, Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Changed: changed}
}

// LinkWitnessOf is p as it is now, not followed if it is a link: a link
// retargeted is another file (ln -sf makes a new one).
func LinkWitnessOf(p string) Witness { return statWitness(p, true) }

// now is the witness's path as it is now, taken as w was.
func (w Witness) now() Witness {
	if w.Link {
		return LinkWitnessOf(w.Path)
	}
	return WitnessOf(w.Path)
}

// Program is this program's identity (its path, size and modification
// time), "" when it cannot be read: part of the key of a value computed by
// rules another build may change.
var Program = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
})

// file is where key's record is kept.
func (s *Store) file(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir, hex.EncodeToString(h[:])+".json")
}

// Get fills v with the value remembered for key and reports whether there
// is one whose witnesses are all unchanged. A record that cannot be read
// or decoded is no answer.
func (s *Store) Get(key string, v any) bool {
	if s == nil || s.dir == "" {
		return false
	}
	data, err := datafile.ReadFile(s.file(key), 64<<20)
	if err != nil {
		return false
	}
	r, ok := decodeRecord(data, key)
	if !ok {
		return false
	}
	for _, w := range r.Witnesses {
		if w.now() != w {
			return false
		}
	}
	return json.Unmarshal(r.Value, v) == nil
}

// Put remembers v for key with paths (files read, directories listed,
// names looked for and not found) as its witnesses. Nothing is kept when a
// witness changed within keepfile.Racy (its next change may keep the same
// times) or the store cannot be written: the next run computes it again.
func (s *Store) Put(key string, v any, paths []string) { s.PutLinks(key, v, paths, nil) }

// PutLinks is Put with links, symbolic links followed in computing v, as
// witnesses too, each by itself (LinkWitnessOf).
func (s *Store) PutLinks(key string, v any, paths, links []string) {
	if s == nil || s.dir == "" {
		return
	}
	r := record{Key: key}
	racy := time.Now().Add(-keepfile.Racy).UnixNano()
	slices.Sort(paths)
	slices.Sort(links)
	paths, links = slices.Compact(paths), slices.Compact(links)
	for _, set := range []struct {
		paths []string
		of    func(string) Witness
	}{{paths, WitnessOf}, {links, LinkWitnessOf}} {
		for _, p := range set.paths {
			w := set.of(p)
			if w.Mtime > racy || w.Changed > racy {
				return
			}
			// A name not found in a directory that is a (followed) witness
			// too is left to it: a name added to a directory changes the
			// directory's times (and nothing can appear under a file, or
			// under what is absent). Torch's import plan looks for 133
			// names that are not there.
			if _, parent := slices.BinarySearch(paths, filepath.Dir(p)); parent && !w.Exists {
				continue
			}
			r.Witnesses = append(r.Witnesses, w)
		}
	}
	s.write(&r, v)
}

// PutWitnessed remembers v for key with witnesses the caller took itself
// (each stat'd before what it witnesses was read) and found settled
// (unchanged within keepfile.Racy).
func (s *Store) PutWitnessed(key string, v any, witnesses []Witness) {
	if s != nil && s.dir != "" {
		s.write(&record{Key: key, Witnesses: witnesses}, v)
	}
}

// write keeps r with v as its value.
func (s *Store) write(r *record, v any) {
	var err error
	if r.Value, err = json.Marshal(v); err != nil {
		return
	}
	if keepfile.Write(s.file(r.Key), r.encode()) != nil {
		return
	}
	keepfile.Trim(s.dir, s.max)
}

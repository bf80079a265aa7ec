// Package keepfile is how a file etlink keeps between runs is written
// (Write: whole, atomically) and how recent a change to a file it
// describes is too recent to remember (Racy). Where such a file lives,
// and whether there is one, is the session's choice (analyze, through
// internal/cachedir): a reader that keeps a file (elfobj's library index)
// is handed its path and writes it with this.
package keepfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Racy is how recent a change to a file or directory keeps its time
// stamps from standing for its content: its next change, within the file
// system's time stamp granularity, could keep them (as git's "racy" index
// entries). What changed within Racy is not remembered.
const Racy = 2 * time.Second

// Write replaces the file at path with data atomically (a reader sees
// the old file or the new one), making its directory; a file left half
// written by a failure is removed.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// Trim removes the .json records in dir written longest ago, past the keep
// most recent (a store of one file per question stays bounded).
func Trim(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type written struct {
		name string
		at   time.Time
	}
	var recs []written
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			recs = append(recs, written{e.Name(), info.ModTime()})
		}
	}
	if len(recs) <= keep {
		return
	}
	slices.SortFunc(recs, func(a, b written) int { return b.at.Compare(a.at) })
	for _, r := range recs[keep:] {
		os.Remove(filepath.Join(dir, r.name))
	}
}

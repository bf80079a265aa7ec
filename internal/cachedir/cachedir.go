// Package cachedir says where etlink keeps what it remembers between runs
// (pylocate's answers, the library index): ETLINK_CACHE_DIR ("off" for
// nowhere), else $XDG_CACHE_HOME/etlink, else ~/.cache/etlink.
package cachedir

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

// File is name in the cache directory, or "" when caching is off or there
// is no home to hold it.
func File(name string) string {
	dir := os.Getenv("ETLINK_CACHE_DIR")
	switch {
	case dir == "off":
		return ""
	case dir != "":
	case os.Getenv("XDG_CACHE_HOME") != "":
		dir = filepath.Join(os.Getenv("XDG_CACHE_HOME"), "etlink")
	default:
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".cache", "etlink")
	}
	return filepath.Join(dir, name)
}

// WriteFile replaces the file at path with data atomically (a reader sees
// the old file or the new one), making its directory; a file left half
// written by a failure is removed.
func WriteFile(path string, data []byte) error {
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
// most recent.
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

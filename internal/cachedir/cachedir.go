// Package cachedir says where etlink keeps what it remembers between runs
// (pylocate's answers, the library index): ETLINK_CACHE_DIR ("off" for
// nowhere), else $XDG_CACHE_HOME/etlink, else ~/.cache/etlink. The
// sessions that keep something choose it here (analyze); how a kept file
// is written is internal/keepfile's.
package cachedir

import (
	"os"
	"path/filepath"
)

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

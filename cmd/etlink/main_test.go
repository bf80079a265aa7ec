package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/etlink/etlink/pylocate"
)

// TestMain keeps what the commands remember between runs (the library
// index, Python's answers) in a directory of the suite's own, unless
// ETLINK_CACHE_DIR names one (to measure a cold run against a warm one):
// the user's cache is never written, nor read. It removes that directory
// and the binary etlinkBinary built (10 MB a run) at the end.
func TestMain(m *testing.M) {
	var dir string
	if os.Getenv("ETLINK_CACHE_DIR") == "" {
		var err error
		if dir, err = os.MkdirTemp("", "etlink-cache-"); err != nil {
			panic(err)
		}
		os.Setenv("ETLINK_CACHE_DIR", dir)                 // for the run's index and the binaries the tests start
		pylocate.CacheDir = filepath.Join(dir, "pylocate") // set from the environment before TestMain
	}
	code := m.Run()
	if dir != "" {
		os.RemoveAll(dir)
	}
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

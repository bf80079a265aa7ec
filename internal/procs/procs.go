// Package procs runs a command on one processor until it reads: a warm
// conflicts or check run is lookups through the library index, and a
// second processor cost more than it saved there (threads spinning for
// work handed between goroutines). A read widens it back: a library the
// index cannot answer, no index at all, inputs of many megabytes read in
// full.
package procs

import (
	"os"
	"runtime"
	"sync"
)

var (
	mu     sync.Mutex
	narrow int // GOMAXPROCS before Narrow; 0 when not narrowed
)

// Narrow sets GOMAXPROCS to 1 until Widen, unless the environment sets
// GOMAXPROCS.
func Narrow() {
	if os.Getenv("GOMAXPROCS") != "" {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if narrow == 0 {
		narrow = runtime.GOMAXPROCS(1)
	}
}

// Widen gives GOMAXPROCS back what Narrow took; after it (or without
// Narrow) it does nothing.
func Widen() {
	mu.Lock()
	defer mu.Unlock()
	if narrow != 0 {
		runtime.GOMAXPROCS(narrow)
		narrow = 0
	}
}

// Max is the processors the work may use once widened: the GOMAXPROCS
// Narrow took, or the present one.
func Max() int {
	mu.Lock()
	defer mu.Unlock()
	if narrow != 0 {
		return narrow
	}
	return runtime.GOMAXPROCS(0)
}

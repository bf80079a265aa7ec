// Package gcdefer is a run's memory plan: the garbage collector held back
// until the run has allocated enough for a collection to pay, and the heap
// it allocates in put on transparent huge pages first.
//
// A conflicts or check run allocates 10 to 40 MB (torch's closure read
// cold, or a wheel with thousands of conflicts) and keeps most of it to
// the end: collecting at Go's 4 MB minimum heap costs it a fifth of its CPU
// time and frees little. Start turns the collector off under a memory
// limit; the first collection, which the limit forces once the heap nears
// it, turns it back on as Go's default (GOGC=100, no limit), so a run that
// allocates more (retention, scan of a build tree) collects as before from
// there and its peak memory, which its live heap sets, does not move.
package gcdefer

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
)

// Limit is the heap a run may reach before its first collection: above
// what a conflicts or check run allocates, so that all of it fits in the
// part HugeHeap advises (three quarters of it; 32 MB left cold runs and
// thousands of conflicts a fifth on 4 KB pages, 10% of their CPU time).
const Limit = 64 << 20

// started says Start ran: HugeHeap's collection would end its deferral.
var started atomic.Bool

// HugeHeap puts the heap a run allocates in on huge pages (hugeHeap), for
// a run that allocates tens of megabytes (conflicts, check); a small one
// (lint of a CMakeLists.txt) would pay its collection for little. It must
// come before Start, and does nothing after it.
func HugeHeap() {
	if !started.Load() {
		hugeHeap()
	}
}

// Start defers the first collection to Limit, unless the environment sets
// GOGC or GOMEMLIMIT (then the user's choice stands).
func Start() {
	started.Store(true)
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(Limit)
	// A sentinel nothing refers to: its cleanup runs after the first
	// collection, whatever started it. It holds a pointer so that it is
	// not batched with other small objects (whose cleanups may never run).
	runtime.AddCleanup(new(*byte), func(struct{}) { restore() }, struct{}{})
}

// restore is Go's default: collect when the heap doubles, no limit.
func restore() {
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

package gcdefer

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestFirstCollectionRestoresDefaults: off until a collection, Go's
// defaults after it.
func TestFirstCollectionRestoresDefaults(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer restore()
	Start()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("after Start, GC percent %d, want -1 (off)", p)
	}
	if l := debug.SetMemoryLimit(-1); l != Limit {
		t.Fatalf("after Start, memory limit %d, want %d", l, Limit)
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p) // SetGCPercent(-1) reads it; put it back
		if p == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s after a collection, GC percent %d, want 100", p)
		}
		time.Sleep(time.Millisecond) // the cleanup runs on its own goroutine
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("after the first collection, memory limit %d, want none", l)
	}
}

// TestUserChoiceStands: GOGC or GOMEMLIMIT set, Start changes nothing.
func TestUserChoiceStands(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "200")
			before := debug.SetGCPercent(-1)
			debug.SetGCPercent(before)
			Start()
			if p := debug.SetGCPercent(before); p != before {
				t.Fatalf("%s set: GC percent %d after Start, want %d", env, p, before)
			}
		})
	}
}

// TestHugeHeapAfterStartDoesNothing: once the collector is held back, the
// huge heap's collection would end the deferral: HugeHeap leaves it.
func TestHugeHeapAfterStartDoesNothing(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer restore()
	Start()
	HugeHeap()
	time.Sleep(50 * time.Millisecond) // the cleanup would run on its own goroutine
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("after Start then HugeHeap, GC percent %d: a collection ended the deferral", p)
	}
}

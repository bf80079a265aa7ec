package procs

import (
	"runtime"
	"testing"
)

// TestNarrowThenWiden: Narrow runs on one processor and Max still says how
// many a widened run has; Widen gives them back, once; GOMAXPROCS in the
// environment is left alone.
func TestNarrowThenWiden(t *testing.T) {
	t.Setenv("GOMAXPROCS", "") // as if unset, whatever runs the test
	before := runtime.GOMAXPROCS(0)
	Narrow()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("narrowed to %d processors, want 1", got)
	}
	if Max() != before {
		t.Errorf("Max while narrowed %d, want %d", Max(), before)
	}
	Widen()
	Widen()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("widened to %d, want %d", got, before)
	}
	t.Setenv("GOMAXPROCS", "3")
	Narrow()
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("narrowed to %d under GOMAXPROCS=3", got)
	}
}

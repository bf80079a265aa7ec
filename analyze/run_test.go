package analyze

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStartLookupNarrowsOnlyWithAnIndex: a run narrows to one processor
// while an index may answer its lookups; without one (a first run, caching
// off) every library is read, and it keeps every processor from the start.
func TestStartLookupNarrowsOnlyWithAnIndex(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	for _, c := range []struct {
		cache string
		index bool // a symindex file in it
		want  int
	}{{"off", false, 2}, {dir, false, 2}, {dir, true, 1}} {
		t.Setenv("ETLINK_CACHE_DIR", c.cache)
		if c.index {
			if err := os.WriteFile(filepath.Join(dir, "symindex"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		l := StartLookup()
		if got := runtime.GOMAXPROCS(0); got != c.want {
			t.Errorf("cache %s, index %v: %d processors after StartLookup, want %d", c.cache, c.index, got, c.want)
		}
		l.End()
		if got := runtime.GOMAXPROCS(0); got != 2 {
			t.Errorf("cache %s, index %v: %d processors after End, want 2", c.cache, c.index, got)
		}
	}
}

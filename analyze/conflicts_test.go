package analyze

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByName: the multikey quicksort orders names as a comparison
// sort does, on names sharing long prefixes (mangled C++), prefixes of
// one another, and bytes past ASCII.
func TestSortByName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{"_ZNSt7__cxx11", "12basic_string", "IcSt11char_traitsIcE", "SaIcEE", "", "a", "\xff", "C2Ev", "D1Ev"}
	seen := map[string]bool{}
	var names []string
	for len(names) < 3000 {
		n := ""
		for k := r.IntN(6); k >= 0; k-- {
			n += parts[r.IntN(len(parts))]
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	ids := make([]int32, len(names))
	for i := range ids {
		ids[i] = int32(i)
	}
	sortByName(ids, names, 0)
	want := slices.Sorted(slices.Values(names))
	for i, id := range ids {
		if names[id] != want[i] {
			t.Fatalf("position %d: %q, want %q", i, names[id], want[i])
		}
	}
}

package elfobj

import (
	"testing"

	"github.com/etlink/etlink/symset"
)

// TestHashSetMemberIsMemberByHash: a name is found by its hash and one
// comparison; a name the set lacks, a wrong hash, or a hash two names
// share ("aZ" and "b9") finds none, so that Member decides.
func TestHashSetMemberIsMemberByHash(t *testing.T) {
	var set symset.Set
	for _, n := range []string{"aZ", "b9", "_ZNSt6localeC1Ev", "malloc"} {
		set.Add(n)
	}
	if symset.GNUHash("aZ") != symset.GNUHash("b9") {
		t.Fatal("aZ and b9 should share a GNU hash")
	}
	hs := newHashSet(&set)
	for _, n := range []string{"_ZNSt6localeC1Ev", "malloc"} {
		c, ok := hs.member(symset.GNUHash(n)|1, n)
		if want, _ := set.Member(n); !ok || c != want {
			t.Errorf("member(%q) = %q, %v; want %q, true", n, c, ok, want)
		}
	}
	for _, tc := range []struct {
		name string
		h    uint32
	}{
		{"free", symset.GNUHash("free")},
		{"malloc", symset.GNUHash("free")},
		{"mallod", symset.GNUHash("malloc")},
		{"aZ", symset.GNUHash("aZ")},
		{"b9", symset.GNUHash("b9")},
	} {
		if c, ok := hs.member(tc.h, tc.name); ok {
			t.Errorf("member(%#x, %q) = %q, true; want none", tc.h, tc.name, c)
		}
	}
}

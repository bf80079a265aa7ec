package symset

import (
	"fmt"
	"testing"
)

func TestSet(t *testing.T) {
	var s Set
	if s.Has("x") || s.Len() != 0 {
		t.Error("the zero Set is not empty")
	}
	in := []string{"", "a", "pthreadpool_create", "_ZN2at6native3addERKNS_6TensorES3_", "cpuinfo_isa"}
	for _, n := range in {
		s.Add(n)
	}
	s.AddPrefix("PyInit_")
	for _, n := range in {
		if !s.Has(n) {
			t.Errorf("Has(%q) = false after Add", n)
		}
	}
	if !s.Has("PyInit__C") {
		t.Error("a name with an added prefix is not a member")
	}
	// Names the filter lets through must still be refused by the map.
	for i := range 100000 {
		n := fmt.Sprintf("_ZN5torch3jit%dE", i)
		if s.Has(n) {
			t.Fatalf("Has(%q) = true for a name never added", n)
		}
	}
	if s.Len() != len(in) {
		t.Errorf("Len = %d, want %d", s.Len(), len(in))
	}
	var none *Set
	if !none.Has("anything") || none.Len() != 0 {
		t.Error("a nil Set does not hold every name")
	}
}

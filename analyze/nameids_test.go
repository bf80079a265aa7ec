package analyze

import (
	"strings"
	"testing"
)

// TestNameIDsLookupByBytesAndByName: a name is found as the bytes it was
// added as, as another copy of it, and not as a prefix of it that shares
// its first byte's address.
func TestNameIDsLookupByBytesAndByName(t *testing.T) {
	m := newNameIDs(0)
	const long = "_ZNSt6localeC1Ev"
	if id, added := m.add(long); id != 0 || !added {
		t.Fatalf("add(%q) = %d, %v; want 0, true", long, id, added)
	}
	if id, added := m.add("malloc"); id != 1 || !added {
		t.Fatalf("add(malloc) = %d, %v; want 1, true", id, added)
	}
	other := strings.Clone(long)
	if id, added := m.add(other); id != 0 || added {
		t.Fatalf("add(copy of %q) = %d, %v; want 0, false", long, id, added)
	}
	for _, tc := range []struct {
		name string
		id   int32
		ok   bool
	}{
		{long, 0, true},
		{other, 0, true},
		{strings.Clone(long), 0, true}, // by name
		{"malloc", 1, true},
		{long[:6], 0, false}, // the address of long's bytes, not its length
		{"_ZNSt6", 0, false},
		{"", 0, false},
	} {
		if id, ok := m.lookup(tc.name); ok != tc.ok || ok && id != tc.id {
			t.Errorf("lookup(%q) = %d, %v; want %d, %v", tc.name, id, ok, tc.id, tc.ok)
		}
	}
	if len(m.names) != 2 || m.names[0] != long || m.names[1] != "malloc" {
		t.Errorf("names = %q", m.names)
	}
}

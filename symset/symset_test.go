package symset

import (
	"fmt"
	"strings"
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

// FuzzMayHaveAt: a name added is never ruled out by MayHaveAt, wherever it
// lies in a table and whatever follows it.
func FuzzMayHaveAt(f *testing.F) {
	f.Add("pthreadpool_create", []byte("xx"), []byte("_ZN2at6native"))
	f.Add("", []byte{}, []byte("abc"))
	f.Add("a", []byte("\x00"), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add("_ZN7leveldb2DB4OpenERKNS_7OptionsERKSsPPS0_", []byte("\x00_Z"), []byte("\x00"))
	f.Fuzz(func(t *testing.T, name string, before, after []byte) {
		if strings.IndexByte(name, 0) >= 0 {
			return // not a name a string table can hold
		}
		var s Set
		s.Add(name)
		s.Add("cpuinfo_isa")
		tab := string(before) + name + "\x00" + string(after)
		if !s.MayHaveAt(tab, len(before)) {
			t.Errorf("MayHaveAt ruled out %q, which was added (table %q)", name, tab)
		}
		// In either of two sets, the name is never ruled out.
		var other Set
		other.Add("pthreadpool_create")
		if !other.MayHaveEitherAt(&s, tab, len(before)) || !s.MayHaveEitherAt(&other, tab, len(before)) {
			t.Errorf("MayHaveEitherAt ruled out %q, which one of the sets holds (table %q)", name, tab)
		}
		// Every name starting with an added prefix (short ones are tested
		// as masked words, long ones as strings) is a member too.
		for _, cut := range []int{len(name) / 2, min(len(name), 16), len(name)} {
			if cut == 0 {
				continue
			}
			var p Set
			p.AddPrefix(name[:cut])
			if !p.MayHaveAt(tab, len(before)) || !p.Has(name) {
				t.Errorf("prefix %q: %q ruled out (table %q)", name[:cut], name, tab)
			}
			var none Set
			none.Add("cpuinfo_isa")
			if !none.MayHaveEitherAt(&p, tab, len(before)) {
				t.Errorf("prefix %q of the other set: %q ruled out (table %q)", name[:cut], name, tab)
			}
		}
	})
}

func TestPrefixWords(t *testing.T) {
	var s Set
	s.AddPrefix("PyInit_")
	s.AddPrefix("_ZN8executorch7runtime16register_backend") // longer than 16 bytes
	tab := "PyInit\x00PyInit__C\x00_ZN8executorch7runtime16register_backendERKNS0_7BackendE\x00_ZN8executorch7runtime16register_kernel\x00" +
		"0123456789abcdef0123"
	for _, c := range []struct {
		name string
		want bool
	}{{"PyInit", false}, {"PyInit__C", true}, {"_ZN8executorch7runtime16register_backendERKNS0_7BackendE", true}} {
		if got := s.MayHaveAt(tab, strings.Index(tab, c.name+"\x00")); c.want && !got {
			t.Errorf("MayHaveAt(%q) = false, want true", c.name)
		}
		if got := s.Has(c.name); got != c.want {
			t.Errorf("Has(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	// Words masked right: a name that shares the prefix's first bytes but
	// not all is ruled out by the filter, the set holding no names.
	if s.MayHaveAt(tab, 0) {
		t.Error("MayHaveAt(PyInit) = true: a prefix matched a shorter name")
	}
	if s.MayHaveAt(tab, strings.Index(tab, "_ZN8executorch7runtime16register_kernel")) {
		t.Error("MayHaveAt matched a name that differs from the long prefix")
	}
}

// BenchmarkIntersect probes a wheel-sized set (2000 names) with a
// library's worth of names that are mostly not in it, as reading a peer
// with elfobj.Options.Only does, names lying in a string table: finding
// each name's end then Has, or MayHaveAt first.
func BenchmarkIntersect(b *testing.B) {
	var s Set
	for i := range 1000 {
		s.Add(fmt.Sprintf("_ZN7leveldb2DB%dEv", i))
		s.Add(fmt.Sprintf("xnn_create_operator_%d", i))
	}
	var tab strings.Builder
	var offs []int
	for i := range 50000 {
		offs = append(offs, tab.Len())
		fmt.Fprintf(&tab, "_ZN2at6native%dadd_outERKNS_6TensorES3_RKN3c106ScalarERS1_%c", i, 0)
	}
	str := tab.String()
	b.Run("Has", func(b *testing.B) {
		for b.Loop() {
			for _, off := range offs {
				if s.Has(str[off : off+strings.IndexByte(str[off:], 0)]) {
					b.Fatal(off)
				}
			}
		}
	})
	b.Run("MayHaveAt", func(b *testing.B) {
		for b.Loop() {
			for _, off := range offs {
				if s.MayHaveAt(str, off) && s.Has(str[off:off+strings.IndexByte(str[off:], 0)]) {
					b.Fatal(off)
				}
			}
		}
	})
}

func TestHashedNamesPairsEachNameWithItsHash(t *testing.T) {
	var s Set
	for _, n := range []string{"aZ", "b9", "_ZNSt6localeC1Ev", "malloc"} {
		s.Add(n)
	}
	hashes, names := s.HashedNames()
	if len(hashes) != 4 || len(names) != 4 {
		t.Fatalf("HashedNames: %d hashes, %d names; want 4 each", len(hashes), len(names))
	}
	for i, n := range names {
		if c, ok := s.Member(n); !ok || c != n {
			t.Errorf("names[%d] = %q: not a member", i, n)
		}
		if hashes[i] != GNUHash(n) {
			t.Errorf("hashes[%d] = %#x, want GNUHash(%q) = %#x", i, hashes[i], n, GNUHash(n))
		}
	}
}

// Package symset is a set of symbol names built to be asked about far more
// names than it holds: torch's load closure has hundreds of thousands of
// dynamic symbols, often long mangled names, and only a few thousand of them
// are ever of interest. A one-hash Bloom filter in front of the map rules
// most names out with a few loads, where a map lookup hashes the whole name.
package symset

import (
	"math/bits"
	"strings"
	"sync"
)

// Set holds names and name prefixes. The zero Set is empty and ready to use;
// a nil *Set holds every name (it is the "no filter" of elfobj.Options.Only).
type Set struct {
	bits     [filterBits / 64]uint64 // by hash: length and last 8 bytes
	heads    [filterBits / 64]uint64 // by headHash: the first 16 bytes
	names    map[string]string       // each name to itself: Member's copy
	prefixes []string
	// heads16 are the prefixes of at most 16 bytes as masked words, so that
	// MayHaveAt tests them on the two words it loads anyway instead of
	// comparing bytes (it is asked about every symbol of a closure).
	heads16 []prefixWords
	long    []string // the other prefixes
	// gnu holds the names' GNU hashes, computed once (GNUHashes), and
	// gnuNames the set's copy of each, in the same order (HashedNames).
	gnuOnce  sync.Once
	gnu      []uint32
	gnuNames []string
}

// GNUHash is the hash function of ELF's .gnu.hash sections (the GNU ABI's
// dl_new_hash): what ld.so computes to look a name up.
func GNUHash(name string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	return h
}

// GNUHashes returns the GNU hash of every name of the set (not of its
// prefixes), computed on the first call: a reader looks each one up in
// every library's hash table. The set must not change after the first call.
func (s *Set) GNUHashes() []uint32 {
	hashes, _ := s.HashedNames()
	return hashes
}

// HashedNames returns GNUHashes and, in the same order, the set's copy of
// each name (Member's): a reader that knows a name's hash tells a member
// by one comparison with the name of that hash, without hashing the name
// again.
func (s *Set) HashedNames() (hashes []uint32, names []string) {
	s.gnuOnce.Do(func() {
		s.gnu, s.gnuNames = make([]uint32, 0, len(s.names)), make([]string, 0, len(s.names))
		for _, n := range s.names {
			s.gnu, s.gnuNames = append(s.gnu, GNUHash(n)), append(s.gnuNames, n)
		}
	})
	return s.gnu, s.gnuNames
}

// HasPrefixes reports whether the set holds name prefixes, which no hash
// lookup can find.
func (s *Set) HasPrefixes() bool { return s != nil && len(s.prefixes) > 0 }

// prefixWords is a prefix of at most 16 bytes: a name starting with it has
// lo and hi in its first two little-endian words where mlo and mhi are set.
type prefixWords struct{ lo, hi, mlo, mhi uint64 }

// filterBits is 64 Kbit (8 KB): the filter stays in L1.
const filterBits = 1 << 16

// Grow sizes an empty set for n names (a set that holds names already is
// left as it is): a set built of a wheel's thousands of exports would
// otherwise grow its map a dozen times.
func (s *Set) Grow(n int) {
	if s.names == nil {
		s.names = make(map[string]string, n)
	}
}

// Add puts name in the set.
func (s *Set) Add(name string) {
	if s.names == nil {
		s.names = map[string]string{}
	}
	s.names[name] = name
	h := hash(name)
	s.bits[h/64] |= 1 << (h % 64)
	var b [16]byte
	copy(b[:], name)
	h = headHash(load64(string(b[:8])), load64(string(b[8:])))
	s.heads[h/64] |= 1 << (h % 64)
}

// AddPrefix makes every name that starts with p a member.
func (s *Set) AddPrefix(p string) {
	s.prefixes = append(s.prefixes, p)
	if len(p) <= 16 && !strings.Contains(p, "\x00") {
		var b, m [16]byte
		copy(b[:], p)
		for i := range len(p) {
			m[i] = 0xff
		}
		s.heads16 = append(s.heads16, prefixWords{
			load64(string(b[:8])), load64(string(b[8:])), load64(string(m[:8])), load64(string(m[8:]))})
	} else {
		s.long = append(s.long, p)
	}
}

// Has reports whether name is in the set. On a nil Set it is always true.
func (s *Set) Has(name string) bool {
	if s == nil {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	_, ok := s.Member(name)
	return ok
}

// Member returns the set's own copy of name, and whether the set holds it
// (the name, not only a prefix of it): a reader keeping a symbol of that
// name shares the set's string instead of copying it out of a table.
func (s *Set) Member(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	h := hash(name)
	if s.bits[h/64]&(1<<(h%64)) == 0 {
		return "", false
	}
	c, ok := s.names[name]
	return c, ok
}

// MayHaveAt reports whether the NUL-terminated name at tab[off:] (a string
// table, as in ELF) may be in the set, reading no more than its first 16
// bytes: false means it is not. Has must decide a true. Finding where a
// name ends costs a scan of it, which for the long mangled names of a
// large library is most of the cost of ruling them out.
func (s *Set) MayHaveAt(tab string, off int) bool {
	return s.MayHaveEitherAt(nil, tab, off)
}

// MayHaveEitherAt is MayHaveAt for a name that may be in s or in o (nil: in
// s only), its bytes read and hashed once.
func (s *Set) MayHaveEitherAt(o *Set, tab string, off int) bool {
	if s == nil || off < 0 || off+16 > len(tab) {
		return true
	}
	lo, hi := load64(tab[off:]), load64(tab[off+8:])
	if s.prefixAt(lo, hi, tab, off) || o != nil && o.prefixAt(lo, hi, tab, off) {
		return true
	}
	// Keep the bytes before the terminating NUL, as Add's zero padding.
	if z := zeroBytes(lo); z != 0 {
		lo &= 1<<(bits.TrailingZeros64(z)&^7) - 1
		hi = 0
	} else if z := zeroBytes(hi); z != 0 {
		hi &= 1<<(bits.TrailingZeros64(z)&^7) - 1
	}
	h := headHash(lo, hi)
	return s.heads[h/64]&(1<<(h%64)) != 0 || o != nil && o.heads[h/64]&(1<<(h%64)) != 0
}

// prefixAt reports whether the name at tab[off:], whose first two words are
// lo and hi, starts with one of the set's prefixes. A table's bytes past a
// name's end are its NUL and the next names; a prefix holds no NUL, so it
// matches the words only where the name starts with it.
func (s *Set) prefixAt(lo, hi uint64, tab string, off int) bool {
	for _, p := range s.heads16 {
		if lo&p.mlo == p.lo && hi&p.mhi == p.hi {
			return true
		}
	}
	for _, p := range s.long {
		if strings.HasPrefix(tab[off:], p) {
			return true
		}
	}
	return false
}

// zeroBytes has the high bit of the lowest zero byte of v set (higher bits
// may be set too, above it): the classic test for a zero byte in a word.
func zeroBytes(v uint64) uint64 {
	return (v - 0x0101010101010101) &^ v & 0x8080808080808080
}

// headHash mixes a name's first 16 bytes (zero past its end).
func headHash(lo, hi uint64) uint32 {
	h := lo*0x9e3779b97f4a7c15 ^ bits.RotateLeft64(hi*0xc2b2ae3d27d4eb4f, 31)
	h = (h ^ h>>32) * 0x94d049bb133111eb
	return uint32(h>>48) & (filterBits - 1)
}

// Len is the number of names added (prefixes not counted).
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.names)
}

// hash mixes the length with the last 8 bytes: mangled names share their
// first bytes (_ZN2at6native...) far more than their ends (the parameter
// types), and one 8-byte read is one cache line of a name that is usually
// not in cache. On torch's closure against the e2e wheel (1061 names), 2% of
// the peer's exports pass the filter.
func hash(s string) uint32 {
	n := len(s)
	h := uint64(n) * 0x9e3779b97f4a7c15
	if n >= 8 {
		h ^= load64(s[n-8:])
	} else {
		for i := 0; i < n; i++ {
			h = h<<8 | uint64(s[i])
		}
	}
	h = (h ^ h>>32) * 0x94d049bb133111eb
	return uint32(h>>48) & (filterBits - 1)
}

// load64 reads the first 8 bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

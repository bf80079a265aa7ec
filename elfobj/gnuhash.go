package elfobj

import (
	"debug/elf"
	"encoding/binary"
	"slices"

	"github.com/etlink/etlink/symset"
)

// The GNU hash table (.gnu.hash, DT_GNU_HASH) is how ld.so finds a name in
// a library without reading its symbol table: a Bloom filter, buckets by
// hash, and per hashed symbol its hash, the symbols sorted by bucket. The
// linkers (bfd, gold, lld, mold) leave the undefined symbols out of it,
// first in the table, below symoffset. Reading a library for a few
// thousand names of its hundreds of thousands, the reader looks each name
// up as ld.so does (elf/dl-lookup.c, do_lookup_x) and tests only the
// unhashed symbols one by one. A table ld.so would misread (a bucket
// pointing below symoffset, a Bloom filter whose size is not a power of
// two) makes the reader test every symbol instead.

// hashPicks says which symbols of the dynamic symbol table dynsym (nsyms
// entries, the null symbol included) may hold one of the names of Only or
// OnlyDefs, or t.init: the first unhashed ones (indexes 0 to unhashed-1, less one for
// the null symbol, as symbols counts them) and, after them, found, in
// table order. ok is false when there is no GNU hash table for dynsym or
// it is not one ld.so would read as the linkers write it.
func (t *dynTables) hashPicks(dynsym *elf.Section, nsyms int) (unhashed int, found []int, ok bool) {
	names, defs := t.opt.Only.GNUHashes(), []uint32(nil)
	if t.opt.OnlyDefs != nil {
		if t.opt.OnlyDefs.HasPrefixes() {
			return 0, nil, false
		}
		defs = t.opt.OnlyDefs.GNUHashes()
	}
	h, ok := t.hashTable(dynsym, nsyms)
	if !ok || nsyms-int(h.symoff) < 2*(len(names)+len(defs)) {
		// Testing a few symbols costs less than looking many names up.
		return 0, nil, false
	}
	for _, set := range [][]uint32{names, defs} {
		for _, hash := range set {
			if found, ok = h.lookup(hash, found); !ok {
				return 0, nil, false
			}
		}
	}
	if t.init != "" {
		if found, ok = h.lookup(symset.GNUHash(t.init), found); !ok {
			return 0, nil, false
		}
	}
	slices.Sort(found)
	return int(h.symoff) - 1, slices.Compact(found), true
}

// hashTable is the GNU hash table of the dynamic symbol table dynsym
// (nsyms entries, the null symbol included); ok is false when there is
// none or it is not one ld.so would read as the linkers write it. It is
// read once an image: the lookups and the index's hashes both ask.
func (t *dynTables) hashTable(dynsym *elf.Section, nsyms int) (hashTable, bool) {
	if !t.gnu.read {
		t.gnu.h, t.gnu.ok = t.readHashTable(dynsym, nsyms)
		t.gnu.read = true
	}
	return t.gnu.h, t.gnu.ok
}

func (t *dynTables) readHashTable(dynsym *elf.Section, nsyms int) (hashTable, bool) {
	var gh *elf.Section
	for _, s := range t.f.Sections {
		if s.Type == elf.SHT_GNU_HASH && int(s.Link) < len(t.f.Sections) && t.f.Sections[s.Link] == dynsym {
			gh = s
			break
		}
	}
	if gh == nil || !plain(gh) {
		return hashTable{}, false
	}
	b, ok := t.src.bytes(gh)
	if !ok || len(b) < 16 {
		return hashTable{}, false
	}
	bo := t.bo
	nb, symoff, nwords, shift := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:]), bo.Uint32(b[12:])
	word := uint64(4)
	if t.f.Class == elf.ELFCLASS64 {
		word = 8
	}
	if nb == 0 || nwords == 0 || nwords&(nwords-1) != 0 || symoff == 0 || uint64(symoff) > uint64(nsyms) {
		return hashTable{}, false
	}
	bloomEnd := 16 + uint64(nwords)*word
	bucketsEnd := bloomEnd + uint64(nb)*4
	if bucketsEnd+uint64(nsyms-int(symoff))*4 > uint64(len(b)) {
		return hashTable{}, false
	}
	return hashTable{bo: bo, word: word, bits: uint32(word * 8), nwords: nwords, shift: shift, nb: nb, symoff: symoff, n: uint32(nsyms),
		bloom: b[16:bloomEnd], buckets: b[bloomEnd:bucketsEnd], chains: b[bucketsEnd:]}, true
}

// hashTable is a GNU hash table read: its header's numbers and its arrays.
type hashTable struct {
	bo                                 binary.ByteOrder
	word                               uint64 // bytes of a Bloom filter word
	bits, nwords, shift, nb, symoff, n uint32
	bloom, buckets, chains             []byte
}

// lookup appends to found the symbols whose hash is hash (less one, as
// hashPicks lists them), as ld.so finds them: past the Bloom filter, along
// the chain of the hash's bucket. ok is false for a bucket outside the
// hashed symbols, which ld.so would follow into other tables.
func (h *hashTable) lookup(hash uint32, found []int) ([]int, bool) {
	at := uint64((hash/h.bits)&(h.nwords-1)) * h.word
	var w uint64
	if h.word == 8 {
		w = h.bo.Uint64(h.bloom[at:])
	} else {
		w = uint64(h.bo.Uint32(h.bloom[at:]))
	}
	if (w>>(hash%h.bits))&(w>>((hash>>h.shift)%h.bits))&1 == 0 {
		return found, true
	}
	i := h.bo.Uint32(h.buckets[(hash%h.nb)*4:])
	if i == 0 {
		return found, true
	}
	if i < h.symoff || i >= h.n {
		return found, false
	}
	for ; i < h.n; i++ {
		c := h.bo.Uint32(h.chains[(i-h.symoff)*4:])
		if (c^hash)>>1 == 0 {
			found = append(found, int(i)-1)
		}
		if c&1 != 0 {
			break
		}
	}
	return found, true
}

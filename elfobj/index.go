package elfobj

import (
	"bytes"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/etlink/etlink/internal/keepfile"
	"github.com/etlink/etlink/symset"
)

// Index remembers, between runs, what a read with Options.Only asks of a
// shared library that holds none of the names asked for: its header, its
// dynamic section's strings, and the GNU hash of the name of every symbol
// of its dynamic table. A conflict check reads a closure of hundreds of
// system libraries for a few thousand names, most of which hold none of
// them (in torch's closure, 248 of 285): with the index, such a library
// is identified by a stat, not read. A library that may hold a name asked
// for is read at the symbols whose hashes match (the picks lookup gives),
// each where it lies when they are few (sparsePicks), and the symbols read
// so are kept whole: a later read that picks no others (the same wheel
// checked again) is answered from them, the file not opened. It also
// remembers the symlinks a search followed to each file (Resolve): the
// loader reaches most libraries by a soname link.
//
// An entry answers only for the file it was made from: same device, inode,
// size, modification and change times (a change time no user can set); an
// entry is not made for a file changed in the last keepfile.Racy, whose next
// change could keep its time stamps (as git's "racy" index entries). The
// hashes are only a filter: two names with one hash make a library read,
// never a name missed.
type Index struct {
	path    string
	loaded  chan struct{} // closed once the file has been read
	mu      sync.Mutex
	entries map[string]*indexEntry // by the library's real path
	// links maps the paths a search reached an entry's file by, through
	// symlinks, to its real path (Resolve).
	links map[string]string
	// changed says the run learnt something the file lacks: without it,
	// Save writes nothing.
	changed bool
	// data is the file as read (a mapping): Save leaves alone a file it
	// would write unchanged.
	data []byte
	// reads counts the reads the index did not answer (Reads).
	reads atomic.Int64
	// strs is the chunk the strings of decoded entries are copied into
	// (decodeEntry); x.mu guards it.
	strs []byte
	// query is the last set of names asked, as hash sets (indexQuery): a
	// closure is read for one set. Replaced, never changed: lookups read
	// it without the lock.
	query *indexQuery
}

// fileID identifies one version of a file.
type fileID struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

type indexEntry struct {
	id                     fileID
	class, data, typ       uint8
	machine                uint16
	executable             bool
	soname                 string
	needed, rpath, runpath []string
	writable, relro        []addrRange // Object.Writable
	hashes                 []byte      // GNU hash of each symbol's name, its low bit set for a definition, 4 bytes little-endian each
	// hashCRC is the CRC-32 the hashes were written with; hashState says
	// whether they still have it (hashesIntact), checked when first
	// scanned: a run that asks what it asked before never reads them.
	hashCRC   uint32
	hashState atomic.Uint32
	// picked are the symbols reads picked, whole, as the file holds them
	// (appendPicked): a read that picks no others is answered from them,
	// decoding its own (pickedAt).
	picked []byte
	// recent are the picks of the last queries asked of it (maxRecent),
	// the latest first: the same wheel checked again picks the same
	// symbols, without the scan of every hash.
	recent []recentPicks
	used   bool // asked this run: kept first when the file is trimmed
	// raw is the entry as the file holds it, while it is not decoded
	// (decodeIndex reads only the key and the identity); nil after.
	raw []byte
	// rank is the entry's place in the file read (0 first; new entries
	// are used): what the run did not use is kept in that order, the
	// entries the last runs used ahead of older ones.
	rank int
}

// recentPicks are the picks of one query of an entry.
type recentPicks struct {
	query [2]uint64 // indexQuery.digest
	init  uint32    // the PyInit_ name's hash, its low bit set; 0 for none
	picks []int
}

// maxRecent is how many queries' picks an entry keeps: a few wheels
// checked in turn each find theirs.
const maxRecent = 4

type indexQuery struct {
	only, defs *symset.Set
	// names are the hashes of Only's names, asked of every symbol;
	// defNames those of OnlyDefs', asked of definitions only; either is
	// the bitmap of both, which rules most symbols out at one load.
	names, defNames hashSet
	either          *[1 << 10]uint64
	// digest identifies the two sets of hashes, which decide the picks of
	// any table: sums of two mixes of each distinct hash, tagged by its
	// set (128 bits no order of the names changes). Not a cryptographic
	// hash: two queries alike in all 128 bits would share their picks.
	digest [2]uint64
}

// setDigest is q's digest.
func (q *indexQuery) setDigest() {
	for tag, hs := range []*hashSet{&q.names, &q.defNames} {
		for _, v := range hs.slots {
			if v != 0 {
				x := uint64(v) | uint64(tag+1)<<32
				q.digest[0] += mix64(x)
				q.digest[1] += mix64(x ^ 0x9e3779b97f4a7c15)
			}
		}
	}
}

// mix64 is splitmix64's finalizer: every bit of x moves every bit out.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// hashSet is a set of name hashes: a bitmap of their top 16 bits that
// rules out most others at one load, then an open-addressed table (each
// hash stored with its low bit set, which a name's hash here never has:
// 0 is an empty slot).
type hashSet struct {
	slots  []uint32
	shift  uint
	bitmap *[1 << 10]uint64
	// names are the set's names (symset.HashedNames), at the name of each
	// slot's hash in them; -1 where two names share the hash.
	names []string
	at    []int32
}

func newHashSet(set *symset.Set) hashSet {
	hs := hashSet{bitmap: new([1 << 10]uint64)}
	var hashes []uint32
	if set != nil {
		hashes, hs.names = set.HashedNames()
	}
	bits := uint(4)
	for 1<<bits < 2*len(hashes) {
		bits++
	}
	hs.slots, hs.at, hs.shift = make([]uint32, 1<<bits), make([]int32, 1<<bits), 32-bits
	for k, h := range hashes {
		h &^= 1
		hs.bitmap[h>>22] |= 1 << (h >> 16 & 63)
		i := hs.slot(h)
		for hs.slots[i] != 0 && hs.slots[i] != h|1 {
			i = (i + 1) & (len(hs.slots) - 1)
		}
		if hs.slots[i] != 0 {
			hs.at[i] = -1
		} else {
			hs.slots[i], hs.at[i] = h|1, int32(k)
		}
	}
	return hs
}

// slot is where h's search starts: its bits mixed, the top ones taken.
func (hs *hashSet) slot(h uint32) int { return int(h * 0x9e3779b1 >> hs.shift) }

func (hs *hashSet) has(h uint32) bool {
	if !inBitmap(hs.bitmap, h) {
		return false
	}
	for i := hs.slot(h); ; i = (i + 1) & (len(hs.slots) - 1) {
		switch hs.slots[i] {
		case h | 1:
			return true
		case 0:
			return false
		}
	}
}

// member returns the set's copy of name, whose GNU hash is h (its low bit
// aside), when the set holds it: found by h and one comparison, the name
// not hashed again. false when no name of the set has h, another has it,
// or two do: what only Member can tell.
func (hs *hashSet) member(h uint32, name string) (string, bool) {
	h &^= 1
	for i := hs.slot(h); ; i = (i + 1) & (len(hs.slots) - 1) {
		switch hs.slots[i] {
		case h | 1:
			if k := hs.at[i]; k >= 0 && hs.names[k] == name {
				return hs.names[k], true
			}
			return "", false
		case 0:
			return "", false
		}
	}
}

// inBitmap tests the bit of h's top 16 bits.
func inBitmap(b *[1 << 10]uint64, h uint32) bool { return b[h>>22]&(1<<(h>>16&63)) != 0 }

const (
	// The version changes with what an entry means, not only its layout: 8
	// entries are learnt under the ELF structural checks, which 7 lacked.
	indexMagic = "etlink symbol index 10\n" // then the entry count, the entries (each its length, then it with its picked symbols and two CRC-32s), the link count, the links, a CRC-32 of them
)

// indexMax bounds the file, which every run maps and decodes but for the
// hashes (a quarter of it), and saves whole when it learnt something. Measured on Debian 12 (2026-12-05), the
// index one run needs: testdata/demo/wheel --with torch 1.26 MB (torch's
// closure, 293 libraries), vtkmodules --with torch 1.90 MB, rdkit 1.23
// MB, vtkmodules 1.04 MB, PyQt5 0.35 MB, scipy 0.14 MB; twenty packages
// of dist-packages, eleven of them also --with torch, 3.4 MB together
// (they share most of their closures). 4 MiB holds all of those: three
// closures the size of torch's that share nothing, the last run's first.
// A variable for the tests.
var indexMax = 4 << 20

// OpenIndex starts reading the index kept at path ("" for an index kept
// only in memory), while the caller reads what comes before the closure;
// its first use waits for it. A missing, unreadable or damaged file is an
// empty index: the libraries are read, and Save writes a good one.
func OpenIndex(path string) *Index {
	x := &Index{path: path, entries: map[string]*indexEntry{}, links: map[string]string{}, loaded: make(chan struct{})}
	go func() {
		defer close(x.loaded)
		if path == "" {
			return
		}
		data, release, err := mapWhole(path, int64(indexMax))
		if err != nil {
			return
		}
		var links map[string]string
		entries, ok := guarded(func() (e map[string]*indexEntry, ok bool) {
			e, links, ok = decodeIndex(data)
			return e, ok
		})
		if !ok {
			release()
			return
		}
		x.entries, x.links, x.data = entries, links, data
		// The entries' hashes are the mapped file's bytes: unmapped once
		// the index is gone.
		runtime.AddCleanup(x, func(release func()) { release() }, release)
	}()
	return x
}

// guarded runs f, which reads the mapped index, with faults turned into
// panics: a file cut short while mapped (by a hand, not by Save, which
// replaces it) is a damaged index, ok false.
func guarded[T any](f func() (T, bool)) (v T, ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if _, fault := p.(interface{ Addr() uintptr }); !fault {
				panic(p)
			}
			var zero T
			v, ok = zero, false
		}
	}()
	return f()
}

// Save writes the index back when this run learnt something its file
// lacks, atomically (a reader sees the old file or the new one; of two
// runs saving at once, the last one's file stays): the entries this run
// used, then the others whose files are still as they were, in the order
// the file held them, while the file stays under indexMax. Nor does it
// write a file that would come out as it was read: what the run learnt
// did not fit under the cap, and the next run of the same inputs finds
// the same file. A file that cannot be written is no error: the next run
// reads the libraries again.
func (x *Index) Save() {
	if x == nil || x.path == "" {
		return
	}
	<-x.loaded
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.changed {
		return
	}
	data, ok := guarded(func() ([]byte, bool) { return encodeIndex(x.entries, x.kept(), x.links), true })
	if !ok {
		return
	}
	if same, _ := guarded(func() (bool, bool) { return bytes.Equal(data, x.data), true }); same {
		x.changed = false
		putScratch(data)
	} else if keepfile.Write(x.path, data) == nil {
		x.changed, x.data = false, data
	}
}

// kept returns the entries Save writes, in the order it writes them, the
// first kept at the cap: those this run used (by path), then those of the
// files still as they were, as the file held them: those the latest runs
// used ahead, those unused longest at the end, dropped first. What this
// run did not ask about
// is kept only while its file is as it was: an index of removed or
// upgraded libraries would grow with every upgrade, and be read whole
// every run. Only those are looked at again (a stat each: a cold run
// learns hundreds, all used). x.mu is held.
func (x *Index) kept() []string {
	keys := make([]string, 0, len(x.entries))
	for k, e := range x.entries {
		if !e.used {
			if id, ok := statID(k); !ok || id != e.id {
				continue
			}
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ea, eb := x.entries[a], x.entries[b]
		switch {
		case ea.used != eb.used:
			if ea.used {
				return -1
			}
			return 1
		case ea.used:
			return cmp.Compare(a, b)
		}
		return cmp.Compare(ea.rank, eb.rank)
	})
	return keys
}

// indexable says whether a read with opt may be answered by the index:
// names asked (Only), none by prefix, nothing but the dynamic symbols.
func (x *Index) indexable(opt Options) bool {
	return x != nil && opt.Only != nil && !opt.Only.HasPrefixes() && !opt.OnlyDefs.HasPrefixes() &&
		!opt.References && !opt.Initializers
}

// consult answers a read of the file real (identified by id, named path)
// with opt when the index can: the Object, or nil and the options to read
// the file with. When the index knows the file, they name the symbols
// that may hold a name asked for (Options.picks), and drop the index: the
// read has nothing to teach it.
func (x *Index) consult(path, real string, id fileID, opt Options) (*Object, Options) {
	o, picks, known := x.lookup(path, real, id, opt)
	if known {
		opt.Index, opt.picks = nil, picks
	}
	if o == nil && x != nil {
		// A file is read: the run reads, not looks up. Widened before
		// the count moves, so that whoever sees it move sees GOMAXPROCS
		// widened too (the prefetch's workers, Reads), and the one
		// place reads widen it, an index without a file included.
		opt.widen()
		x.reads.Add(1)
	}
	return o, opt
}

// Reads is how many reads the index has passed on to their files so far
// (-1 for no index): while it stays, a closure costs stats and lookups,
// not reads worth spreading over workers.
func (x *Index) Reads() int64 {
	if x == nil {
		return -1
	}
	return x.reads.Load()
}

// learn remembers o, just read with opt, the index in it (o.Real
// identified by id): the hashes read for it and the symbols they pick, or
// the symbols it picked. It drops them from o.
func (x *Index) learn(id fileID, o *Object, opt Options) {
	switch {
	case o.nameHashes != nil:
		x.store(o.Real, id, o, opt)
	case o.picked != nil:
		x.storePicked(o.Real, id, o.picked)
	}
	o.nameHashes, o.picked = nil, nil
}

// storePicked adds picked, read from the file real (identified by id), to
// the symbols its entry holds whole.
func (x *Index) storePicked(real string, id fileID, picked []pickedSymbol) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.entry(real, id)
	if e == nil {
		return
	}
	// What the entry held (a damaged block, none: the file was read).
	merged, _ := guarded(func() ([]pickedSymbol, bool) { return decodePicked(e.picked) })
	n := len(merged)
	for _, p := range picked {
		if i, found := slices.BinarySearchFunc(merged, p.index, cmpIndex); !found {
			merged = slices.Insert(merged, i, p)
		}
	}
	if len(merged) > n {
		e.picked = appendPicked(nil, merged) // replaced, never changed: lookups read it without the lock
		x.changed = true
	}
}

func cmpIndex(p pickedSymbol, i uint32) int { return cmp.Compare(p.index, i) }

// pickedAt returns the symbols of those the entry holds whole that picks
// (ascending) name that a read with opt keeps (keptPicks; q its query,
// init the file's PyInit_ name), when it holds them all, decoding only
// those (an entry asked by many wheels holds thousands). The names are
// decoded as views of the mapped file, kept as the set's own copies: only
// a name the set does not hold is copied, and each version once.
func (x *Index) pickedAt(e *indexEntry, picks []int, q *indexQuery, opt Options, init string) ([]Symbol, bool) {
	x.mu.Lock()
	raw := e.picked // replaced, never changed
	x.mu.Unlock()
	return guarded(func() ([]Symbol, bool) {
		t, ok := readPickedTable(raw)
		if !ok {
			return nil, false
		}
		out := make([]Symbol, 0, len(picks))
		var vers sharedVersions
		at := 0 // where the last pick was: the next one is past it
		for _, i := range picks {
			p, k, ok := t.find(uint32(i), at, &vers)
			if !ok {
				return nil, false
			}
			at = k + 1
			var h uint32 // the hash that picked it
			if 4*i+4 <= len(e.hashes) {
				h = binary.LittleEndian.Uint32(e.hashes[4*i:])
			}
			if s, kept := q.keptPick(p, h, opt, init); kept {
				out = append(out, s)
			}
		}
		return clip(out), true
	})
}

// keptPick is keptPick of p, whose name's GNU hash is h (its low bit
// aside): a name of the query's sets (torch's libraries pick thousands
// of the bundled libstdc++'s) is found by h and one comparison; only the
// others are asked of opt, which hashes the name again. A hash that is
// not the name's finds none: opt decides.
func (q *indexQuery) keptPick(p pickedSymbol, h uint32, opt Options, init string) (Symbol, bool) {
	if c, ok := q.names.member(h, p.Name); ok {
		return p.keptAs(c, false, true)
	}
	if p.Section() != elf.SHN_UNDEF && !q.names.has(h&^1) { // Only's copy first, as keptName
		if c, ok := q.defNames.member(h, p.Name); ok {
			return p.keptAs(c, false, true)
		}
	}
	return keptPick(p, opt, init)
}

// sharedVersions holds one copy of each version a table's records name.
type sharedVersions struct {
	all  map[SymVersion]*SymVersion
	last *SymVersion // the version of the record before: most runs of records share one
}

// of returns the shared copy of v, whose strings may be views of the
// mapped file.
func (m *sharedVersions) of(v SymVersion) *SymVersion {
	if m.last != nil && *m.last == v {
		return m.last
	}
	c, ok := m.all[v]
	if !ok {
		c = &SymVersion{Version: strings.Clone(v.Version), Hidden: v.Hidden, Library: strings.Clone(v.Library)}
		if m.all == nil {
			m.all = map[SymVersion]*SymVersion{}
		}
		m.all[*c] = c
	}
	m.last = c
	return c
}

// Resolve answers, for a path a search reached a library by through
// symlinks, the real path realpath(3) gave for it in an earlier run and
// the file's stat, when the path still leads to that very file: one stat
// of the path, following its links, in place of an lstat and a readlink
// for each of them. The file's identity (device, inode, size, both times)
// is the index entry's: its change time moves with every link made to it,
// removed or renamed, so the real path still names it.
func (x *Index) Resolve(p string) (real string, fi fs.FileInfo, ok bool) {
	if x == nil {
		return "", nil, false
	}
	<-x.loaded
	x.mu.Lock()
	real = x.links[p]
	e := x.entries[real]
	x.mu.Unlock()
	if e == nil {
		return "", nil, false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	if id, ok := infoID(fi); !ok || id != e.id {
		return "", nil, false
	}
	return real, fi, true
}

// Link remembers that the search reached the file real by the path p
// (through symlinks), for Resolve in later runs: saved with real's entry,
// and only with it (a file the index does not answer for is no reason to
// write the index again).
func (x *Index) Link(p, real string) {
	if x == nil || p == real {
		return
	}
	<-x.loaded
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.links[p] != real {
		x.links[p] = real
		if x.entries[real] != nil {
			x.changed = true
		}
	}
}

// lookup returns the Object a read of the file real (identified by id,
// named path) with opt would give, when the index knows the file and
// holds none of the names opt asks for, or holds whole every symbol whose
// name's hash is that of a name asked for. Otherwise it returns nil, and
// when the index knows the file, those symbols (by index, the null symbol
// left out), to be read.
func (x *Index) lookup(path, real string, id fileID, opt Options) (*Object, []int, bool) {
	if !x.indexable(opt) || id.ino == 0 {
		return nil, nil, false
	}
	<-x.loaded
	x.mu.Lock()
	e := x.entry(real, id)
	if e == nil {
		x.mu.Unlock()
		return nil, nil, false
	}
	e.used = true
	q := x.queryFor(opt)
	name := opt.initName(path)
	init := initHash(name)
	picks, recent := e.recentPicks(q.digest, init)
	x.mu.Unlock() // an entry's hashes and a query never change
	if !recent {
		var ok bool
		if picks, ok = guarded(func() ([]int, bool) {
			if !e.hashesIntact() {
				return nil, false
			}
			return q.picks(e.hashes, name), true
		}); !ok {
			return nil, nil, false // damaged, or the file went away under the mapping: read the library
		}
		x.mu.Lock()
		// Written when they add to the entry's queries, not when they take
		// another's place: more wheels than maxRecent checked in turn would
		// write the index every run.
		x.changed = x.changed || len(e.recent) < maxRecent
		e.recent = append([]recentPicks{{q.digest, init, picks}}, e.recent[:min(len(e.recent), maxRecent-1)]...)
		x.mu.Unlock()
	}
	var symbols []Symbol
	if picks != nil {
		var ok bool
		if symbols, ok = x.pickedAt(e, picks, q, opt, name); !ok { // as read before
			return nil, picks, true // may hold a name asked for: read them
		}
	}
	o := &Object{Path: path, Dir: originDir(path), Real: real, Class: elf.Class(e.class), Data: elf.Data(e.data),
		Machine: elf.Machine(e.machine), Type: elf.Type(e.typ), Executable: e.executable, Soname: e.soname,
		Needed: slices.Clone(e.needed), Rpath: slices.Clone(e.rpath), Runpath: slices.Clone(e.runpath), Symbols: symbols, Partial: true,
		writable: e.writable, relro: e.relro}
	return o, nil, true
}

// entry is real's entry for the file identified by id, decoded
// (decodeEntry); nil when there is none for that file (one of another
// version is not decoded) or it is damaged: then it is dropped, the
// library read and learnt again. x.mu is held.
func (x *Index) entry(real string, id fileID) *indexEntry {
	e := x.entries[real]
	if e == nil || e.id != id {
		return nil
	}
	if e.raw == nil {
		return e
	}
	if ok, intact := guarded(func() (bool, bool) { return decodeEntry(e, &x.strs), true }); !ok || !intact {
		delete(x.entries, real)
		x.changed = true
		return nil
	}
	return e
}

// initHash is how recentPicks holds a PyInit_ name: its hash, the low bit
// set; 0 for none.
func initHash(name string) uint32 {
	if name == "" {
		return 0
	}
	return symset.GNUHash(name) | 1
}

// recentPicks returns the picks of the query digest (with the PyInit_
// name hash init) when the entry keeps them. x.mu is held.
func (e *indexEntry) recentPicks(digest [2]uint64, init uint32) ([]int, bool) {
	for _, r := range e.recent {
		if r.query == digest && r.init == init {
			return r.picks, true
		}
	}
	return nil, false
}

// picks returns the symbols (by index) of the table of name hashes whose
// hashes are those of names q asks for, or of init (a module's PyInit_
// function, "" for none). It reads every hash of every library the index
// answers for (torch's closure: 360,000), most ruled out by the bitmap.
func (q *indexQuery) picks(hashes []byte, init string) []int {
	var out []int
	initHash, hasInit := symset.GNUHash(init)&^1, init != ""
	either := q.either
	pick := func(i int, v uint32) {
		h := v &^ 1 // the low bit says the symbol is defined
		if hasInit && h == initHash || q.names.has(h) || v&1 != 0 && q.defNames.has(h) {
			out = append(out, i)
		}
	}
	// Two hashes a load: most pairs are both ruled out by the bitmap.
	i := 0
	for ; len(hashes) >= 8; i += 2 {
		v := binary.LittleEndian.Uint64(hashes)
		hashes = hashes[8:]
		lo, hi := uint32(v)&^1, uint32(v>>32)&^1
		if either[lo>>22]&(1<<(lo>>16&63))|either[hi>>22]&(1<<(hi>>16&63)) != 0 || hasInit && (lo == initHash || hi == initHash) {
			pick(i, uint32(v))
			pick(i+1, uint32(v>>32))
		}
	}
	if len(hashes) >= 4 {
		pick(i, binary.LittleEndian.Uint32(hashes))
	}
	return out
}

// queryFor returns the hashes of the names opt asks for. x.mu is held.
func (x *Index) queryFor(opt Options) *indexQuery {
	if q := x.query; q != nil && q.only == opt.Only && q.defs == opt.OnlyDefs {
		return q
	}
	q := &indexQuery{only: opt.Only, defs: opt.OnlyDefs, names: newHashSet(opt.Only), defNames: newHashSet(opt.OnlyDefs),
		either: new([1 << 10]uint64)}
	for i := range q.either {
		q.either[i] = q.names.bitmap[i] | q.defNames.bitmap[i]
	}
	q.setDigest()
	x.query = q
	return q
}

// picksOf returns the symbols of a table of name hashes that a read with
// opt of a file whose PyInit_ name is init picks (lookup): the first read
// of a file keeps them whole (store), so that the next finds them.
func (x *Index) picksOf(opt Options, hashes []byte, init string) []int {
	x.mu.Lock()
	q := x.queryFor(opt)
	x.mu.Unlock()
	return q.picks(hashes, init)
}

// store remembers o, read in full with opt from the file real (identified
// by id): its names' GNU hashes, and the symbols they pick for opt (as a
// lookup would pick them, picksOf), unless the file changed too recently
// to tell a later change from this version.
func (x *Index) store(real string, id fileID, o *Object, opt Options) {
	if x == nil || id.ino == 0 || o.nameHashes == nil {
		return
	}
	racy := indexNow().Add(-keepfile.Racy).UnixNano()
	if id.mtime > racy || id.ctime > racy {
		return
	}
	<-x.loaded
	e := &indexEntry{id: id, class: uint8(o.Class), data: uint8(o.Data), typ: uint8(o.Type), machine: uint16(o.Machine),
		executable: o.Executable, soname: o.Soname, needed: o.Needed, rpath: o.Rpath, runpath: o.Runpath,
		writable: o.writable, relro: o.relro, hashes: o.nameHashes, hashCRC: crc32.ChecksumIEEE(o.nameHashes), used: true}
	e.hashState.Store(hashesGood)
	picks := make([]int, 0, len(o.picked))
	for _, p := range o.picked {
		picks = append(picks, int(p.index))
	}
	if len(picks) > 0 {
		e.picked = appendPicked(nil, o.picked)
	} else {
		picks = nil // as a lookup's picks of none
	}
	init := initHash(opt.initName(o.Path))
	x.mu.Lock()
	defer x.mu.Unlock()
	e.recent = []recentPicks{{x.queryFor(opt).digest, init, picks}}
	x.entries[real] = e
	x.changed = true
}

// encodeIndex writes the entries of keys, in that order, each with the
// links to it, while the file stays under indexMax. An entry and its
// links are kept or left out together: a link left out alone would be
// found again, and written again, by every run.
func encodeIndex(entries map[string]*indexEntry, keys []string, links map[string]string) []byte {
	to := make(map[string][]string, len(keys)) // the links to each entry
	for p, real := range links {
		to[real] = append(to[real], p)
	}
	// Room for all at once (an index is megabytes; grown by doubling, a
	// third of encoding it was copying), from the scratch buffers'
	// mappings: fresh 4 KB pages cost more than the encoding.
	size := len(indexMagic) + 8
	for _, k := range keys {
		e := entries[k]
		size += len(k) + len(e.raw) + len(e.hashes) + len(e.picked) + 512 // and the little else an entry holds
		for _, r := range e.recent {
			size += 32 + 5*len(r.picks)
		}
	}
	for p, real := range links {
		size += len(p) + len(real) + 20
	}
	out := append(takeScratch(min(size, indexMax+indexMax/8)), indexMagic...)
	var n uint32
	out = binary.LittleEndian.AppendUint32(out, 0) // the count, set below
	var kept []string
	linkBytes := binary.MaxVarintLen64 + 4 // their count, and the CRC after them
	for _, k := range keys {
		start := len(out)
		out = appendEntry(out, k, entries[k])
		mine := 0
		for _, p := range to[k] {
			mine += strSize(p) + strSize(k)
		}
		if len(out)+linkBytes+mine > indexMax {
			out = out[:start] // this one and the rest do not fit
			break
		}
		linkBytes += mine
		kept = append(kept, to[k]...)
		n++
	}
	binary.LittleEndian.PutUint32(out[len(indexMagic):], n)
	slices.Sort(kept)
	start := len(out)
	out = binary.AppendUvarint(out, uint64(len(kept)))
	for _, p := range kept {
		out = appendStr(appendStr(out, p), links[p])
	}
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// A damaged file (a flipped bit in a hash would hide a name) is never
// answered from. Each entry carries two CRC-32s: one of its hashes (most
// of the file), checked when a run first scans them, and one of the rest,
// checked when the file is read, as is the CRC after the links; so a run
// that asks what the last one asked touches a quarter of the file. CRC-32
// (IEEE), not Castagnoli's: Go builds the Castagnoli tables for SSE 4.2
// when a program starts (0.3 ms of every etlink command, measured).

// The states of an entry's hashes (indexEntry.hashState).
const (
	hashesUnchecked = iota
	hashesGood
	hashesDamaged
)

// hashesIntact reports whether e's hashes are as written (their CRC),
// checked once; it reads the mapped file (the caller guards it).
func (e *indexEntry) hashesIntact() bool {
	switch e.hashState.Load() {
	case hashesGood:
		return true
	case hashesDamaged:
		return false
	}
	state := uint32(hashesDamaged)
	if crc32.ChecksumIEEE(e.hashes) == e.hashCRC {
		state = hashesGood
	}
	e.hashState.Store(state)
	return state == hashesGood
}

// appendEntry appends the entry e of the file k as the index holds it:
// its length (4 bytes, little-endian), then it, as read when it was not
// decoded (entryFields when it was).
func appendEntry(out []byte, k string, e *indexEntry) []byte {
	at := len(out)
	out = append(out, 0, 0, 0, 0)
	if e.raw != nil {
		out = append(out, e.raw...)
	} else {
		out = entryFields(out, k, e)
	}
	binary.LittleEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out
}

// entryFields appends e's fields, ending in the CRC-32 of all of them but
// the hashes (which have their own, before them).
func entryFields(out []byte, k string, e *indexEntry) []byte {
	start := len(out)
	out = appendStr(out, k)
	for _, v := range []uint64{e.id.dev, e.id.ino, uint64(e.id.size), uint64(e.id.mtime), uint64(e.id.ctime)} {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	exe := byte(0)
	if e.executable {
		exe = 1
	}
	out = append(out, e.class, e.data, e.typ, exe)
	out = binary.LittleEndian.AppendUint16(out, e.machine)
	out = appendStr(out, e.soname)
	for _, list := range [][]string{e.needed, e.rpath, e.runpath} {
		out = binary.AppendUvarint(out, uint64(len(list)))
		for _, s := range list {
			out = appendStr(out, s)
		}
	}
	for _, rs := range [][]addrRange{e.writable, e.relro} {
		out = binary.AppendUvarint(out, uint64(len(rs)))
		for _, r := range rs {
			out = binary.AppendUvarint(out, r.start)
			out = binary.AppendUvarint(out, r.end)
		}
	}
	out = binary.AppendUvarint(out, uint64(len(e.hashes)/4))
	out = binary.LittleEndian.AppendUint32(out, e.hashCRC)
	crc := crc32.ChecksumIEEE(out[start:])
	out = append(out, e.hashes...)
	rest := len(out)
	picked := e.picked
	if picked == nil { // none picked yet: an empty block
		picked = appendPicked(nil, nil)
	}
	out = appendBytes(out, picked)
	out = append(out, byte(len(e.recent)))
	for _, r := range e.recent {
		out = binary.LittleEndian.AppendUint64(out, r.query[0])
		out = binary.LittleEndian.AppendUint64(out, r.query[1])
		out = binary.LittleEndian.AppendUint32(out, r.init)
		out = binary.AppendUvarint(out, uint64(len(r.picks)))
		prev := -1
		for _, p := range r.picks {
			out = binary.AppendUvarint(out, uint64(p-prev)) // ascending: the gaps
			prev = p
		}
	}
	return binary.LittleEndian.AppendUint32(out, crc32.Update(crc, crc32.IEEETable, out[rest:]))
}

// strSize is how many bytes appendStr appends for s.
func strSize(s string) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(len(s))) + len(s)
}

var errIndex = errors.New("damaged index")

// appendStr appends s as the index holds a string: its length, then it.
func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// appendBytes appends b as the index holds a block: its length, then it.
func appendBytes(out, b []byte) []byte {
	return append(binary.AppendUvarint(out, uint64(len(b))), b...)
}

// appendPicked appends the symbols an entry holds whole (sorted by index,
// each once), as the file holds them: their count, a table of each one's
// index and where its record starts (4 bytes each, little-endian), then
// the records. A read finds its picks in the table, decoding only them.
func appendPicked(out []byte, picked []pickedSymbol) []byte {
	var recs []byte
	out = binary.AppendUvarint(out, uint64(len(picked)))
	for _, p := range picked {
		out = binary.LittleEndian.AppendUint32(out, p.index)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(recs)))
		recs = appendStr(recs, p.Name)
		recs = binary.LittleEndian.AppendUint64(recs, p.Value)
		recs = binary.LittleEndian.AppendUint64(recs, p.Size)
		recs = binary.LittleEndian.AppendUint16(recs, p.section)
		flags := byte(0)
		if p.hasVersion {
			flags |= pickHasVersion
		}
		if v := p.SymVersion; v != nil {
			flags |= pickVersioned
			if v.Hidden {
				flags |= pickHidden
			}
		}
		recs = append(recs, p.bind, p.typ, p.vis, flags)
		if v := p.SymVersion; v != nil {
			recs = appendStr(appendStr(recs, v.Version), v.Library)
		}
	}
	return append(out, recs...)
}

// pickedTable is a block appendPicked wrote, its table checked.
type pickedTable struct {
	table, recs []byte
}

// readPickedTable checks b's table: indices ascending, each record where
// the records are.
func readPickedTable(b []byte) (pickedTable, bool) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w)/8 {
		return pickedTable{}, false
	}
	t := pickedTable{table: b[w : w+8*int(n)], recs: b[w+8*int(n):]}
	for k := 0; k < len(t.table); k += 8 {
		if k > 0 && binary.LittleEndian.Uint32(t.table[k:]) <= binary.LittleEndian.Uint32(t.table[k-8:]) ||
			int(binary.LittleEndian.Uint32(t.table[k+4:])) >= len(t.recs) {
			return pickedTable{}, false
		}
	}
	return t, true
}

func (t pickedTable) len() int { return len(t.table) / 8 }

// at decodes the k-th record, its strings copied into strs's chunk;
// strs nil: views of the table's bytes, the version made one of vers.
func (t pickedTable) at(k int, strs *[]byte, vers *sharedVersions) (pickedSymbol, bool) {
	d := indexDecoder{b: t.recs[binary.LittleEndian.Uint32(t.table[8*k+4:]):]}
	if strs != nil {
		d.strs = *strs
		defer func() { *strs = d.strs }()
	} else {
		d.view = true
	}
	p := pickedSymbol{index: t.index(k)}
	p.Name, p.Value, p.Size = d.str(), d.u64(), d.u64()
	b := d.take(6)
	if b == nil {
		return pickedSymbol{}, false
	}
	p.section, p.bind, p.typ, p.vis = binary.LittleEndian.Uint16(b), b[2], b[3], b[4]
	flags := b[5]
	if flags&^(pickHasVersion|pickVersioned|pickHidden) != 0 || flags&(pickVersioned|pickHidden) == pickHidden {
		return pickedSymbol{}, false // never written
	}
	p.hasVersion = flags&pickHasVersion != 0
	if flags&pickVersioned != 0 {
		v := SymVersion{Version: d.str(), Hidden: flags&pickHidden != 0, Library: d.str()}
		switch {
		case v == *hiddenUnversioned:
			p.SymVersion = hiddenUnversioned
		case d.view:
			p.SymVersion = vers.of(v)
		default:
			c := v // allocated here only: v stays on the stack
			p.SymVersion = &c
		}
	}
	return p, d.err == nil
}

// index is the symbol index of the k-th record.
func (t pickedTable) index(k int) uint32 { return binary.LittleEndian.Uint32(t.table[8*k:]) }

// find decodes the record of the symbol of index i, when the table has it,
// and returns its place: its name a view of the table's bytes, its version
// one of vers. The records before from hold lower indices (picks ascend):
// the search gallops on from there, a step or two when the picks are dense.
func (t pickedTable) find(i uint32, from int, vers *sharedVersions) (pickedSymbol, int, bool) {
	lo, step, n := from, 1, t.len()
	for lo+step <= n && t.index(lo+step-1) < i {
		lo += step
		step *= 2
	}
	hi := min(lo+step, n) // the record, if any, is in [lo, hi)
	k, found := sort.Find(hi-lo, func(k int) int { return cmp.Compare(i, t.index(lo+k)) })
	if !found {
		return pickedSymbol{}, 0, false
	}
	p, ok := t.at(lo+k, nil, vers)
	return p, lo + k, ok
}

// decodePicked reads every symbol of a block appendPicked wrote; ok is
// false for anything else. The names are copied out of b.
func decodePicked(b []byte) (picked []pickedSymbol, ok bool) {
	t, ok := readPickedTable(b)
	if !ok {
		return nil, false
	}
	strs := make([]byte, 0, len(t.recs)) // the names are fewer bytes: one chunk holds them
	for k := range t.len() {
		p, ok := t.at(k, &strs, nil)
		if !ok {
			return nil, false
		}
		picked = append(picked, p)
	}
	return picked, true
}

// The flags of a picked symbol in the file.
const (
	pickHasVersion = 1 << iota // .gnu.version gives it one
	pickVersioned              // a SymVersion follows: version and library names
	pickHidden                 // that version is hidden
)

// indexNow is the clock the racy rule reads (tests move it on).
var indexNow = time.Now

// decodeIndex reads what encodeIndex wrote; ok is false for anything else.
// An entry is read as far as its key and its file's identity: the rest is
// decoded (decodeEntry) when a run first asks about it (a cache shared by
// many projects holds thousands a run does not ask about). The links are
// read whole, and checked.
func decodeIndex(data []byte) (entries map[string]*indexEntry, links map[string]string, ok bool) {
	if !bytes.HasPrefix(data, []byte(indexMagic)) || len(data) < len(indexMagic)+8 {
		return nil, nil, false
	}
	d := indexDecoder{b: data[len(indexMagic)+4:]}
	n := binary.LittleEndian.Uint32(data[len(indexMagic):])
	entries = make(map[string]*indexEntry, min(n, 1<<16))
	for i := range n {
		var size uint32
		if b := d.take(4); b != nil {
			size = binary.LittleEndian.Uint32(b)
		}
		raw := d.take(int(size))
		e := &indexEntry{rank: int(i), raw: raw}
		head := indexDecoder{b: raw, strs: d.strs} // the keys copied into one chunk
		k := head.str()
		e.id = fileID{head.u64(), head.u64(), int64(head.u64()), int64(head.u64()), int64(head.u64())}
		if d.strs = head.strs; d.err != nil || head.err != nil {
			return nil, nil, false
		}
		entries[k] = e
	}
	start := d.b
	nl := d.count(2)
	links = make(map[string]string, nl)
	for range nl {
		p := d.str()
		if links[p] = d.str(); entries[links[p]] == nil {
			d.err = errIndex // a link is written with its entry
		}
	}
	if b := d.take(4); d.err != nil || len(d.b) != 0 || binary.LittleEndian.Uint32(b) != crc32.ChecksumIEEE(start[:len(start)-4]) {
		return nil, nil, false
	}
	return entries, links, true
}

// decodeEntry decodes e from the bytes the file holds (e.raw), checked by
// their CRC (the hashes by theirs when first scanned); ok is false for a
// damaged entry. Its strings are copied into the chunk strs (one for the
// entries of an index: a chunk each was a 32 KB allocation an entry). It
// reads the mapped file: the caller guards it.
func decodeEntry(e *indexEntry, strs *[]byte) bool {
	d := indexDecoder{b: e.raw, strs: *strs}
	defer func() { *strs = d.strs }()
	start := d.b
	d.str() // the key, read by decodeIndex
	d.take(5 * 8)
	if h := d.take(6); h != nil {
		e.class, e.data, e.typ, e.executable = h[0], h[1], h[2], h[3] == 1
		e.machine = binary.LittleEndian.Uint16(h[4:])
	}
	e.soname = d.str()
	for _, list := range []*[]string{&e.needed, &e.rpath, &e.runpath} {
		for range d.count(1) {
			*list = append(*list, d.str())
		}
	}
	for _, rs := range []*[]addrRange{&e.writable, &e.relro} {
		for range d.count(2) {
			*rs = append(*rs, addrRange{d.uvarint(), d.uvarint()})
		}
	}
	nh := d.count(4)
	if b := d.take(4); b != nil {
		e.hashCRC = binary.LittleEndian.Uint32(b)
	}
	crc := crc32.ChecksumIEEE(start[:len(start)-len(d.b)])
	e.hashes = d.take(4 * nh)
	rest := d.b
	e.picked = d.take(d.count(1))
	if b := d.take(1); b != nil {
		if b[0] > maxRecent {
			d.err = errIndex
		}
		e.recent = make([]recentPicks, b[0])
	}
	for i := range e.recent {
		r := &e.recent[i]
		r.query = [2]uint64{d.u64(), d.u64()}
		if b := d.take(4); b != nil {
			r.init = binary.LittleEndian.Uint32(b)
		}
		n := d.count(1)
		if n > 0 {
			r.picks = make([]int, n)
		}
		prev := -1
		for j := range r.picks {
			gap := d.uvarint()
			if gap == 0 || gap > uint64(len(e.hashes)/4) {
				d.err = errIndex // ascending, within the table
			}
			prev += int(gap)
			r.picks[j] = prev
		}
	}
	b := d.take(4)
	if d.err != nil || len(d.b) != 0 || binary.LittleEndian.Uint32(b) != crc32.Update(crc, crc32.IEEETable, rest[:len(rest)-4]) {
		return false
	}
	e.raw = nil
	return true
}

// indexDecoder reads the index's fields; past its end (a damaged file)
// every field is zero and err is set.
type indexDecoder struct {
	b    []byte
	err  error
	view bool // strings are views of b, not copied into strs
	// strs holds the strings read, copied a chunk at a time.
	strs []byte
}

func (d *indexDecoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = errIndex
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *indexDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if d.err != nil || n <= 0 {
		d.err = errIndex
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *indexDecoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// count reads a count of items of at least size bytes each: never more
// than the bytes left could hold.
func (d *indexDecoder) count(size int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.b))/uint64(size) {
		d.err = errIndex
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}

// str reads a string, copied into strs: one allocation for many.
func (d *indexDecoder) str() string {
	b := d.take(d.count(1))
	if len(b) == 0 {
		return ""
	}
	if d.view {
		return unsafe.String(&b[0], len(b))
	}
	if len(d.strs)+len(b) > cap(d.strs) {
		d.strs = make([]byte, 0, max(len(b), 32<<10)) // the strings in the last chunk keep it
	}
	at := len(d.strs)
	d.strs = append(d.strs, b...)
	return unsafe.String(&d.strs[at], len(b))
}

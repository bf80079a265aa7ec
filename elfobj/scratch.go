package elfobj

import "sync"

// Scratch buffers hold the tables of the images being read. They are kept
// from file to file, for the life of the process: on the VMs etlink runs on
// in CI, the first touch of a fresh 4 KB page costs about as much as reading
// it from the page cache (13 us), so memory is better faulted in once. They
// are mapped with transparent huge pages where the kernel offers them
// (mapHuge), one fault per 2 MB: large buffers each in their own mapping,
// smaller ones cut from a shared 2 MB one (a closure read needs a few of
// 64 KB to 1 MB, which would otherwise fault in 4 KB at a time). The
// first small ones come from the heap (heapSmall): a run the index answers
// reads a few files, in one or two buffers of 64 KB, and a 2 MB page
// would cost it the zeroing of 32 times what it uses.
//
// Unlike a sync.Pool, the free list survives garbage collections, which come
// often while the symbol tables of a large closure pile up.
var scratchFree struct {
	sync.Mutex
	bufs   [][]byte
	mapped map[*byte]bool // buffers from mapHuge, by their first byte
	shared []byte         // what is left of the mapping small buffers are cut from
	cut    int            // bytes of mappings taken for small buffers
	heap   int            // bytes of small buffers taken from the heap
}

const (
	maxFree    = 16        // buffers kept
	maxScratch = 8 << 20   // larger buffers (a library with huge tables) are dropped after use
	maxCut     = 8 << 20   // small buffers cut from mappings (never unmapped: a dropped one is lost), then from the heap
	heapSmall  = 256 << 10 // small buffers taken from the heap before the first mapping
	minScratch = 64 << 10
	hugeMin    = 2 << 20 // the size of one huge page
)

// takeScratch returns an empty buffer with room for n bytes: the smallest
// free one that fits, or a new one.
func takeScratch(n int) []byte {
	scratchFree.Lock()
	best := -1
	for i, b := range scratchFree.bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(scratchFree.bufs[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := scratchFree.bufs[best]
		scratchFree.bufs = append(scratchFree.bufs[:best], scratchFree.bufs[best+1:]...)
		scratchFree.Unlock()
		return b[:0]
	}
	defer scratchFree.Unlock()
	n = (max(n, minScratch) + minScratch - 1) / minScratch * minScratch
	if n >= hugeMin {
		if b := mapHuge((n + hugeMin - 1) / hugeMin * hugeMin); b != nil {
			if scratchFree.mapped == nil {
				scratchFree.mapped = map[*byte]bool{}
			}
			scratchFree.mapped[&b[:1][0]] = true
			return b[:0]
		}
		return make([]byte, 0, n)
	}
	if scratchFree.heap+n <= heapSmall {
		scratchFree.heap += n
		return make([]byte, 0, n)
	}
	if len(scratchFree.shared) < n {
		// The rest of the old mapping stays unused: less than one buffer.
		if scratchFree.shared = nil; scratchFree.cut < maxCut {
			scratchFree.shared = mapHuge(hugeMin)
			scratchFree.cut += hugeMin
		}
		if scratchFree.shared == nil {
			return make([]byte, 0, n)
		}
	}
	b := scratchFree.shared[:0:n] // full slice expression: an append cannot reach the next buffer
	scratchFree.shared = scratchFree.shared[n:]
	return b
}

// putScratch gives a buffer back: kept for the next reader, or dropped.
func putScratch(b []byte) {
	if cap(b) == 0 {
		return
	}
	scratchFree.Lock()
	defer scratchFree.Unlock()
	if cap(b) <= maxScratch && len(scratchFree.bufs) < maxFree {
		scratchFree.bufs = append(scratchFree.bufs, b[:0])
		return
	}
	if first := &b[:1][0]; scratchFree.mapped[first] {
		delete(scratchFree.mapped, first)
		unmapHuge(b[:cap(b)])
	}
}

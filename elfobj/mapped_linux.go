package elfobj

import "syscall"

// mapFile maps the bytes lo to hi of the file src reads, when it is one
// fdFile opened, as src's span: a read for a few symbols the index names
// touches their pages, not every page of the tables. The caller must turn
// faults into panics (a file cut short while mapped) for as long as the
// mapping is read; close unmaps it.
func (src *sectionSource) mapFile(lo, hi uint64) bool {
	h, ok := src.r.(*headReader)
	if !ok {
		return false
	}
	f, ok := h.r.(*fdFile)
	lo &^= pageSize - 1
	if !ok || lo >= hi || hi > src.size || hi-lo > maxMapped {
		return false
	}
	b, err := syscall.Mmap(f.fd, int64(lo), int(hi-lo), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return false
	}
	src.span, src.spanOff, src.mapped = b, lo, true
	return true
}

// maxMapped bounds the span mapped (address space, not memory: only the
// pages read are); pageSize aligns its start, as mmap wants.
const (
	maxMapped = 1 << 30
	pageSize  = 64 << 10 // a multiple of every page size Linux runs with
)

func unmap(b []byte) { syscall.Munmap(b) }

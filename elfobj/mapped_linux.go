package elfobj

import "syscall"

// mapFile maps the file src reads, when it is one fdFile opened, as src's
// span (the whole image, from offset 0): a read for a few symbols the
// index names touches their pages, not every page of the tables. The
// caller must turn faults into panics (a file cut short while mapped) for
// as long as the mapping is read; close unmaps it.
func (src *sectionSource) mapFile() bool {
	h, ok := src.r.(*headReader)
	if !ok {
		return false
	}
	f, ok := h.r.(*fdFile)
	if !ok || src.size == 0 || src.size > maxMapped {
		return false
	}
	b, err := syscall.Mmap(f.fd, 0, int(src.size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return false
	}
	src.span, src.spanOff, src.mapped = b, 0, true
	return true
}

// maxMapped bounds the files mapped (address space, not memory: only the
// pages read are).
const maxMapped = 4 << 30

func unmap(b []byte) { syscall.Munmap(b) }

package elfobj

import (
	"fmt"
	"io/fs"
	"syscall"

	"github.com/etlink/etlink/datafile"
)

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

// mapWhole maps the regular file at path, of at most limit bytes, read
// only; release unmaps it. Mapped, a file read whole is not copied into
// fresh memory, page by page (the index: 1.4 MB every run). Its pages are
// the page cache's: a file cut short while mapped faults on them, so its
// reader turns faults into panics.
func mapWhole(path string, limit int64) (data []byte, release func(), err error) {
	f, size, mode, _, err := openRead(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	switch {
	case !mode.IsRegular():
		return nil, nil, &fs.PathError{Op: "map", Path: path, Err: fmt.Errorf("not a regular file but %s", datafile.Kind(mode))}
	case size > limit:
		return nil, nil, &fs.PathError{Op: "map", Path: path, Err: fmt.Errorf("%w: %d bytes, the limit is %d", datafile.ErrTooLarge, size, limit)}
	case size == 0:
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(f.(*fdFile).fd, 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "map", Path: path, Err: err}
	}
	return b, func() { syscall.Munmap(b) }, nil
}

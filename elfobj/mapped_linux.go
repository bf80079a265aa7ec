package elfobj

import (
	"io/fs"
	"syscall"

	"github.com/etlink/etlink/datafile"
)

// mapWhole maps the regular file at path, of at most limit bytes, read
// only; release unmaps it. Mapped, a file read whole is not copied into
// fresh memory, page by page (the index: 1.4 MB every run). Its pages are
// the page cache's: a file cut short while mapped faults on them, so its
// reader turns faults into panics.
func mapWhole(path string, limit int64) (data []byte, release func(), err error) {
	f, fi, err := datafile.OpenLimited(path, limit)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() == 0 {
		return nil, func() {}, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "map", Path: path, Err: err}
	}
	return b, func() { syscall.Munmap(b) }, nil
}

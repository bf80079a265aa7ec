package elfobj

import (
	"fmt"
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

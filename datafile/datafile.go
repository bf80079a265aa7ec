// Package datafile opens the files etlink's inputs name as data, and only
// as data: a regular file (symbolic links followed), opened without
// blocking, so that a FIFO, a device, a socket or a directory named by a
// hostile build tree is an error naming it at once rather than a hang or
// an endless read, and read only up to a size limit.
package datafile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Open opens path for reading if it is a regular file; the error names
// the path. O_NONBLOCK makes opening a FIFO return at once (a regular
// file ignores it); O_NOCTTY keeps a terminal from becoming etlink's.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file (%s)", Kind(fi.Mode()))}
	}
	return f, fi, nil
}

// OpenLimited is Open for a file of at most limit bytes: a larger one is
// an error wrapping ErrTooLarge, for a reader that takes the file whole.
func OpenLimited(path string, limit int64) (*os.File, fs.FileInfo, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() > limit {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, fi.Size(), limit)}
	}
	return f, fi, nil
}

// ErrTooLarge is wrapped by the error OpenLimited and ReadFile give for a file over its
// limit.
var ErrTooLarge = fmt.Errorf("file too large")

// ReadFile reads a regular file of at most limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, fi, err := OpenLimited(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may grow while read: never more than limit+1 bytes. The
	// buffer starts at the size the file has (io.ReadAll would start at
	// 512 bytes and double, allocating twice the file and copying it).
	r := io.LimitReader(f, limit+1)
	data := make([]byte, 0, fi.Size()+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w: grew past the limit of %d bytes while read", ErrTooLarge, limit)}
	}
	return data, nil
}

// Limits for the kinds of text etlink reads whole.
const (
	SmallText = 16 << 20  // configuration, baselines, link.txt, response files, CMakeLists.txt
	LargeText = 512 << 20 // build.ninja, File API replies
)

// Kind names a file type for an error message: "a FIFO", "a directory" ...
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

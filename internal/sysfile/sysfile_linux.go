//go:build linux

package sysfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// Scan calls each with the name and type of every entry of dir but . and
// .. (the type bits of fs.FileMode: 0 for a regular file), in the order the
// file system gives them; name is valid during the call only. buf is the
// buffer to read into (grown to Buffer if smaller), returned for the next
// Scan. An entry whose type the file system does not say is lstat'd (one
// gone meanwhile is left out, as os.ReadDir leaves it). The errors are
// os.ReadDir's. info is dir's stat (as os.Stat's), taken once it is open,
// before its entries are read.
func Scan(dir string, buf []byte, each func(name []byte, typ fs.FileMode)) (info fs.FileInfo, _ []byte, _ error) {
	if cap(buf) < Buffer {
		buf = make([]byte, Buffer)
	}
	buf = buf[:cap(buf)]
	fd, err := Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC)
	if err != nil {
		return nil, buf, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer Close(fd)
	d := &dirInfo{name: filepath.Base(dir)}
	if err := Fstat(fd, &d.st); err != nil {
		return nil, buf, &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	for {
		n, err := call(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		if err != nil {
			return nil, buf, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return d, buf, nil
		}
		if err := entries(dir, buf[:n], each); err != nil {
			return nil, buf, err
		}
	}
}

// dirInfo is a directory's stat, as os.Stat gives it.
type dirInfo struct {
	name string
	st   syscall.Stat_t
}

func (d *dirInfo) Name() string       { return d.name }
func (d *dirInfo) Size() int64        { return d.st.Size }
func (d *dirInfo) ModTime() time.Time { return time.Unix(d.st.Mtim.Unix()) }
func (d *dirInfo) IsDir() bool        { return true }
func (d *dirInfo) Sys() any           { return &d.st }

func (d *dirInfo) Mode() fs.FileMode {
	m := fs.ModeDir | fs.FileMode(d.st.Mode&0o777)
	if d.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if d.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if d.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// entries calls each for the linux_dirent64 records in b.
func entries(dir string, b []byte, each func(name []byte, typ fs.FileMode)) error {
	for len(b) >= 19 {
		ino := *(*uint64)(unsafe.Pointer(&b[0]))
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < 19 || reclen > len(b) {
			return &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.EIO}
		}
		rec := b[:reclen]
		b = b[reclen:]
		name := rec[19:]
		if i := slices.Index(name, 0); i >= 0 {
			name = name[:i]
		}
		if ino == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		typ, known := modeOf(rec[18])
		if !known {
			fi, err := os.Lstat(dir + "/" + string(name))
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				return err
			}
			typ = fi.Mode().Type()
		}
		each(name, typ)
	}
	return nil
}

// modeOf is the type of a d_type, and whether the file system said it.
func modeOf(dt byte) (fs.FileMode, bool) {
	switch dt {
	case syscall.DT_REG:
		return 0, true
	case syscall.DT_DIR:
		return fs.ModeDir, true
	case syscall.DT_LNK:
		return fs.ModeSymlink, true
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, true
	case syscall.DT_SOCK:
		return fs.ModeSocket, true
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case syscall.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// Append reads the file at path to its end, appended to buf until buf
// holds limit bytes. A file longer than buf has room for is asked its
// size (the only time Append asks) and buf grown to hold it and a byte
// more, to see its end. The error is the open's: a read that fails ends
// the file there, as io.ReadAll's reader keeps what it read.
func Append(path string, buf []byte, limit int) ([]byte, error) {
	fd, err := Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC)
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer Close(fd)
	start := len(buf)
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			var st syscall.Stat_t
			more := 1
			if err := Fstat(fd, &st); err == nil && int64(start)+st.Size >= int64(len(buf)) {
				more = int(min(int64(start)+st.Size+1, int64(limit))) - len(buf)
			}
			buf = slices.Grow(buf, max(more, 1))
		}
		room := buf[len(buf):min(cap(buf), limit)]
		n, err := call(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&room[0])), uintptr(len(room)))
		if err != nil || n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

// Open opens path (relative to the working directory: AT_FDCWD) with the
// open(2) flags mode, raw (call).
func Open(path string, mode int) (int, error) {
	name, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	atFDCWD := -100
	return call(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(name)), uintptr(mode))
}

// Fstat is fstat(2) on fd, raw.
func Fstat(fd int, st *syscall.Stat_t) error {
	_, err := call(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	return err
}

// Pread is pread(2) of b at off, raw: the bytes read, fewer only at the
// end of the file.
func Pread(fd int, b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r, err := callOff(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off))
	return r, err
}

// Close closes fd, once: interrupted, it is closed all the same.
func Close(fd int) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_CLOSE, uintptr(fd), 0, 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// call makes a system call raw, again while a signal interrupts it. Raw,
// the goroutine keeps its P: marked idle for the call (syscall.Syscall),
// the P is taken by the system monitor from a call over 20 us and must be
// won back (elfobj's reads found a fifth of a run's CPU so spent). These
// calls list a directory or read a regular file, waiting on no other
// process.
func call(trap, a1, a2, a3 uintptr) (int, error) {
	return callOff(trap, a1, a2, a3, 0)
}

// callOff is call with a fourth argument.
func callOff(trap, a1, a2, a3, a4 uintptr) (int, error) {
	for {
		r, _, e := syscall.RawSyscall6(trap, a1, a2, a3, a4, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0:
			return -1, e
		}
		return int(r), nil
	}
}

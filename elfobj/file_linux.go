package elfobj

import (
	"io"
	"io/fs"
	"syscall"
	"unsafe"
)

// fdFile reads a file with pread on its descriptor. An os.File would also
// register the descriptor with the runtime's poller (which refuses regular
// files, after two fcntl calls and an epoll_ctl) and set a finalizer: for
// the hundreds of libraries a closure read opens, more system calls than
// the read itself makes.
//
// The calls are raw (syscall.RawSyscall6: the goroutine keeps its P). With
// syscall.Syscall the runtime marks the P idle for the call; the system
// monitor takes a P left in a call for 20 us (a read of a large table is
// longer) and hands it to another thread, and the reader must then win a P
// back: on a 2-core VM, torch's closure read made 600 context switches and
// 650 monitor wake-ups for 1200 reads, a fifth of the run's CPU time.
// Opening, inspecting and reading a regular file, which is all these calls
// do (openRead refuses anything else before a read), does not wait on
// another process; a read that waits on the disk holds the P that long.
type fdFile struct {
	fd   int
	name string
}

// openRead opens p for reading; it returns the file's size, type and
// identity.
func openRead(p string) (readFile, int64, fs.FileMode, fileID, error) {
	fd, err := retry(func() (int, error) {
		return rawOpen(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	})
	if err != nil {
		return nil, 0, 0, fileID{}, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st syscall.Stat_t
	if _, err := retry(func() (int, error) { return rawFstat(fd, &st) }); err != nil {
		rawClose(fd)
		return nil, 0, 0, fileID{}, &fs.PathError{Op: "stat", Path: p, Err: err}
	}
	var mode fs.FileMode
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		mode = fs.ModeDir
	case syscall.S_IFIFO:
		mode = fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		mode = fs.ModeSocket
	case syscall.S_IFLNK:
		mode = fs.ModeSymlink
	default:
		mode = fs.ModeDevice
	}
	return &fdFile{fd, p}, st.Size, mode, idOf(&st), nil
}

// statID is the identity of the file at p, and whether there is one.
func statID(p string) (fileID, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(p, &st); err != nil {
		return fileID{}, false
	}
	return idOf(&st), true
}

// infoID is the identity in fi, a stat's answer; false for none.
func infoID(fi fs.FileInfo) (fileID, bool) {
	if fi == nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return idOf(st), true
}

func idOf(st *syscall.Stat_t) fileID {
	return fileID{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// ReadAt reads len(b) bytes at off, as io.ReaderAt: short only at the end
// of the file (io.EOF) or on an error.
func (f *fdFile) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EINVAL}
	}
	n := 0
	for n < len(b) {
		m, err := retry(func() (int, error) { return rawPread(f.fd, b[n:], off+int64(n)) })
		switch {
		case err != nil:
			return n, &fs.PathError{Op: "read", Path: f.name, Err: err}
		case m == 0:
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

func (f *fdFile) Close() error { return rawClose(f.fd) }

// retry repeats a system call interrupted by a signal (the Go runtime
// preempts goroutines with signals).
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// rawResult is a raw call's result as syscall's wrappers return it. The
// pointers of a call are converted in its argument list: the compiler keeps
// what they point to alive, and in place, only there.
func rawResult(r uintptr, e syscall.Errno) (int, error) {
	if e != 0 {
		return int(r), e
	}
	return int(r), nil
}

func rawOpen(p string, flags int) (int, error) {
	name, err := syscall.BytePtrFromString(p)
	if err != nil {
		return -1, err
	}
	atFDCWD := -100 // AT_FDCWD: p is relative to the working directory
	r, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(name)), uintptr(flags), 0, 0, 0)
	return rawResult(r, e)
}

func rawFstat(fd int, st *syscall.Stat_t) (int, error) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0, 0, 0, 0)
	return rawResult(r, e)
}

func rawPread(fd int, b []byte, off int64) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	r, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	return rawResult(r, e)
}

func rawClose(fd int) error {
	_, _, e := syscall.RawSyscall6(syscall.SYS_CLOSE, uintptr(fd), 0, 0, 0, 0, 0)
	_, err := rawResult(0, e)
	return err
}

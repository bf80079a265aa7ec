package elfobj

import (
	"io"
	"io/fs"
	"syscall"
)

// fdFile reads a file with pread on its descriptor. An os.File would also
// register the descriptor with the runtime's poller (which refuses regular
// files, after two fcntl calls and an epoll_ctl) and set a finalizer: for
// the hundreds of libraries a closure read opens, more system calls than
// the read itself makes.
type fdFile struct {
	fd   int
	name string
}

// openRead opens p for reading; it returns the file's size and type.
func openRead(p string) (readFile, int64, fs.FileMode, error) {
	fd, err := retry(func() (int, error) {
		return syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	})
	if err != nil {
		return nil, 0, 0, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st syscall.Stat_t
	if _, err := retry(func() (int, error) { return 0, syscall.Fstat(fd, &st) }); err != nil {
		syscall.Close(fd)
		return nil, 0, 0, &fs.PathError{Op: "stat", Path: p, Err: err}
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
	return &fdFile{fd, p}, st.Size, mode, nil
}

// ReadAt reads len(b) bytes at off, as io.ReaderAt: short only at the end
// of the file (io.EOF) or on an error.
func (f *fdFile) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EINVAL}
	}
	n := 0
	for n < len(b) {
		m, err := retry(func() (int, error) { return syscall.Pread(f.fd, b[n:], off+int64(n)) })
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

func (f *fdFile) Close() error { return syscall.Close(f.fd) }

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

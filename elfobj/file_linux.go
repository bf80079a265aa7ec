package elfobj

import (
	"io"
	"io/fs"
	"syscall"

	"github.com/etlink/etlink/internal/sysfile"
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
	fd, err := sysfile.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
	if err != nil {
		return nil, 0, 0, fileID{}, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	var st syscall.Stat_t
	if err := sysfile.Fstat(fd, &st); err != nil {
		sysfile.Close(fd)
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
		m, err := sysfile.Pread(f.fd, b[n:], off+int64(n))
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

func (f *fdFile) Close() error { return sysfile.Close(f.fd) }

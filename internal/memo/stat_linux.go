package memo

import (
	"os"
	"syscall"
)

// inodeAndChange are fi's inode and change time (ctime: no user sets it).
func inodeAndChange(fi os.FileInfo) (uint64, int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Nano()
	}
	return 0, 0
}

// statWitness is p as a stat of it says (not followed if link), taken
// into a Stat_t of its own: os.Stat's FileInfo was an allocation for each
// of the hundreds of witnesses a warm run checks.
func statWitness(p string, link bool) Witness {
	var st syscall.Stat_t
	var err error = syscall.EINTR
	for err == syscall.EINTR {
		if link {
			err = syscall.Lstat(p, &st)
		} else {
			err = syscall.Stat(p, &st)
		}
	}
	if err != nil {
		return Witness{Path: p, Link: link}
	}
	return Witness{Path: p, Link: link, Exists: true, Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Changed: st.Ctim.Nano()}
}

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

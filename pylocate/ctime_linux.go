package pylocate

import "syscall"

// changeTime is p's change time (ctime: no user sets it), 0 when there is
// no p.
func changeTime(p string) int64 {
	var st syscall.Stat_t
	if syscall.Stat(p, &st) != nil {
		return 0
	}
	return st.Ctim.Nano()
}

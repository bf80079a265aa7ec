// Package sysfile reads directories and files with the system calls
// themselves, into buffers its callers reuse: no os.File (whose open of a
// file sets and clears non-blocking mode and offers the descriptor to the
// poller: four system calls besides the open, reads and close), no
// sorting, no name made a string unless the caller keeps it. Walking
// torch's 140 directories and reading its 105 sources is mostly such
// calls.
package sysfile

import "io"

// Buffer is the size of a directory read's buffer (os.ReadDir's is 8 KB):
// most directories are read in one call, and a second says the end.
const Buffer = 32 << 10

// ReadUpTo reads r to its end or limit bytes, appended to buf (grown as
// io.ReadAll grows its own when r is longer than its capacity): a failed
// read ends it there, keeping what was read.
func ReadUpTo(r io.Reader, buf []byte, limit int) []byte {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit)])
		buf = buf[:len(buf)+n]
		if err != nil {
			break
		}
	}
	return buf
}

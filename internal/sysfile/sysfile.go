// Package sysfile reads directories and files with the system calls
// themselves, into buffers its callers reuse: no os.File (whose open of a
// file sets and clears non-blocking mode and offers the descriptor to the
// poller: four system calls besides the open, reads and close), no
// sorting, no name made a string unless the caller keeps it. Walking
// torch's 140 directories and reading its 105 sources is mostly such
// calls.
package sysfile

// Buffer is the size of a directory read's buffer (os.ReadDir's is 8 KB):
// most directories are read in one call, and a second says the end.
const Buffer = 32 << 10

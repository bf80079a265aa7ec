package main

import (
	"os"
	"syscall"
	"unsafe"
)

// termWidth is the width of the terminal f writes to, or 0 when f is not a
// terminal (a pipe, a file: the report then takes its default width).
func termWidth(f *os.File) int {
	var ws struct{ Row, Col, X, Y uint16 }
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if errno != 0 {
		return 0
	}
	return int(ws.Col)
}

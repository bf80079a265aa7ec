package main

import (
	"io"
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

// isTerminal reports whether f is a terminal (its line settings can be read).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TCGETS), uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// fileOf is the file a writer of the run's ends in (its stdout behind the
// gate), or nil.
func fileOf(w io.Writer) *os.File {
	if g, ok := w.(*gate); ok {
		w = g.w
	}
	f, _ := w.(*os.File)
	return f
}

// textTerminal is how the text report fits w: the terminal's width (0 when
// w is none), and whether to colour it: a terminal that is not dumb, and
// no NO_COLOR (no-color.org); never another format.
func textTerminal(w io.Writer, format string) (width int, colour bool) {
	f := fileOf(w)
	if f == nil {
		return 0, false
	}
	width = termWidth(f)
	colour = format == "text" && width > 0 && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return width, colour
}

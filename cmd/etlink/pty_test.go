package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// pty is a pseudo-terminal of a given width, opened with the standard
// library alone (/dev/ptmx and its ioctls): what a command writes to tty,
// its terminal end, is read back from the other as written (no output
// processing: "\n" stays "\n").
type pty struct {
	tty  *os.File
	out  bytes.Buffer
	done chan struct{}
}

func openPTY(t *testing.T, cols int) *pty {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	var n uint32
	ioctl(t, master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock))
	ioctl(t, master, syscall.TIOCGPTN, unsafe.Pointer(&n))
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatal(err)
	}
	ws := struct{ Row, Col, X, Y uint16 }{Row: 50, Col: uint16(cols)}
	ioctl(t, tty, syscall.TIOCSWINSZ, unsafe.Pointer(&ws))
	var tio syscall.Termios
	ioctl(t, tty, syscall.TCGETS, unsafe.Pointer(&tio))
	tio.Oflag &^= syscall.OPOST
	ioctl(t, tty, syscall.TCSETS, unsafe.Pointer(&tio))
	p := &pty{tty: tty, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer master.Close()
		io.Copy(&p.out, master) // ends with EIO once tty is closed
	}()
	return p
}

// text closes the terminal end and returns all that was written to it.
func (p *pty) text() string {
	p.tty.Close()
	<-p.done
	return p.out.String()
}

func ioctl(t *testing.T, f *os.File, req uint, arg unsafe.Pointer) {
	t.Helper()
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); errno != 0 {
		t.Fatalf("ioctl %#x on %s: %v", req, f.Name(), errno)
	}
}

// runOnTTY runs etlink with stdout on a terminal of cols columns.
func runOnTTY(t *testing.T, cols int, args ...string) (int, string, string) {
	t.Helper()
	p := openPTY(t, cols)
	var stderr bytes.Buffer
	code := run(args, p.tty, &stderr)
	return code, p.text(), stderr.String()
}

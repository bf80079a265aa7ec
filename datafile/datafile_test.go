package datafile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFile reads files of the sizes the buffer logic distinguishes
// (empty, one byte, its initial capacity and past it), a file whose size
// says nothing of its content (/proc), and refuses one over the limit and
// a FIFO.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 4096, 100_000} {
		want := bytes.Repeat([]byte("ab\x00c"), n/4+1)[:n]
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, int64(n))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes, %v", n, len(got), err)
		}
		if n > 0 {
			if _, err := ReadFile(p, int64(n-1)); !errors.Is(err, ErrTooLarge) {
				t.Errorf("%d bytes with a limit of %d: %v, want ErrTooLarge", n, n-1, err)
			}
		}
	}
	if st, err := os.Stat("/proc/self/status"); err == nil && st.Size() == 0 {
		got, err := ReadFile("/proc/self/status", 1<<20)
		if err != nil || !bytes.Contains(got, []byte("\nPid:")) {
			t.Errorf("/proc/self/status (size 0): %q, %v", got, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(fifo, 1<<20); err == nil {
		t.Error("a FIFO was read")
	}
}

package elfobj

import "syscall"

// mapHuge maps n bytes of anonymous memory and asks for transparent huge
// pages; nil when the mapping fails (the caller then allocates).
func mapHuge(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	syscall.Madvise(b, syscall.MADV_HUGEPAGE) // advice: a kernel without huge pages refuses it, and the mapping keeps normal pages
	return b
}

func unmapHuge(b []byte) { syscall.Munmap(b) }

//go:build !linux

package elfobj

// mapHuge has no mapping to offer: buffers come from the heap.
func mapHuge(n int) []byte { return nil }

func unmapHuge(b []byte) {}

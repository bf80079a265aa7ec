//go:build !linux

package gcdefer

// hugeHeap has no huge pages to ask for here.
func hugeHeap() {}

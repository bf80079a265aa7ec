package gcdefer

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"
)

// Huge pages for the heap. A run's first touch of each 4 KB page of fresh
// memory is a page fault, and on the virtual machines CI runs on a fault
// costs 6 to 20 us: a warm conflicts run took 2,000 of them, a cold one
// or a wheel with thousands of conflicts 5,000, a third of their time.
// Go's runtime asks for no huge pages for its heap, and the kernel's
// default (transparent_hugepage=madvise) gives them only to memory that
// asks. hugeHeap grows the heap by most of what a run allocates before
// its first collection (an object of that size, never touched), advises
// huge pages for it (MADV_HUGEPAGE), and frees it: the run's allocations
// then fill it from its lowest address, one fault per 2 MB. It stays under
// Limit, so that the runtime does not hand the free pages back to the
// system to stay under the memory limit Start sets. The heap's memory
// after that (a run past its first collection) is as Go maps it.

// hugeHeapSize is the heap grown and advised.
const hugeHeapSize = Limit / 4 * 3

func hugeHeap() {
	if !thpAdvised(thpSetting()) {
		return // the advice would change nothing, and the collection cost 1 to 2 ms
	}
	old := debug.SetGCPercent(-1) // no collection while it is grown
	b := make([]byte, hugeHeapSize)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	// With the heap below it (a few MB when a run begins; Go grows the heap
	// upwards, across its 64 MB arenas): the pages of it not touched yet.
	// Unmapped parts of the range are passed over (ENOMEM); advice only.
	const below = 64 << 20
	start := p - min(p, below)
	syscall.Syscall(syscall.SYS_MADVISE, start, p+hugeHeapSize-start, syscall.MADV_HUGEPAGE)
	runtime.KeepAlive(b)
	runtime.GC() // frees it: the allocations to come reuse its pages
	debug.SetGCPercent(old)
}

// thpSetting is the kernel's transparent huge page policy, as sysfs
// shows it ("always [madvise] never"), "" without one.
func thpSetting() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	return string(b)
}

// thpAdvised reports whether memory advised MADV_HUGEPAGE gets huge pages
// under the policy setting: the one chosen (in brackets) is always or
// madvise.
func thpAdvised(setting string) bool {
	return strings.Contains(setting, "[always]") || strings.Contains(setting, "[madvise]")
}

package gcdefer

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapAdvisedHuge: after hugeHeap, what the run allocates lies in
// memory advised for huge pages (VmFlags "hg" in /proc/self/smaps), not
// in a fresh mapping of the runtime's.
func TestHeapAdvisedHuge(t *testing.T) {
	if !thpAdvised(thpSetting()) {
		t.Skipf("transparent huge pages not given to advised memory here (%q): the heap is left as it is", thpSetting())
	}
	hugeHeap()
	for _, size := range []int{64 << 10, 4 << 20} {
		b := make([]byte, size)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		flags, ok := vmFlags(t, p)
		if !ok {
			t.Fatalf("%d bytes at %#x: no mapping in /proc/self/smaps", size, p)
		}
		if !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%d bytes at %#x: mapping flags %q, want hg (MADV_HUGEPAGE)", size, p, flags)
		}
	}
}

// vmFlags returns the VmFlags of the mapping holding p.
func vmFlags(t *testing.T, p uintptr) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok { // a mapping: "start-end perms ..."
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(p) >= start && uint64(p) < end
			continue
		}
		if in && fields[0] == "VmFlags:" {
			return strings.Join(fields[1:], " "), true
		}
	}
	return "", false
}

// TestTHPPolicy: huge pages are asked for only where the kernel's policy
// gives them to memory that asks.
func TestTHPPolicy(t *testing.T) {
	for setting, want := range map[string]bool{
		"always [madvise] never\n": true,
		"[always] madvise never\n": true,
		"always madvise [never]\n": false,
		"":                         false, // no sysfs file: no THP
	} {
		if got := thpAdvised(setting); got != want {
			t.Errorf("thpAdvised(%q) = %v, want %v", setting, got, want)
		}
	}
}

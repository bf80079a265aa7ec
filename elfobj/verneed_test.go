package elfobj

import (
	"debug/elf"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestReadVersionNeeds holds ReadVersionNeeds to debug/elf's
// DynamicVersionNeeds on the repository's libraries and programs and on
// the system libraries the platform verdict reads this way (XNNPACK and
// what it needs, libstdc++).
func TestReadVersionNeeds(t *testing.T) {
	sys := []string{"/usr/lib/x86_64-linux-gnu/libXNNPACK.so.0", "/usr/lib/x86_64-linux-gnu/libcpuinfo.so.0",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6"}
	testenv.NeedFiles(t, sys...)
	local, _ := filepath.Glob("../testdata/elf/*/*")
	n := 0
	for _, p := range append(local, sys...) {
		ef, err := elf.Open(p)
		if err != nil || ef.Type != elf.ET_DYN && ef.Type != elf.ET_EXEC {
			continue // archives, objects
		}
		var want []VersionNeed
		if vn, err := ef.DynamicVersionNeeds(); err == nil {
			for _, need := range vn {
				v := VersionNeed{Library: need.Name}
				for _, d := range need.Needs {
					v.Versions = append(v.Versions, d.Dep)
				}
				want = append(want, v)
			}
		}
		ef.Close()
		got, err := ReadVersionNeeds(&Object{Path: p})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v; debug/elf reads %+v", p, got, want)
		}
		if len(want) > 0 {
			n++
		}
	}
	if n < len(sys) {
		t.Fatalf("only %d images with version needs compared", n)
	}
	if _, err := ReadVersionNeeds(&Object{Path: "x.whl!lib.so", Wheel: "x.whl"}); err == nil {
		t.Error("a wheel entry has no file of its own; no error")
	}
}

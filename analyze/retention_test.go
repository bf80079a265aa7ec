package analyze

import (
	"testing"

	"github.com/etlink/etlink/linkline"
)

// TestPredictArchiveMembers replays links of the committed libreg.a (reg.o
// only registers from .init_array; backend_xnnpack_helpers.o defines a
// function) with the linker run directly, for every linker model.
func TestPredictArchiveMembers(t *testing.T) {
	for _, arch := range []string{"x86_64", "aarch64"} {
		dir := "../testdata/elf/" + arch
		for _, tc := range []struct {
			line      string
			extracted bool
		}{
			{"ld -o out libreg.a", false},
			{"ld -o out --whole-archive libreg.a --no-whole-archive", true},
			{"ld -o out -u _ZN10executorch7runtime16register_backendERKNS0_7BackendE libreg.a", false},
		} {
			for _, linker := range []string{"bfd", "gold", "lld", "mold"} {
				l, err := linkline.ParseCommand(tc.line, linkline.Options{Dir: dir})
				if err != nil {
					t.Fatal(err)
				}
				l.Linker = linker
				f := NewRetention(DefaultPatterns(), NewLoader(nil, nil)).Analyze(l, nil)
				if len(f.Unread) > 0 {
					t.Fatalf("%s: %v", tc.line, f.Unread)
				}
				if len(f.Members) != 1 || f.Members[0].Object.Member != "reg.o" {
					t.Fatalf("%s %s %s: registering members %+v, want reg.o", arch, linker, tc.line, f.Members)
				}
				if got := f.Members[0].Extracted; got != tc.extracted || f.Members[0].Observed {
					t.Errorf("%s %s %q: reg.o extracted=%v observed=%v, want extracted=%v predicted",
						arch, linker, tc.line, got, f.Members[0].Observed, tc.extracted)
				}
			}
		}
	}
}

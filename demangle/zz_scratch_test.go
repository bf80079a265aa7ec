package demangle

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestScratchAll(t *testing.T) {
	var syms []string
	data, _ := os.ReadFile("/tmp/rl/syms.txt")
	syms = append(syms, strings.Fields(string(data))...)
	for _, l := range strings.Fields(os.Getenv("LIBS")) {
		out, _ := exec.Command("nm", "--defined-only", l).Output(); for _, line := range strings.Split(string(out), "\n") { f := strings.Fields(line); if len(f) == 3 { syms = append(syms, f[2]) } }
	}
	filt, _ := exec.LookPath("c++filt")
	want := cxxfilt(t, filt, syms)
	bad := 0
	for i, s := range syms {
		if g := Name(s); g != want[i] && !knownTemplateParamScope(s, want[i]) && !strings.HasPrefix(s, "_R") {
			bad++
			if bad < 10 {
				t.Errorf("%s\n got  %s\n want %s", s, g, want[i])
			}
		}
	}
	t.Logf("%d syms, %d bad", len(syms), bad)
}

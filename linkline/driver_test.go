package linkline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestDebianGCCSpecs checks what the model relies on in the real driver:
// Debian's gcc passes --as-needed unless -fsanitize=, per its *link: spec.
func TestDebianGCCSpecs(t *testing.T) {
	testenv.NeedTools(t, "gcc", "g++")
	out, err := exec.Command("gcc", "-dumpspecs").Output()
	if err != nil {
		t.Fatal(err)
	}
	link := parseSpecs(string(out))["link"]
	if !strings.Contains(link, "%{!fsanitize=*:--as-needed}") {
		t.Errorf("gcc's *link: spec lacks %%{!fsanitize=*:--as-needed}:\n%s", link)
	}
	l, err := ParseArgs([]string{"g++", "x.o", "-o", "x"}, Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !l.DefaultAsNeeded || l.DefaultAsNeededSource != "gcc -dumpspecs of g++" {
		t.Errorf("g++: DefaultAsNeeded %v (%s), want true from its specs", l.DefaultAsNeeded, l.DefaultAsNeededSource)
	}
}

// TestDriverModelMatchesDriver compares, for many flag sets, the inputs the
// model gives a driver command with those of the linker command the real
// driver prints (-###): the same libraries in the same order with the same
// state.
func TestDriverModelMatchesDriver(t *testing.T) {
	testenv.NeedTools(t, "gcc", "g++")
	flagSets := [][]string{
		{"g++"}, {"g++", "-shared"}, {"g++", "-static"}, {"g++", "-static-pie"},
		{"gcc"}, {"gcc", "-shared"}, {"gcc", "-shared-libgcc"}, {"gcc", "-static-libgcc"},
		{"g++", "-fsanitize=address"}, {"g++", "-fsanitize=undefined"}, {"g++", "-fsanitize=thread", "-shared"},
		{"g++", "-fsanitize=address", "-fno-sanitize=address"},
		{"g++", "-static-libstdc++"}, {"g++", "-static-libgcc"}, {"g++", "-pthread"},
		{"g++", "-fopenmp"}, {"g++", "--coverage"}, {"g++", "-nostdlib"}, {"g++", "-nodefaultlibs"},
		{"g++", "-nolibc"}, {"g++", "-r"},
		{"g++", "-Wl,--no-as-needed"}, {"g++", "-lm", "-lc"}, {"g++", "-Wl,--push-state,--no-as-needed", "-lm"},
		{"gcc", "-Wl,--no-as-needed"}, {"g++", "-Wl,-Bstatic"},
	}
	if _, err := exec.LookPath("aarch64-linux-gnu-g++"); err == nil {
		flagSets = append(flagSets, []string{"aarch64-linux-gnu-g++"}, []string{"aarch64-linux-gnu-g++", "-shared"})
	}
	if _, err := exec.LookPath("clang++"); err == nil {
		// Not in CI (clang is not installed there): checked where present.
		flagSets = append(flagSets, []string{"clang++"}, []string{"clang"}, []string{"clang++", "-shared"},
			[]string{"clang++", "-static"}, []string{"clang", "-static-libgcc"}, []string{"clang++", "-static-libstdc++"},
			[]string{"clang", "-Wl,--as-needed"}, []string{"clang++", "-pthread"})
	}
	dir := t.TempDir()
	// clang checks that its inputs exist; gcc -### does not.
	if err := os.WriteFile(filepath.Join(dir, "x.o"), elfHeader(1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fs := range flagSets {
		argv := append(append([]string{}, fs...), "x.o", "-o", "x")
		t.Run(strings.Join(fs, " "), func(t *testing.T) {
			cmd := exec.Command(argv[0], append([]string{"-###"}, argv[1:]...)...)
			cmd.Dir = dir
			out, _ := cmd.CombinedOutput()
			var line string
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "collect2 ") || strings.HasPrefix(strings.TrimSpace(l), `"/usr/bin/ld`) {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no linker line in %s -###:\n%s", argv[0], out)
			}
			real, err := ParseCommand(line, Options{Dir: dir})
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			model, err := ParseArgs(argv, Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			keep := func(l *Link) []string {
				var out []string
				for _, in := range l.Inputs {
					arg := strings.TrimPrefix(in.Arg, "-l ")
					if strings.HasPrefix(arg, "-l") || arg == "x.o" {
						if !strings.HasPrefix(arg, "-l") {
							arg = "x.o"
						}
						out = append(out, arg+" "+in.Kind.String()+" "+in.State.String())
					}
				}
				return out
			}
			equalLines(t, "model (got) vs "+argv[0]+" -### (want):\n"+line, keep(model), keep(real))
			if model.PIE != real.PIE || model.Shared != real.Shared || model.Relocatable != real.Relocatable {
				t.Errorf("PIE/Shared/Relocatable: model %v/%v/%v, driver %v/%v/%v",
					model.PIE, model.Shared, model.Relocatable, real.PIE, real.Shared, real.Relocatable)
			}
		})
	}
}

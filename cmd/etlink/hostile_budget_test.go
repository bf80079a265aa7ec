package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// The run's budget: many items each inside its own bound cost no more
// than the budget, and the input that exhausts it is named.
func TestHostileBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on hostile inputs")
	}
	testenv.NeedTools(t, "gcc")
	dir := t.TempDir()

	// 2,000 names each just inside the demangler's per-name bound (4 KiB,
	// 32 qualifiers in a row) and slow to demangle (tens of ms each),
	// defined by two libraries of one package: ET302 reports every one.
	// Before the run's budget, 49 s of CPU.
	var body strings.Builder
	for body.Len() < 4000 {
		body.WriteString(strings.Repeat("P", 32) + "A1_")
	}
	var asm strings.Builder
	asm.WriteString(".text\n")
	for i := range 2000 {
		id := fmt.Sprintf("g%d", i)
		name := fmt.Sprintf("_Z%d%s%si", len(id), id, body.String())
		fmt.Fprintf(&asm, ".globl %s\n.type %s, @function\n%s:\n\tret\n", name, name, name)
	}
	deep := filepath.Join(dir, "deep")
	writeTree(t, deep, map[string]string{"deep.s": asm.String()})
	for _, lib := range []string{"libdeep1.so", "libdeep2.so"} {
		cmd := exec.Command("gcc", "-shared", "-o", lib, "deep.s")
		cmd.Dir = deep
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
	}
	t.Run("2,000 slow names", func(t *testing.T) {
		r := runHostile(t, "check", deep, "--format", "json")
		// CPU time is what the run costs; the wall clock also says what
		// else the (test) machine runs, bounded as TestHostileInputs does.
		if r.cpu > 5*time.Second || r.elapsed > 10*time.Second || r.maxRSS > 1<<30 {
			t.Errorf("took %v (%v CPU), peak RSS %d MB", r.elapsed, r.cpu, r.maxRSS>>20)
		}
		if r.code == exitError || !strings.Contains(r.stderr, "shown mangled: the run's demangle budget") {
			t.Errorf("exit %d, want findings and a note that names stay mangled; stderr:\n%s", r.code, r.stderr)
		}
	})

	// A budget set lower than the run needs: the input past it is named,
	// those before it are still reported.
	t.Run("objects budget", func(t *testing.T) {
		libs := filepath.Join(dir, "libs")
		writeTree(t, libs, map[string]string{"f.c": "int f(void) { return 1; }\n"})
		for _, lib := range []string{"liba.so", "libb.so", "libc.so"} {
			cmd := exec.Command("gcc", "-shared", "-o", lib, "f.c")
			cmd.Dir = libs
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
		}
		r := runHostile(t, "scan", libs, "--budget", "objects=2", "-q")
		if r.code != exitError || !strings.Contains(r.stderr, "objects budget of 2 is spent") {
			t.Errorf("exit %d, stderr %q; want exit 2 naming the objects budget", r.code, r.stderr)
		}
		if n := strings.Count(r.stdout, ".so"); n != 2 {
			t.Errorf("%d libraries listed, want the 2 read before the budget was spent:\n%s", n, r.stdout)
		}
	})
}

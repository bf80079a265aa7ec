package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/etlink/etlink/internal/testenv"
)

// A name read from a file that holds a newline, escape sequences or bytes
// that are not UTF-8 forges no row of a table, no line of a list or of
// stderr, and reaches the terminal escaped, in every text output.
func TestHostileNamesStayOnTheirLine(t *testing.T) {
	testenv.NeedTools(t, "gcc")
	dir := t.TempDir()
	soname := "libnl.so\n  /evil/libc.so.6  DYN\x1b[2J\xff"
	cmd := exec.Command("gcc", "-shared", "-o", "libnl.so", "-x", "c", "-", "-Wl,-soname,"+soname, "-Wl,-rpath,/x\n/y")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader("int f(void) { return 1; }\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	lib := filepath.Join(dir, "libnl.so")
	for _, args := range [][]string{
		{"scan", lib},
		{"tree", lib},
		{"check", dir},
	} {
		_, stdout, stderr := runCLI(t, args...)
		for name, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if !utf8.ValidString(out) || strings.ContainsAny(out, "\x1b") {
				t.Errorf("etlink %s: raw bytes on %s: %q", args[0], name, out)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "/evil/") || strings.HasPrefix(line, "/y") {
					t.Errorf("etlink %s: a name forged a line of %s: %q", args[0], name, out)
				}
			}
		}
		if args[0] == "scan" && strings.Count(stdout, "\n") != 3 {
			t.Errorf("etlink scan: want a header, one row and a count:\n%s", stdout)
		}
		if args[0] == "scan" && !strings.Contains(stdout, `libnl.so\x0a`) {
			t.Errorf("etlink %s: the soname is not shown escaped:\n%s%s", args[0], stdout, stderr)
		}
	}
}

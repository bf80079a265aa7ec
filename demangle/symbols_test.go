package demangle

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// findLibrary returns the first existing file among the library directories
// of common distributions that matches pattern.
func findLibrary(pattern string) string {
	for _, dir := range []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64", "/lib"} {
		if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

// dynamicSymbols returns the defined dynamic symbols of lib as nm prints
// them, without their versions, deduplicated, in nm's order.
func dynamicSymbols(tb testing.TB, nm, lib string) []string {
	tb.Helper()
	out, err := exec.Command(nm, "-D", "--defined-only", lib).Output()
	if err != nil {
		tb.Fatalf("nm -D %s: %v", lib, err)
	}
	seen := map[string]bool{}
	var syms []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		sym, _, _ := strings.Cut(f[2], "@")
		if !seen[sym] {
			seen[sym] = true
			syms = append(syms, sym)
		}
	}
	return syms
}

// cxxfilt runs c++filt once over syms, one per line, and returns its output
// lines. nm's names hold only the characters c++filt treats as part of a
// symbol, so each line is demangled as one name.
func cxxfilt(tb testing.TB, tool string, syms []string, args ...string) []string {
	tb.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = strings.NewReader(strings.Join(syms, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("c++filt: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(syms) {
		tb.Fatalf("c++filt printed %d lines for %d names", len(lines), len(syms))
	}
	return lines
}

// benchSymbols returns real symbols for the benchmarks and the fuzz seeds:
// those of libstdc++, protobuf and libtorch_cpu when installed, else a
// generated list of mangled and C names of a similar mix.
func benchSymbols(tb testing.TB) []string {
	tb.Helper()
	var syms []string
	if nm, err := exec.LookPath("nm"); err == nil {
		for _, pat := range []string{"libstdc++.so.6", "libprotobuf.so.*", "libtorch_cpu.so*"} {
			if lib := findLibrary(pat); lib != "" {
				syms = append(syms, dynamicSymbols(tb, nm, lib)...)
			}
		}
	}
	if len(syms) >= 1000 {
		return syms
	}
	for i := range 20000 {
		ns := []string{"6google8protobuf", "2at6native", "5torch3jit", "3c10", "St", "11flatbuffers"}[i%6]
		switch i % 4 {
		case 0:
			syms = append(syms, fmt.Sprintf("_ZN%s%d%sEv", ns, len(fmt.Sprint("fn", i)), fmt.Sprint("fn", i)))
		case 1:
			syms = append(syms, fmt.Sprintf("_ZNK%s5Class%d%sERKNS_6TensorEi", ns, len(fmt.Sprint("m", i)), fmt.Sprint("m", i)))
		case 2:
			syms = append(syms, fmt.Sprintf("_ZTVN%s5ClassE", ns))
		case 3:
			syms = append(syms, fmt.Sprintf("xnn_create_op_%d", i))
		}
	}
	return syms
}

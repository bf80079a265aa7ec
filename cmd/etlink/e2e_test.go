package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
)

const debianTorch = "/usr/lib/python3/dist-packages/torch"

// linkerDefined are names every linker output defines; the oracle prints
// them as they come and etlink must not report them (ET301's documentation).
var linkerDefined = map[string]bool{"_init": true, "_fini": true, "_edata": true, "_end": true, "__bss_start": true}

// runCLI runs etlink in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func decodeReport(t *testing.T, out string) *finding.Report {
	t.Helper()
	var r finding.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("etlink's JSON does not decode: %v\n%s", err, out)
	}
	return &r
}

// TestConflictsAgainstDebianTorch builds a wheel-like tree that really
// bundles pthreadpool, cpuinfo, XNNPACK (grafted copies of Debian's
// libraries) and leveldb (Debian's static archive, exported), runs
// `etlink conflicts --with torch` against Debian's python3-torch, and checks
// the exact symbol set against nm -D + ldd + comm (testdata/e2e/oracle.sh).
// The fixed variant must report nothing.
func TestConflictsAgainstDebianTorch(t *testing.T) {
	testenv.NeedTools(t, "bash", "g++", "nm", "ldd", "patchelf", "readelf", "comm")
	testenv.NeedFiles(t, "/usr/bin/python3", filepath.Join(debianTorch, "lib", "libtorch_cpu.so"))
	e2e, err := filepath.Abs("../../testdata/e2e")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		flags []string
	}{{"bundled", nil}, {"fixed", []string{"--fixed"}}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sh(t, append([]string{filepath.Join(e2e, "build-wheel.sh"), dir}, tc.flags...)...)
			var want []string
			for _, name := range strings.Fields(sh(t, filepath.Join(e2e, "oracle.sh"), dir)) {
				if !linkerDefined[name] {
					want = append(want, name)
				}
			}

			code, out, errs := runCLI(t, "conflicts", dir, "--with", "torch", "--python", "/usr/bin/python3",
				"--format", "json", "-q")
			r := decodeReport(t, out)
			gotList := conflictNames(r)
			if missing, extra := diff(want, gotList); len(missing)+len(extra) > 0 {
				t.Errorf("etlink and the nm oracle disagree: %d missing from etlink %v, %d extra %v (stderr: %s)",
					len(missing), head(missing), len(extra), head(extra), errs)
			}
			if tc.flags == nil {
				if len(want) == 0 {
					t.Fatal("the bundled variant has no conflicts at all: the fixture is broken")
				}
				if code != exitFindings {
					t.Errorf("exit code %d, want %d with findings", code, exitFindings)
				}
				assertComponents(t, r, "pthreadpool", "cpuinfo", "XNNPACK", "leveldb")
			} else {
				if len(want) != 0 {
					t.Fatalf("the oracle finds %d conflicts in the fixed variant: the fixture is broken: %v", len(want), head(want))
				}
				if code != exitOK {
					t.Errorf("exit code %d, want 0 for the fixed variant; stderr: %s", code, errs)
				}
			}
		})
	}
}

// conflictNames lists, sorted and once each, the symbol names ET301
// reports: a finding's subject, or each member of a bundle finding (a wheel
// object sharing many symbols with one library of the peer).
func conflictNames(r *finding.Report) []string {
	got := map[string]bool{}
	for _, f := range r.Findings {
		if f.Rule != "ET301" {
			continue
		}
		det, _ := f.Details.(map[string]any)
		members, bundle := det["symbols"].([]any)
		if !bundle {
			got[f.Subject.Symbol] = true
			continue
		}
		for _, m := range members {
			if m, ok := m.(map[string]any); ok {
				got[m["symbol"].(string)] = true
			}
		}
	}
	out := make([]string, 0, len(got))
	for s := range got {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// assertComponents checks that the bundled components are each named.
func assertComponents(t *testing.T, r *finding.Report, comps ...string) {
	t.Helper()
	seen := map[string]int{}
	for _, f := range r.Findings {
		seen[f.Subject.Component]++
	}
	for _, c := range comps {
		if seen[c] == 0 {
			t.Errorf("no ET301 finding attributed to component %s (components seen: %v)", c, seen)
		}
	}
}

func sh(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("bash", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func diff(want, got []string) (missing, extra []string) {
	g := map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	w := map[string]bool{}
	for _, s := range want {
		w[s] = true
		if !g[s] {
			missing = append(missing, s)
		}
	}
	for _, s := range got {
		if !w[s] {
			extra = append(extra, s)
		}
	}
	return missing, extra
}

func head(list []string) []string {
	if len(list) > 10 {
		return list[:10]
	}
	return list
}

// TestCheckRelativeInstallTree: a cmake --install tree with a versioned
// library (DT_NEEDED names the SONAME symlink, libfoo.so.1 -> libfoo.so.1.5.0)
// and a module finding it through $ORIGIN, checked by a relative path as a
// user types it, and in every other spelling (./, .., absolute, a
// symlink), by check and conflicts. The loader (ldd) finds the tree's
// library; etlink must say the same whatever the spelling (it said "from
// the system", ET401 and a platform verdict against it for the relative
// one).
func TestCheckRelativeInstallTree(t *testing.T) {
	testenv.NeedTools(t, "gcc", "ldd")
	dir := t.TempDir()
	stage := filepath.Join(dir, "out", "stage")
	for _, d := range []string{"lib", "pkg"} {
		if err := os.MkdirAll(filepath.Join(stage, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{"foo.c": "int foo_value(void) { return 42; }\n",
		"ext.c": "int foo_value(void);\nvoid* PyInit_ext(void) { return (void*)(long)foo_value(); }\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ext := "out/stage/pkg/ext.cpython-311-x86_64-linux-gnu.so"
	for _, line := range []string{
		"gcc -shared -fPIC -o out/stage/lib/libfoo.so.1.5.0 -Wl,-soname,libfoo.so.1 foo.c",
		"ln -s libfoo.so.1.5.0 out/stage/lib/libfoo.so.1 && ln -s libfoo.so.1 out/stage/lib/libfoo.so",
		"gcc -shared -fPIC -o " + ext + " ext.c -Lout/stage/lib -lfoo -Wl,-rpath,'$ORIGIN/../lib'",
	} {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	// The oracle: the loader resolves libfoo.so.1 inside the tree.
	ldd, err := exec.Command("ldd", filepath.Join(dir, ext)).CombinedOutput()
	if err != nil || !strings.Contains(string(ldd), "libfoo.so.1 => "+stage+"/") {
		t.Fatalf("ldd does not find the tree's libfoo.so.1: %v\n%s", err, ldd)
	}
	if err := os.Symlink("out/stage", filepath.Join(dir, "staged")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	// Every spelling of the same tree: relative, ./, .., absolute, through
	// a symlink.
	for _, path := range []string{"out/stage", "./out/stage", "out/../out/stage", stage, "staged"} {
		for _, command := range []string{"check", "conflicts"} {
			_, out, errs := runCLI(t, command, path, "--format", "json", "--fail-on", "none")
			var got []string
			for _, f := range decodeReport(t, out).Findings {
				got = append(got, f.Rule+" "+f.Severity.String())
			}
			if len(got) != 0 {
				t.Errorf("%s %s: %v; the loader finds every library in the tree (stderr %s)", command, path, got, errs)
			}
		}
		_, text, _ := runCLI(t, "check", path, "--fail-on", "none")
		if strings.Contains(text, "from the system") {
			t.Errorf("check %s blames the system for a library of the tree:\n%s", path, text)
		}
	}
}

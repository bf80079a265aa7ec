package main

import (
	"bytes"
	"encoding/json"
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

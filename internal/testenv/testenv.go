// Package testenv lets tests demand the real tools they exercise. Outside CI
// a missing tool skips the test with a message; in CI (CI=true) it fails it,
// so a skipped test is never counted as a pass.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI.
func InCI() bool { return os.Getenv("CI") != "" && os.Getenv("CI") != "false" }

// NeedTools skips (outside CI) or fails (in CI) t unless every tool is on PATH.
func NeedTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, "%s not found on PATH", tool)
		}
	}
}

// NeedFiles is NeedTools for files a test reads (libraries, interpreters).
func NeedFiles(t testing.TB, files ...string) {
	t.Helper()
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			Missing(t, "%s: %v", f, err)
		}
	}
}

// Missing reports a missing prerequisite: fatal in CI, a skip elsewhere.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI requires: "+format, args...)
	}
	t.Skipf("skipping (install it to run this test): "+format, args...)
}

// Tool returns the path of a tool found on PATH or at one of the
// alternative paths; when there is none it skips (outside CI) or fails t.
func Tool(t testing.TB, name string, alternatives ...string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range alternatives {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	Missing(t, "%s not found on PATH", name)
	return ""
}

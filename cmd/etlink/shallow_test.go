package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestLintChangedShallow: on a depth-1 clone (a CI runner's default
// checkout) that lacks --base, lint --changed exits 2 naming the git fetch
// that brings the base, fetches nothing itself, and once that very command
// has run, compares against the base.
func TestLintChangedShallow(t *testing.T) {
	testenv.NeedTools(t, "git")
	up := lintProject(t, "")
	gitRun := gitRepo(t, up)
	gitRun("branch", "-M", "main")
	top := filepath.Join(up, "CMakeLists.txt")
	appendFile(t, top, "# second\n")
	gitRun("commit", "-qam", "second")
	gitRun("checkout", "-qb", "feature")
	appendFile(t, top, "add_library(top MODULE t.cpp)\ntarget_link_libraries(top PRIVATE pybind11::embed)\n")
	gitRun("commit", "-qam", "feature")

	for _, tc := range []struct{ base, want string }{
		{"origin/main", "git fetch --no-tags --depth=1 origin +refs/heads/main:refs/remotes/origin/main"},
		{"HEAD~2", "git fetch --no-tags --deepen=2 origin "},
		{"main", "git fetch --no-tags --depth=1 origin main   # then --base FETCH_HEAD"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			clone := filepath.Join(t.TempDir(), "clone")
			runGit(t, "", "clone", "-q", "--depth=1", "--branch", "feature", "file://"+up, clone)
			before := runGit(t, clone, "for-each-ref")
			code, _, errs := runCLI(t, "lint", clone, "--changed", "--base", tc.base, "-q")
			_, fetch, _ := strings.Cut(errs, "bring it with\n  ")
			fetch, _, _ = strings.Cut(fetch, "\n")
			if code != exitError || !strings.HasPrefix(fetch, tc.want) {
				t.Fatalf("lint --changed --base %s on a shallow clone: exit %d, stderr %q; want exit 2 and %q", tc.base, code, errs, tc.want)
			}
			if after := runGit(t, clone, "for-each-ref"); after != before {
				t.Fatalf("etlink fetched: refs were\n%s\nnow\n%s", before, after)
			}
			base := tc.base
			if cmd, ok := strings.CutSuffix(fetch, "   # then --base FETCH_HEAD"); ok {
				fetch, base = cmd, "FETCH_HEAD"
			}
			runGit(t, clone, strings.Fields(fetch)[1:]...)
			code, got, errs := lintFindings(t, clone, "--changed", "--base", base)
			if code == exitError || strings.Join(got, ",") != "ET202 clone/CMakeLists.txt:8" {
				t.Errorf("after %s: exit %d, findings %v (stderr %s); want the ET202 of the changed top CMakeLists.txt", fetch, code, got, errs)
			}
		})
	}
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err == nil {
		err = os.WriteFile(name, append(data, text...), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// runGit runs git in dir ("": the current directory) and returns its output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	out, err := exec.Command("git", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

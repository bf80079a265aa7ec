// Package reporoot finds the repository that holds a directory: the
// nearest enclosing directory with a .git entry (a directory, or the file
// a worktree or submodule has). It never runs git: a repository's
// configuration can name programs git would run.
package reporoot

import (
	"os"
	"path/filepath"
)

// Find returns the root of the repository holding dir, or "" when none
// does. dir is made absolute first.
func Find(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

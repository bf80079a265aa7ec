package reporoot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "tools", "python")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != "" && got != "/" && !filepath.IsAbs(got) {
		t.Fatalf("no repository yet: got %q", got)
	}
	// A worktree or submodule has a .git file, not a directory.
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != root {
		t.Fatalf("Find(%s) = %q, want %q", sub, got, root)
	}
	if err := os.Mkdir(filepath.Join(sub, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub); got != sub {
		t.Fatalf("the nearest repository: Find = %q, want %q", got, sub)
	}
}

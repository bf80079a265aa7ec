package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFindConfig: the nearest file from the start directory up to the
// top, etlink.toml before pyproject.toml in one directory, a pyproject.toml
// without [tool.etlink] passed over, nothing above the top.
func TestFindConfig(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "python", "build")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	find := func(want string) {
		t.Helper()
		got, err := FindConfig(deep, repo)
		if err != nil || got != want {
			t.Fatalf("FindConfig(%s, %s) = %q, %v; want %q", deep, repo, got, err, want)
		}
	}
	writeFile(t, filepath.Join(root, "etlink.toml"), "") // above the top: not the project's
	find("")
	writeFile(t, filepath.Join(repo, "pyproject.toml"), "[tool.etlink.soname]\nversioned = true\n")
	find(filepath.Join(repo, "pyproject.toml"))
	writeFile(t, filepath.Join(repo, "python", "pyproject.toml"), "[project]\nname = \"x\"\n[tool.black]\nline-length = 1\n")
	find(filepath.Join(repo, "pyproject.toml")) // no [tool.etlink]: passed over
	writeFile(t, filepath.Join(repo, "python", "etlink.toml"), "")
	find(filepath.Join(repo, "python", "etlink.toml"))
	writeFile(t, filepath.Join(repo, "python", "build", "pyproject.toml"), "[tool.etlink\n")
	if _, err := FindConfig(deep, repo); err == nil || !strings.Contains(err.Error(), "[tool.etlink]") {
		t.Errorf("a pyproject.toml that is not TOML: %v, want an error", err)
	}

	// The top: the repository's root, else $HOME for a directory below it, else /.
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ConfigTop(deep); got != repo {
		t.Errorf("ConfigTop in a repository = %q, want %q", got, repo)
	}
	t.Setenv("HOME", root)
	if got := ConfigTop(root); got != root {
		t.Errorf("ConfigTop below $HOME = %q, want %q", got, root)
	}
	t.Setenv("HOME", deep)
	if got := ConfigTop(root); got != "/" {
		t.Errorf("ConfigTop outside $HOME and any repository = %q, want /", got)
	}
}

// TestLoadPyproject: [tool.etlink] has etlink.toml's keys; other tools'
// tables are not judged, an unknown key of etlink's is an error.
func TestLoadPyproject(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "pyproject.toml")
	writeFile(t, p, "[project]\nname = \"x\"\n[tool.ruff]\nline-length = 100\n[tool.etlink.retention]\nfix_as_needed = \"keep({library})\"\n[tool.etlink.soname]\nversioned = true\n")
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != p || !cfg.Soname.Versioned || cfg.fix("as-needed", "t", "libb.so") != "keep(b)" {
		t.Errorf("pyproject's [tool.etlink] not read: %+v", cfg)
	}
	for text, want := range map[string]string{
		"[tool.etlink]\nsoname = 1\n":           "[tool.etlink]",
		"[tool.etlink.retention]\nfix = \"\"\n": `unknown key "retention.fix"`,
		"[tool.other]\nx = 1\n":                 "no [tool.etlink] table",
	} {
		writeFile(t, p, text)
		if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

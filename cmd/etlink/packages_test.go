package main

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
)

// dist/*.whl holds one wheel per Python version and platform: each is a
// package of its own, so checking them together finds exactly what
// checking each alone finds (before, two wheels of one tree were one
// package: 8 ET407 errors, every entry "held twice", and 2 ET302
// warnings, every object of one "duplicating" the other's).
func TestCheckSeveralWheels(t *testing.T) {
	dir := t.TempDir()
	entries := map[string]wheelFile{}
	root := demoWheel
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		entries[filepath.ToSlash(rel)] = wheelFile{p, 0o644}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "executorch-1.0-cp311-cp311-linux_x86_64.whl")
	b := filepath.Join(dir, "executorch-1.0-cp312-cp312-linux_x86_64.whl")
	writeWheel(t, a, entries)
	writeWheel(t, b, entries)
	fingerprints := func(args ...string) []string {
		t.Helper()
		_, out, errs := runCLI(t, append([]string{"check", "--format", "json", "-q"}, args...)...)
		var r struct {
			Findings  []struct{ Fingerprint string }
			Platforms []struct{ Package, Arch string }
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("check %v: %v\n%s", args, err, errs)
		}
		var fps []string
		for _, f := range r.Findings {
			fps = append(fps, f.Fingerprint)
		}
		if len(args) > 1 && (len(r.Platforms) != 2 || r.Platforms[0].Package != a || r.Platforms[1].Package != b) {
			t.Errorf("platforms %+v: want one per wheel, each naming it", r.Platforms)
		}
		slices.Sort(fps)
		return fps
	}
	alone := append(fingerprints(a), fingerprints(b)...)
	slices.Sort(alone)
	if together := fingerprints(a, b); !slices.Equal(together, alone) {
		t.Errorf("check of both wheels: %d findings, of each alone: %d in all\n%v\n%v", len(together), len(alone), together, alone)
	}
}

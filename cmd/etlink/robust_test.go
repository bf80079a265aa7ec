package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/rules"
)

// hashTree hashes every regular file under root.
func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		sums[p] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestEveryCommandOverTestdata runs every subcommand over the whole testdata
// tree, the broken corpus included: no panic reaches the output, every exit
// code is one the CLI contract allows, and no input changes.
func TestEveryCommandOverTestdata(t *testing.T) {
	const td = "../../testdata"
	before := hashTree(t, td)
	wheels, _ := filepath.Glob(filepath.Join(td, "broken", "*.whl"))
	runs := [][]string{
		{"scan", td},
		{"scan", "--format", "json", td},
		{"conflicts", td, "--with", filepath.Join(td, "demo", "torch")},
		{"conflicts", "--format", "json", filepath.Join(td, "broken"), filepath.Join(td, "demo", "wheel"), "--with", filepath.Join(td, "demo", "torch")},
		{"check", td},
		{"check", "--format", "json", filepath.Join(td, "broken")},
		{"retention", td},
		{"retention", "--format", "json", filepath.Join(td, "broken")},
		{"why", "xnnpack", td},
		{"rules"},
		{"version"},
	}
	for _, w := range wheels {
		runs = append(runs, []string{"check", w}, []string{"scan", w})
	}
	for _, r := range rules.All() {
		runs = append(runs, []string{"explain", r.ID})
	}
	for _, args := range runs {
		code, out, errs := runCLI(t, args...)
		if code < exitOK || code > exitError {
			t.Errorf("etlink %s: exit %d", strings.Join(args, " "), code)
		}
		for _, bad := range []string{"panic:", "goroutine ", "internal error", "runtime error"} {
			if strings.Contains(out+errs, bad) {
				t.Errorf("etlink %s: output contains %q:\n%s", strings.Join(args, " "), bad, errs)
			}
		}
	}
	after := hashTree(t, td)
	for p, sum := range before {
		if after[p] != sum {
			t.Errorf("%s changed while etlink read it", p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s appeared under testdata: etlink wrote beside its inputs", p)
		}
	}
}

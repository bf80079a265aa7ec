package main

import (
	gobuild "go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/etlink/etlink/"

// projectImports returns the project packages the package in dir (relative
// to the module root) imports, test files left out.
func projectImports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := gobuild.ImportDir(filepath.Join("..", "..", dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []string
	for _, imp := range p.Imports {
		if rel, ok := strings.CutPrefix(imp, module); ok {
			out = append(out, rel)
		}
	}
	return out
}

// TestCLIImportsFivePackages: the CLI parses flags, opens a session and
// hands its results to report; what reads and how the process runs
// (workers, collector, cache) is the session's (docs/DESIGN.md).
func TestCLIImportsFivePackages(t *testing.T) {
	imports := projectImports(t, "cmd/etlink")
	if len(imports) > 5 {
		t.Errorf("cmd/etlink imports %d of the project's packages, at most 5 allowed: %s", len(imports), strings.Join(imports, ", "))
	}
	for _, plumbing := range []string{"internal/procs", "internal/cachedir", "internal/gcdefer"} {
		if slices.Contains(imports, plumbing) {
			t.Errorf("cmd/etlink imports %s: the session (analyze) decides it", plumbing)
		}
	}
}

// TestParsersOwnNoPlumbing: no reader, nor any package it depends on,
// changes GOMAXPROCS (internal/procs) or chooses where etlink keeps files
// between runs (internal/cachedir): the session hands them processors and
// paths. pylocate, which keeps its answers in the cache directory itself,
// is not a reader of input files.
func TestParsersOwnNoPlumbing(t *testing.T) {
	parsers := []string{"elfobj", "linkline", "linkmap", "cmake", "ldcache", "pyload", "policy", "demangle", "symset", "datafile"}
	for _, parser := range parsers {
		// Each package's project imports, followed transitively; via
		// says which import brought a package in.
		via := map[string]string{parser: ""}
		queue := []string{parser}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, imp := range projectImports(t, p) {
				if _, seen := via[imp]; !seen {
					via[imp] = p
					queue = append(queue, imp)
				}
			}
		}
		for _, plumbing := range []string{"internal/procs", "internal/cachedir"} {
			if from, ok := via[plumbing]; ok {
				t.Errorf("%s depends on %s (imported by %s)", parser, plumbing, from)
			}
		}
	}
}

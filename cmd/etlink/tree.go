package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/etlink/etlink/analyze"
)

var treeCmd = &command{
	name:    "tree",
	args:    "[flags] PATH...",
	summary: "the resolved DT_NEEDED tree of each object, as glibc's loader finds it",
	help: `Prints, for each shared object or program (a file, every ELF of a directory, every
entry of a wheel), its DT_NEEDED tree as glibc's loader resolves it, without running
anything: each library with the path found and how (DT_RPATH, LD_LIBRARY_PATH,
DT_RUNPATH with $ORIGIN expanded, ld.so.cache, the default directories), or "not found"
with the paths tried. Like lddtree or libtree; the set of libraries equals what ldd
prints. A library is expanded where it first appears; the DT_NEEDED entries that name
it again are counted under the tree (torch's _C names 290 libraries 1,256 times), or
listed, marked [shown above], with --full.

--installed judges a package as installed on another machine: search paths that point
into the build machine (absolute, not $ORIGIN-relative, not a system directory) are
skipped, as etlink check does. --library-path plays LD_LIBRARY_PATH (not read from
the environment, so that the answer does not depend on the shell).

Exit codes: 0 every DT_NEEDED found, 1 some not found, 2 usage error or unreadable input.

Examples:
  etlink tree /usr/lib/python3/dist-packages/torch/lib/libtorch_cpu.so
  etlink tree dist/executorch-1.0-cp311-cp311-manylinux_2_28_x86_64.whl --installed
  etlink tree build/lib/libexecutorch.so --library-path build/lib --format json`,
	run: runTree,
}

// treeReport is tree's JSON.
type treeReport struct {
	envelope
	Trees []*treeNode `json:"trees"`
}

// treeNode is one object of a tree (analyze.ReadTrees).
type treeNode = analyze.TreeNode

func runTree(c *command, a *app, args []string) int {
	out := &outputFlags{formats: []string{"text", "json"}}
	var libPath string
	var installed, full bool
	fs, _, code, ok := c.parseReporting(a, args, out, flagFunc(func(fs *pflag.FlagSet) {
		fs.StringVar(&libPath, "library-path", "", "directories searched as LD_LIBRARY_PATH would be (colon-separated)")
		fs.BoolVar(&installed, "installed", false, "skip search paths into the build machine, as once installed elsewhere")
		fs.BoolVar(&full, "full", false, "list every DT_NEEDED entry, those naming a library already shown too")
	}))
	if !ok {
		return code
	}
	if fs.NArg() == 0 {
		a.errorf("tree: no PATH given\nRun 'etlink tree --help' for usage.")
		return exitError
	}
	// The search expands $ORIGIN and compares paths: absolute paths make
	// the inputs the files the search finds.
	var paths []string
	for _, p := range fs.Args() {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		paths = append(paths, abs)
	}
	opt := analyze.TreeOptions{Relocated: installed, Budget: a.budget}
	if libPath != "" {
		opt.LibraryPath = absDirs(strings.Split(libPath, ":"))
	}
	trees, inputs := analyze.ReadTrees(paths, opt, a)
	missing := false
	for _, t := range trees {
		missing = missing || hasMissing(t)
	}
	if out.format == "json" {
		if trees == nil {
			trees = []*treeNode{}
		}
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(treeReport{envelope: newEnvelope("tree", inputs), Trees: trees}); err != nil {
			a.errorf("tree: %v", err)
			return exitError
		}
	} else {
		printTrees(a, trees, full)
	}
	switch {
	case a.inputErrors > 0:
		return exitError
	case missing:
		return exitFindings
	}
	return exitOK
}

func hasMissing(t *treeNode) bool {
	for _, n := range t.Needed {
		if n.Path == "" || hasMissing(n) {
			return true
		}
	}
	return false
}

// printTrees prints the trees, each library expanded once and the entries
// that name it again counted (listed with full).
func printTrees(a *app, trees []*treeNode, full bool) {
	for i, t := range trees {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		if n := printTree(a, t, 0, full); n > 0 {
			a.println(fmt.Sprintf("    (%d more DT_NEEDED entries name libraries shown above; --full lists them)", n))
		}
	}
}

// printTree prints t, and returns how many entries naming a library shown
// above it left out (all of them when full).
func printTree(a *app, t *treeNode, depth int, full bool) int {
	pad := strings.Repeat("    ", depth)
	switch {
	case t.Name == "":
		a.println(displayPath(t.Path))
	case t.Path == "":
		line := fmt.Sprintf("%s%s => not found", pad, t.Name)
		if len(t.Tried) > 0 {
			line += " (tried " + strings.Join(t.Tried, ", ") + ")"
		}
		a.println(line)
	default:
		line := fmt.Sprintf("%s%s => %s", pad, t.Name, displayPath(t.Path))
		switch {
		case t.Repeat:
			line += " [shown above]"
		case t.Dir != "" && t.Via != string(analyze.ViaCache):
			line += " [" + t.Via + " " + t.Dir + "]"
		case t.Via != "":
			line += " [" + t.Via + "]"
		}
		a.println(line)
	}
	folded := 0
	for _, n := range t.Needed {
		if n.Repeat && !full {
			folded++
			continue
		}
		folded += printTree(a, n, depth+1, full)
	}
	return folded
}

// displayPath is p relative to the current directory when inside it.
func displayPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

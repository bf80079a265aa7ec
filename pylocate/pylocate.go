// Package pylocate finds an installed Python package's directory the way
// Python would: by asking an interpreter's import system where it is.
package pylocate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Attempt is one interpreter asked, and what it answered.
type Attempt struct {
	Python string // as named
	Path   string // as found on PATH ("" when not found)
	Err    string // why it gave no answer; "" on success
}

// NotFound lists every attempt when no interpreter could import the package.
type NotFound struct {
	Package  string
	Attempts []Attempt
}

func (e *NotFound) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no Python interpreter finds %s; tried:", e.Package)
	for _, a := range e.Attempts {
		where := a.Python
		if a.Path != "" && a.Path != a.Python {
			where += " (" + a.Path + ")"
		}
		fmt.Fprintf(&b, "\n  %s: %s", where, a.Err)
	}
	b.WriteString("\n  (name an interpreter with --python, or give the package's directory: --with PATH)")
	return b.String()
}

// Result is a located package.
type Result struct {
	Dir     string // the package directory (dirname of pkg.__file__)
	Version string // the installed distribution's version, when it has metadata
	Python  string // the interpreter that answered
	// Skipped are interpreters tried before the one that answered.
	Skipped []Attempt
}

// script locates the package exactly as `import pkg` would (the same finders
// and sys.path) without executing it: importing torch runs seconds of
// initialisation that tells nothing about where its files are. A name that
// is not a package, or is not installed, fails as import would.
const script = `import importlib.util, importlib.metadata, os, sys
spec = importlib.util.find_spec(sys.argv[1])
if spec is None or spec.origin is None:
    sys.exit("No module named " + repr(sys.argv[1]))
print(os.path.dirname(os.path.abspath(spec.origin)))
try:
    print(importlib.metadata.version(sys.argv[1]))
except Exception:
    print("")`

// Timeout bounds one interpreter's answer.
var Timeout = time.Minute

// Find asks the interpreters where pkg is and returns the answer of the first
// one, in the order given, that finds it. With pythons empty it asks "python3" on PATH, then /usr/bin/python3
// (a distribution's torch is importable only by the system interpreter when a
// pyenv or venv python3 comes first on PATH).
func Find(pkg string, pythons ...string) (*Result, error) {
	if len(pythons) == 0 {
		pythons = []string{"python3", "/usr/bin/python3"}
	}
	// Ask every interpreter at once (a pyenv shim takes a third of a second
	// to fail) and keep the answer of the first in order of preference.
	type answer struct {
		a            Attempt
		dir, version string
		asked        bool
	}
	answers := make([]answer, len(pythons))
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i, py := range pythons {
		answers[i].a = Attempt{Python: py}
		p, err := exec.LookPath(py)
		if err != nil {
			answers[i].a.Err = "not found"
			continue
		}
		answers[i].a.Path = p
		if seen[p] {
			continue // the same interpreter under another name
		}
		seen[p] = true
		answers[i].asked = true
		wg.Go(func() {
			dir, version, err := ask(p, pkg)
			if err != nil {
				answers[i].a.Err = err.Error()
				return
			}
			answers[i].dir, answers[i].version = dir, version
		})
	}
	wg.Wait()
	var tried []Attempt
	for _, an := range answers {
		if an.a.Err == "" && an.asked {
			return &Result{Dir: an.dir, Version: an.version, Python: an.a.Path, Skipped: tried}, nil
		}
		if an.a.Err != "" {
			tried = append(tried, an.a)
		}
	}
	return nil, &NotFound{Package: pkg, Attempts: tried}
}

func ask(python, pkg string) (dir, version string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", script, pkg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("locating %s timed out after %s", pkg, Timeout)
		}
		return "", "", errors.New(lastLine(stderr.String(), err.Error()))
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	// Packages may print on import: the answer is the last two lines.
	if len(lines) < 2 || lines[len(lines)-2] == "" {
		return "", "", fmt.Errorf("unexpected output %q", stdout.String())
	}
	return lines[len(lines)-2], lines[len(lines)-1], nil
}

func lastLine(s, fallback string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback
	}
	return s[strings.LastIndex(s, "\n")+1:]
}

// PackageFiles lists what a binary Python package ships for the loader: its
// lib/ directory (torch/lib: libtorch_cpu.so, ...) and its extension modules
// anywhere in the package. Test executables and data files are left out.
func PackageFiles(dir string) ([]string, error) {
	var out []string
	lib := filepath.Join(dir, "lib")
	if fi, err := os.Stat(lib); err == nil && fi.IsDir() {
		out = append(out, lib)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == lib {
			return filepath.SkipDir
		}
		if !d.IsDir() && IsExtensionName(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no lib/ directory and no extension modules", dir)
	}
	return out, nil
}

// IsExtensionName reports whether a file name is an extension module's:
// name.cpython-311-x86_64-linux-gnu.so or name.abi3.so.
func IsExtensionName(name string) bool {
	return strings.HasSuffix(name, ".so") && (strings.Contains(name, ".cpython-") || strings.HasSuffix(name, ".abi3.so"))
}

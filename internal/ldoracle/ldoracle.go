// Package ldoracle asks glibc's dynamic loader what etlink predicts. It runs
// the real loader on real files, a Python process that imports modules and
// dlopens files in a stated order, or ld.so's trace mode on a program (which
// maps and relocates it without running it), with LD_DEBUG=bindings,libs and
// LD_BIND_NOW=1, and reads back which definition each lookup bound to, which
// directories each search tried, and which loads failed and why.
//
// It is a test oracle: a dlopen runs the library's static initializers, so
// it is only pointed at packages the test installed or built.
package ldoracle

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Interp returns the program interpreter (PT_INTERP: ld.so) that exe names.
func Interp(exe string) (string, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return "", fmt.Errorf("%s: PT_INTERP: %w", exe, err)
			}
			return strings.TrimRight(string(b), "\x00"), nil
		}
	}
	return "", fmt.Errorf("%s: no PT_INTERP", exe)
}

// Step is one load a Python process performs, in order.
type Step struct {
	// Import names a module to import (torch), or Path a file to dlopen
	// with RTLD_NOW, RTLD_GLOBAL when Global.
	Import string `json:"import,omitempty"`
	Path   string `json:"path,omitempty"`
	Global bool   `json:"global,omitempty"`
}

// Binding is one lookup the loader logged: a reference from From bound to
// To's definition. Paths are real (symlinks resolved).
type Binding struct{ From, To string }

// Run is what the loader said.
type Run struct {
	// Bindings lists, by symbol name (without version), every binding of
	// the names asked about.
	Bindings map[string][]Binding
	// Searched holds, by the real path of the file whose RPATH or RUNPATH
	// it was, every directory the loader searched that way.
	Searched map[string][]string
	// Errors holds, by step, the error the load gave ("" when it
	// loaded); for a trace, its "not found" and "undefined symbol" lines.
	Errors []string
	// Mapped lists, for a trace, the DT_NEEDED names the loader mapped
	// ("libpython3.11.so.1.0" for "libpython3.11.so.1.0 => /usr/lib/...").
	Mapped []string
}

// Bound reports whether some reference to sym bound from one file to another;
// an empty from matches any referrer.
func (r *Run) Bound(sym, from, to string) bool {
	for _, b := range r.Bindings[sym] {
		if b.To == Real(to) && (from == "" || b.From == Real(from)) {
			return true
		}
	}
	return false
}

// Timeout bounds one run.
var Timeout = 5 * time.Minute

// loader is the Python side of Python: the steps come as JSON in argv[1];
// it prints one JSON list, an error string or null per step.
const loader = `import ctypes, importlib, json, os, sys
out, result = [], sys.stdout
sys.stdout = sys.stderr  # what an import prints (pygame's banner) stays off the answer
for s in json.loads(sys.argv[1]):
    try:
        if s.get("import"):
            importlib.import_module(s["import"])
        else:
            ctypes.CDLL(s["path"], mode=os.RTLD_GLOBAL if s.get("global") else os.RTLD_LOCAL)
        out.append(None)
    except Exception as e:
        out.append(str(e))
result.write("\n" + json.dumps(out) + "\n")`

// Python runs python with the steps and reports the bindings of names.
// A step that fails does not stop the others.
func Python(python string, steps []Step, names map[string]bool) (*Run, error) {
	plan, err := json.Marshal(steps)
	if err != nil {
		return nil, err
	}
	var stdout bytes.Buffer
	run, err := debug(names, false, &stdout, python, "-c", loader, string(plan))
	if err != nil {
		return nil, err
	}
	var errs []*string
	// The answer is the last line: a module's C code may still print to
	// its own standard output.
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &errs); err != nil || len(errs) != len(steps) {
		return nil, fmt.Errorf("%s: the load script answered %q", python, stdout.String())
	}
	for _, e := range errs {
		if e == nil {
			run.Errors = append(run.Errors, "")
		} else {
			run.Errors = append(run.Errors, *e)
		}
	}
	return run, nil
}

// Opened imports module with python and returns the files the loader
// mapped, in order (LD_DEBUG=files,libs), by their paths, symlinks
// resolved: a library needed by name is the file its search tried last
// before mapping it. It is the process's load order, which sys.modules does
// not show (a Cython module imports others from its init, after the loader
// mapped it).
func Opened(python, module string) ([]string, error) {
	var out bytes.Buffer
	dir, pid, err := loaderRun("files,libs", nil, &out, &out, python, "-c", "import "+module)
	defer os.RemoveAll(dir)
	if err != nil {
		return nil, fmt.Errorf("%s -c 'import %s': %v: %s", python, module, err, out.String())
	}
	// The log of python itself: an import may start other processes.
	data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("ld.%d", pid)))
	if err != nil {
		return nil, err
	}
	var opened []string
	seen := map[string]bool{}
	tried := "" // the last file a search tried
	for _, line := range strings.Split(string(data), "\n") {
		// "  12345:\t  trying file=/path/libx.so", then
		// "  12345:\tfile=libx.so [0];  generating link map"
		if _, p, ok := strings.Cut(line, "trying file="); ok {
			tried = p
			continue
		}
		_, rest, ok := strings.Cut(line, "\tfile=")
		name, _, ok2 := strings.Cut(rest, " [0];  generating link map")
		if !ok || !ok2 {
			continue
		}
		if !strings.Contains(name, "/") && filepath.Base(tried) == name {
			name = tried
		}
		if r := Real(name); !seen[r] {
			seen[r] = true
			opened = append(opened, r)
		}
	}
	return opened, nil
}

// Trace maps and relocates file, a program or a shared library, with
// ld.so's trace mode, as ldd -r does, without running it, and reports the
// bindings of names. Errors holds the libraries not found and the undefined
// symbols (a library's references to the interpreter's C API among them:
// no interpreter is loaded).
func Trace(ldso, file string, names map[string]bool) (*Run, error) {
	var out bytes.Buffer // the trace on stdout, undefined symbols on stderr
	run, err := debug(names, true, &out, ldso, file)
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "not found") || strings.Contains(line, "undefined symbol") {
			run.Errors = append(run.Errors, strings.TrimSpace(line))
		} else if name, _, ok := strings.Cut(strings.TrimSpace(line), " => "); ok {
			run.Mapped = append(run.Mapped, name)
		}
	}
	return run, nil
}

// debug runs a command with the loader's debugging output in a file and
// parses it; with trace, the command is ld.so in trace mode, relocating
// every object (ldd -r) and running nothing.
func debug(names map[string]bool, trace bool, stdout *bytes.Buffer, args ...string) (*Run, error) {
	env := []string{"LD_BIND_NOW=1"}
	var stderr bytes.Buffer
	errOut := io.Writer(&stderr)
	if trace {
		env, errOut = append(env, "LD_TRACE_LOADED_OBJECTS=1", "LD_WARN=1"), stdout
	}
	dir, _, err := loaderRun("bindings,libs", env, stdout, errOut, args...)
	defer os.RemoveAll(dir)
	// A program that exits with an error (a library not found) still says
	// what the loader did: only a run Timeout stopped, or none, is an error.
	if dir == "" || errors.Is(err, errTimedOut) {
		return nil, err
	}
	run := &Run{Bindings: map[string][]Binding{}, Searched: map[string][]string{}}
	logs, _ := filepath.Glob(filepath.Join(dir, "ld.*"))
	if len(logs) == 0 {
		return nil, fmt.Errorf("%s: the loader wrote no debugging output (stderr: %s)", args[0], stderr.String())
	}
	for _, l := range logs {
		if err := run.parse(l, names); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// errTimedOut is a run that Timeout stopped.
var errTimedOut = errors.New("timed out")

// loaderRun runs args with the loader's debugging output for the
// categories cats (LD_DEBUG) in a fresh directory, which it returns for the
// caller to read and remove ("" when none was made), and env added. pid is
// the command's: its log is dir/ld.PID.
func loaderRun(cats string, env []string, stdout, stderr io.Writer, args ...string) (dir string, pid int, err error) {
	dir, err = os.MkdirTemp("", "ldoracle")
	if err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(append(os.Environ(), "LD_DEBUG="+cats, "LD_DEBUG_OUTPUT="+filepath.Join(dir, "ld")), env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s: %w after %s", strings.Join(args, " "), errTimedOut, Timeout)
	}
	if cmd.Process != nil {
		pid = cmd.Process.Pid
	}
	return dir, pid, err
}

var (
	bindingLine = regexp.MustCompile("binding file (.*) \\[\\d+\\] to (.*) \\[\\d+\\]: normal symbol `([^']*)'")
	searchLine  = regexp.MustCompile(`search path=(\S*)\s+\((RPATH|RUNPATH) from file (.*)\)`)
)

// parse reads one LD_DEBUG output file.
func (r *Run) parse(file string, names map[string]bool) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "binding file "); i >= 0 {
			m := bindingLine.FindStringSubmatch(line[i:])
			if m == nil || !names[m[3]] {
				continue
			}
			r.Bindings[m[3]] = append(r.Bindings[m[3]], Binding{From: Real(m[1]), To: Real(m[2])})
			continue
		}
		if m := searchLine.FindStringSubmatch(line); m != nil {
			owner := Real(m[3])
			r.Searched[owner] = append(r.Searched[owner], strings.Split(m[1], ":")...)
		}
	}
	return sc.Err()
}

// reals caches Real's answers: the log names the same files many times.
// Tests ask from parallel subtests: a sync.Map.
var reals sync.Map

// Real is p with symlinks resolved (p itself when it cannot be).
func Real(p string) string {
	if r, ok := reals.Load(p); ok {
		return r.(string)
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		r = p
	}
	reals.Store(p, r)
	return r
}

package pylocate

import (
	"bufio"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
)

// layout is an interpreter read from its files as CPython's getpath reads
// them at start-up: the program, the version, the prefixes and whether a
// virtual environment (pyvenv.cfg) is in effect.
type layout struct {
	*reading
	python     string // as invoked (a venv's bin/python3, unresolved)
	exe        string // the ELF program, links resolved
	version    string // "3.11"
	prefix     string // sys.prefix after site: the venv, or the base
	base       string // sys.base_prefix (= sys.exec_prefix of the base)
	libdir     string // "lib", or "lib64" where the stdlib lives there
	venv       bool
	systemSite bool   // a venv's include-system-site-packages
	home       string // a venv's base program directory (pyvenv.cfg's home)
}

// unreadable is why an interpreter's answer cannot be read from its files:
// the reason etlink starts it instead (shown under -v).
type unreadable struct{ reason string }

func (u *unreadable) Error() string { return u.reason }

func cannot(format string, args ...any) error {
	return &unreadable{fmt.Sprintf(format, args...)}
}

var versionName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^python(3\.[0-9]+)$`) })

// readLayout reads the interpreter python (a path as found on PATH, a
// pyenv shim resolved already) the way its own start-up would.
func (r *reading) readLayout(python string) (*layout, error) {
	l := &layout{reading: r, python: absPath(python), exe: r.resolve(python)}
	if !r.isELF(l.exe) {
		return nil, cannot("%s is a script, not the interpreter: only running it says which Python it starts", python)
	}
	if r.getenv("PYTHONHOME") != "" {
		return nil, cannot("PYTHONHOME is set")
	}
	exeDir := filepath.Dir(l.exe)
	for _, marker := range []string{"pybuilddir.txt", filepath.Base(l.exe) + "._pth", "python._pth"} {
		if _, err := r.stat(filepath.Join(exeDir, marker)); err == nil {
			return nil, cannot("%s is beside the interpreter (a build tree or a fixed path)", filepath.Join(exeDir, marker))
		}
	}
	cfgVersion, err := l.readVenv()
	if err != nil {
		return nil, err
	}
	if m := versionName().FindStringSubmatch(filepath.Base(l.exe)); m != nil {
		l.version = m[1]
	} else if cfgVersion != "" {
		l.version = cfgVersion
	}
	if err := l.findBase(); err != nil {
		return nil, err
	}
	if !l.venv {
		l.prefix = l.base
	}
	return l, nil
}

// readVenv reads pyvenv.cfg beside the program as invoked or one directory
// up (site.venv), and returns the version it records as "3.X".
func (l *layout) readVenv() (string, error) {
	dir := filepath.Dir(l.python)
	for _, cfg := range []string{filepath.Join(dir, "pyvenv.cfg"), filepath.Join(filepath.Dir(dir), "pyvenv.cfg")} {
		if !l.isFile(cfg) {
			continue
		}
		data, err := l.readFile(cfg, datafile.SmallText)
		if err != nil {
			return "", cannot("%v", err)
		}
		l.venv, l.systemSite, l.prefix = true, true, filepath.Dir(dir)
		var version string
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		for sc.Scan() {
			key, value, ok := strings.Cut(sc.Text(), "=")
			if !ok {
				continue
			}
			switch key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value); key {
			case "home":
				l.home = value
			case "include-system-site-packages":
				l.systemSite = strings.ToLower(value) == "true"
			case "version", "version_info":
				if parts := strings.SplitN(value, ".", 3); len(parts) >= 2 {
					version = parts[0] + "." + parts[1]
				}
			}
		}
		return version, nil
	}
	return "", nil
}

// findBase searches up from the program's directory (a venv's home) for
// the standard library's landmark (lib/python3.X/os.py), as getpath does
// when no PYTHONHOME is set.
func (l *layout) findBase() error {
	start := filepath.Dir(l.exe)
	if l.venv && l.home != "" {
		start = l.resolve(l.home)
	}
	for dir := start; ; dir = filepath.Dir(dir) {
		for _, libdir := range []string{"lib", "lib64"} {
			if l.version == "" {
				var found []string
				for _, n := range l.withPrefix(filepath.Join(dir, libdir), "python3.") {
					if _, err := l.stat(filepath.Join(dir, libdir, n, "os.py")); err == nil {
						found = append(found, strings.TrimPrefix(n, "python"))
					}
				}
				if len(found) > 1 {
					return cannot("%s holds %d standard libraries and the program's name gives no version", filepath.Join(dir, libdir), len(found))
				}
				if len(found) == 1 {
					l.version = found[0]
				}
			}
			if l.version == "" {
				continue
			}
			if _, err := l.stat(filepath.Join(dir, libdir, "python"+l.version, "os.py")); err == nil {
				l.base, l.libdir = dir, libdir
				return nil
			}
		}
		if filepath.Dir(dir) == dir {
			return cannot("no standard library (lib/python3.X/os.py) above %s", l.exe)
		}
	}
}

// stdlib is the standard library's directory.
func (l *layout) stdlib() string {
	return filepath.Join(l.base, l.libdir, "python"+l.version)
}

// absPath is p made absolute, links kept.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

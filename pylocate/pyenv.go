package pylocate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
)

// pyenvShim matches a pyenv shim (pyenv's libexec/pyenv-rehash writes
// them): the root it exports, then `exec ".../libexec/pyenv" exec
// "$program"`.
var pyenvShim = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)export PYENV_ROOT="([^"\n]+)".*exec "[^"\n]*/libexec/pyenv" exec "\$program"`)
})

// throughShim returns the program a pyenv shim at path runs, read as
// pyenv-exec and pyenv-version-name read it (PYENV_VERSION, else the
// nearest .python-version up from PYENV_DIR or the working directory,
// else PYENV_ROOT/version, else "system"); path itself when it is not a
// shim. What pyenv could decide otherwise (a hook that chooses the
// version or the program, a version named by a prefix) is a reason to run
// the shim.
func (r *reading) throughShim(path string) (string, error) {
	fi, err := r.stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return path, nil
	}
	data, err := r.readFile(path, 4096)
	if err != nil || !strings.HasPrefix(string(data), "#!") {
		return path, nil
	}
	m := pyenvShim().FindStringSubmatch(string(data))
	if m == nil {
		return path, nil
	}
	root, program := m[1], filepath.Base(path)
	if hook := r.pyenvHook(root); hook != "" {
		return "", cannot("pyenv hook %s may choose the program a shim runs", hook)
	}
	versions, from := r.pyenvVersions(root)
	for _, v := range versions {
		if v == "system" {
			if p := r.lookPathWithout(program, filepath.Dir(path), filepath.Join(root, "shims")); p != "" {
				return p, nil
			}
			continue
		}
		if v == ".." || strings.Contains(v, "/") {
			continue // pyenv ignores a version that would leave versions/
		}
		dir := filepath.Join(root, "versions", v)
		if _, err := r.stat(dir); err != nil {
			return "", cannot("pyenv version %q (%s) is not a directory of %s: pyenv may resolve it as a prefix", v, from, filepath.Join(root, "versions"))
		}
		if p := filepath.Join(dir, "bin", program); r.isExecutable(p) {
			return p, nil
		}
	}
	return "", cannot("no pyenv version of %s (%s) has %s", strings.Join(versions, ":"), from, program)
}

// pyenvVersions are the versions pyenv selects, and where it read them.
func (r *reading) pyenvVersions(root string) ([]string, string) {
	if v := r.getenv("PYENV_VERSION"); v != "" {
		return strings.Split(v, ":"), "PYENV_VERSION"
	}
	dir := r.getenv("PYENV_DIR")
	if dir == "" {
		dir, _ = os.Getwd()
	}
	for d := dir; d != ""; d = filepath.Dir(d) {
		f := filepath.Join(d, ".python-version")
		if vs := r.readVersionFile(f); len(vs) > 0 {
			return vs, f
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	f := filepath.Join(root, "version")
	if vs := r.readVersionFile(f); len(vs) > 0 {
		return vs, f
	}
	return []string{"system"}, "pyenv's default"
}

// readVersionFile reads the first word of each line, comments skipped
// (pyenv-version-file-read).
func (r *reading) readVersionFile(f string) []string {
	data, err := r.readFile(f, datafile.SmallText)
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		if w := strings.Fields(line); len(w) > 0 && !strings.HasPrefix(w[0], "#") {
			out = append(out, w[0])
		}
	}
	return out
}

// pyenvHook returns a hook that can change which version or program a
// shim runs (pyenv's which and version-name hooks), or "". A which hook
// that is one `if [ ! -x "${PYENV_COMMAND_PATH}" ]` block acts only when
// the version has no such program (pyenv-virtualenv's three), which
// throughShim never answers from files.
func (r *reading) pyenvHook(root string) string {
	dirs := filepath.SplitList(r.getenv("PYENV_HOOK_PATH"))
	dirs = append(dirs, filepath.Join(root, "pyenv.d"), "/usr/etc/pyenv.d", "/usr/local/etc/pyenv.d", "/etc/pyenv.d", "/usr/lib/pyenv/hooks")
	plugins := filepath.Join(root, "plugins")
	for _, p := range r.names(plugins) {
		dirs = append(dirs, filepath.Join(plugins, p, "etc", "pyenv.d"))
	}
	for _, d := range dirs {
		if !r.isDir(d) {
			continue // one witness for both kinds: most of these are absent
		}
		for _, kind := range []string{"which", "version-name"} {
			for _, n := range r.names(filepath.Join(d, kind)) {
				h := filepath.Join(d, kind, n)
				if strings.HasSuffix(n, ".bash") && (kind == "version-name" || !r.onlyWhenMissing(h)) {
					return h
				}
			}
		}
	}
	return ""
}

// onlyWhenMissing reports whether a hook's code is one if-block guarded by
// the command path not being executable: the first statement is that test,
// the last line its fi, and every line between is indented (inside it).
func (r *reading) onlyWhenMissing(hook string) bool {
	data, err := r.readFile(hook, datafile.SmallText)
	if err != nil {
		return false
	}
	var code []string
	for _, line := range strings.Split(string(data), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			code = append(code, line)
		}
	}
	if len(code) < 2 || !strings.HasPrefix(code[0], `if [ ! -x "${PYENV_COMMAND_PATH}" ]`) || code[len(code)-1] != "fi" {
		return false
	}
	for _, line := range code[1 : len(code)-1] {
		if line[0] != ' ' && line[0] != '\t' {
			return false
		}
	}
	return true
}

// lookPathWithout finds program on PATH with the directories skip left
// out (pyenv-which's system search leaves out its shims).
func (r *reading) lookPathWithout(program string, skip ...string) string {
	for _, d := range filepath.SplitList(r.getenv("PATH")) {
		if d == "" || containsPath(skip, d) {
			continue
		}
		if p := filepath.Join(d, program); r.isExecutable(p) {
			return p
		}
	}
	return ""
}

func containsPath(list []string, p string) bool {
	for _, q := range list {
		if filepath.Clean(q) == filepath.Clean(p) {
			return true
		}
	}
	return false
}

package pylocate

import (
	"path/filepath"
	"strings"
)

// findSpec finds top-level module pkg along the path as the import
// system's path finder does: in each entry in turn, a regular package (a
// directory holding __init__ with a suffix the interpreter loads) or a
// module file; a directory without __init__ is a namespace portion and the
// search goes on (a namespace package has no file, and is "not found" as
// the script's answer is). It returns the directory the answer names (the
// package's, or a module's own directory), "" when no entry holds it. An
// entry that is a file (a zip or an egg, read by zipimport) before the
// answer cannot be read here.
func (s *searchPath) findSpec() (string, error) {
	for _, entry := range s.entries {
		fi, err := s.stat(entry)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			return "", cannot("%s on sys.path is a file (a zip archive): zipimport reads it", entry)
		}
		names := s.withPrefix(entry, s.pkg)
		if len(names) == 0 {
			continue
		}
		if names[0] == s.pkg {
			base := filepath.Join(entry, s.pkg)
			for _, n := range s.names(base) {
				if rest, ok := strings.CutPrefix(n, "__init__"); ok && s.l.loads(rest) && s.isFile(filepath.Join(base, n)) {
					return base, nil
				}
			}
		}
		for _, n := range names {
			if rest, ok := strings.CutPrefix(n, s.pkg); ok && s.l.loads(rest) && s.isFile(filepath.Join(entry, n)) {
				return entry, nil
			}
		}
	}
	return "", nil
}

// loads reports whether the interpreter imports a file with this suffix:
// its extension modules (.cpython-311-<platform>.so, the platform taken as
// any, as IsExtensionName does), .abi3.so, .so, source and bytecode.
func (l *layout) loads(suffix string) bool {
	tag := strings.ReplaceAll(strings.TrimSuffix(l.version, "t"), ".", "")
	switch {
	case suffix == ".py", suffix == ".pyc", suffix == ".so", suffix == ".abi3.so":
		return true
	case strings.HasPrefix(suffix, ".cpython-"+tag) && strings.HasSuffix(suffix, ".so"):
		return true
	}
	return false
}

// fromFiles answers where pkg is for the interpreter found at path as the
// script would, from files: the directory ("" when the interpreter cannot
// import it), the program, and the version of the distribution. An
// *unreadable error means only running the interpreter can say.
func (r *reading) fromFiles(path, pkg string) (dir, exe, version string, err error) {
	prog, err := r.throughShim(path)
	if err != nil {
		return "", "", "", err
	}
	l, err := r.readLayout(prog)
	if err != nil {
		return "", "", "", err
	}
	s, err := l.sysPath(pkg)
	if err != nil {
		return "", "", "", err
	}
	if dir, err = s.findSpec(); err != nil || dir == "" {
		return "", l.exe, "", err
	}
	// Beside the package first, else as importlib.metadata searches:
	// sys.path in order.
	for _, entry := range append([]string{filepath.Dir(dir)}, s.entries...) {
		if v, ok := r.versionAmong(entry, pkg); ok {
			return dir, l.exe, v, nil
		}
	}
	return dir, l.exe, "", nil
}

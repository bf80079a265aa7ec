package pylocate

import (
	"os"
	"path/filepath"
	"strings"
)

// findSpec finds top-level module pkg along path as the import system's
// path finder does: in each entry in turn, a regular package (a directory
// holding __init__ with a suffix the interpreter loads) or a module file;
// a directory without __init__ is a namespace portion and the search goes
// on (a namespace package has no file, and is "not found" as the script's
// answer is). It returns the directory the answer names (the package's,
// or a module's own directory), "" when no entry holds it. An entry that
// is a file (a zip or an egg, read by zipimport) before the answer cannot
// be read here.
func (l *layout) findSpec(path []string, pkg string) (string, error) {
	suffixes := l.suffixes()
	for _, entry := range path {
		fi, err := os.Stat(entry)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			return "", cannot("%s on sys.path is a file (a zip archive): zipimport reads it", entry)
		}
		base := filepath.Join(entry, pkg)
		if bi, err := os.Stat(base); err == nil && bi.IsDir() {
			for _, suf := range suffixes {
				if isFile(filepath.Join(base, "__init__"+suf)) {
					return base, nil
				}
			}
		}
		for _, suf := range suffixes {
			if isFile(base + suf) {
				return entry, nil
			}
		}
	}
	return "", nil
}

// suffixes are the file suffixes the interpreter imports, in the path
// finder's order: extension modules, source, bytecode.
func (l *layout) suffixes() []string {
	var ext []string
	tag := strings.ReplaceAll(strings.TrimSuffix(l.version, "t"), ".", "")
	// The platform part of the extension suffix (x86_64-linux-gnu) is
	// whatever the interpreter was built for: any is taken, as the
	// extension tag of IsExtensionName is.
	ext = append(ext, ".cpython-"+tag+"*.so", ".abi3.so", ".so")
	return append(ext, ".py", ".pyc")
}

// isFile reports whether p names a regular file; a pattern (a suffix with
// *) is matched against the directory.
func isFile(p string) bool {
	if strings.Contains(filepath.Base(p), "*") {
		m, _ := filepath.Glob(p)
		for _, f := range m {
			if isFile(f) {
				return true
			}
		}
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// fromFiles answers where pkg is for the interpreter found at path as the
// script would, from files: the directory ("" when the interpreter cannot
// import it), the program, and the version of the distribution. An
// *unreadable error means only running the interpreter can say.
func fromFiles(path, pkg string) (dir, exe, version string, err error) {
	prog, err := throughShim(path)
	if err != nil {
		return "", "", "", err
	}
	l, err := readLayout(prog)
	if err != nil {
		return "", "", "", err
	}
	paths, err := l.sysPath(pkg)
	if err != nil {
		return "", "", "", err
	}
	if dir, err = l.findSpec(paths, pkg); err != nil || dir == "" {
		return "", l.exe, "", err
	}
	if v, ok := Version(dir, pkg); ok {
		return dir, l.exe, v, nil
	}
	// importlib.metadata searches sys.path in order.
	for _, entry := range paths {
		if v, ok := Version(filepath.Join(entry, pkg), pkg); ok {
			return dir, l.exe, v, nil
		}
	}
	return dir, l.exe, "", nil
}

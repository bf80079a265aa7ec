package linkline

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
)

// compiler is a language's compiler and where it was read.
type compiler struct{ path, from string }

// compilers maps a CMake language (C, CXX) to its compiler.
type compilers map[string]compiler

// add records a compiler unless an earlier, better source gave one.
func (c compilers) add(lang, path, from string) {
	if _, have := c[lang]; !have && lang != "" && path != "" {
		c[lang] = compiler{path, from}
	}
}

// addCacheEntry records CMAKE_<LANG>_COMPILER from a cache entry.
func (c compilers) addCacheEntry(name, value, from string) {
	lang, ok := strings.CutPrefix(name, "CMAKE_")
	if lang, ok2 := strings.CutSuffix(lang, "_COMPILER"); ok && ok2 {
		c.add(lang, value, from)
	}
}

// compilerFile matches the files CMake writes when it has found a
// language's compiler: CMakeFiles/<version>/CMake<LANG>Compiler.cmake.
var compilerFile = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^CMake([A-Za-z]+)Compiler\.cmake$`)
})

// setCompiler matches the line of such a file that names the compiler:
// set(CMAKE_CXX_COMPILER "/usr/bin/aarch64-linux-gnu-g++").
var setCompiler = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^set\(CMAKE_([A-Za-z]+)_COMPILER "([^"]+)"\)$`)
})

// recordedCompilers reads the compilers CMake found for the build directory
// top from CMakeFiles/<version>/CMake<LANG>Compiler.cmake: the version the
// reply names, else the newest directory there.
func recordedCompilers(top, version string, c compilers) {
	dir := filepath.Join(top, "CMakeFiles", version)
	if _, err := os.Stat(dir); version == "" || err != nil {
		dirs, _ := filepath.Glob(filepath.Join(top, "CMakeFiles", "[0-9]*.*"))
		if len(dirs) == 0 {
			return
		}
		sort.Slice(dirs, func(i, j int) bool { return modTime(dirs[i]) > modTime(dirs[j]) })
		dir = dirs[0]
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		m := compilerFile().FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		f, _, err := datafile.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if s := setCompiler().FindStringSubmatch(strings.TrimSpace(sc.Text())); s != nil && s[1] == m[1] {
				rel, _ := filepath.Rel(top, filepath.Join(dir, e.Name()))
				c.add(s[1], s[2], rel)
				break
			}
		}
		f.Close()
	}
}

func modTime(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.ModTime().UnixNano()
}

// cacheCompilers reads CMAKE_<LANG>_COMPILER entries from the build
// directory's CMakeCache.txt (NAME:TYPE=VALUE lines).
func cacheCompilers(top string, c compilers) {
	f, _, err := datafile.Open(filepath.Join(top, "CMakeCache.txt"))
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "CMAKE_") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		name, _, _ := strings.Cut(key, ":")
		if ok {
			c.addCacheEntry(name, value, "CMakeCache.txt")
		}
	}
}

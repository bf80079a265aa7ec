package linkline

import (
	"bufio"
	"errors"
	"io"
	"path/filepath"
	"strings"
)

// ParseLog finds the link commands in a build log: `make VERBOSE=1`, `ninja
// -v` ("[12/40] : && /usr/bin/c++ ... && :"), or any log that echoes the
// commands it runs. A line counts when, after shell splitting, it runs a
// linker or a compiler with -o and none of -c -S -E. "Entering directory"
// lines of make and ninja move the directory relative paths are taken
// from. Lines that are not shell commands (diagnostics) are skipped; a link
// line that cannot be parsed (a missing response file) is an error naming
// name and the line. Response files must lie in the link's working
// directory: the one the log last entered, else opt.Dir.
func ParseLog(r io.Reader, name string, opt Options) ([]*Link, []error) {
	dir, err := baseDir(opt.Dir, "")
	if err != nil {
		return nil, []error{err}
	}
	s := newSession(opt)
	s.rspRoot = dir
	var links []*Link
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if d, ok := enteringDir(line, dir); ok {
			dir = d
			s.rspRoot = d
			continue
		}
		line = stripProgress(line)
		if !strings.Contains(line, "-o") && !mentionsLinker(line) {
			continue // cheap reject: no output, no linker
		}
		src := Source{File: name, Line: n}
		found, err := s.parseShell(line, dir, src, false)
		switch {
		case err == nil:
		case errors.Is(err, ErrNotLink), errors.Is(err, errUnterminated):
			continue
		default:
			errs = append(errs, err)
		}
		links = append(links, found...)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fileError(name, err))
	}
	return links, errs
}

// stripProgress removes ninja's "[12/40] " status prefix.
func stripProgress(line string) string {
	if !strings.HasPrefix(line, "[") {
		return line
	}
	end := strings.Index(line, "] ")
	if end < 0 {
		return line
	}
	num, den, ok := strings.Cut(line[1:end], "/")
	if !ok || !isDigits(num) || !isDigits(den) {
		return line
	}
	return line[end+2:]
}

// enteringDir reads make's "make[1]: Entering directory '/x'" and ninja's
// "ninja: Entering directory `build'".
func enteringDir(line, cur string) (string, bool) {
	i := strings.Index(line, ": Entering directory ")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimSpace(line[i+len(": Entering directory "):])
	if len(rest) < 2 {
		return "", false
	}
	rest = strings.Trim(rest, "'`\"‘’")
	if !filepath.IsAbs(rest) {
		rest = filepath.Join(cur, rest)
	}
	return filepath.Clean(rest), true
}

func mentionsLinker(line string) bool {
	return strings.Contains(line, "ld") || strings.Contains(line, "mold") || strings.Contains(line, "collect2")
}

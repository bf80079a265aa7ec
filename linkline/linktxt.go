package linkline

import (
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// ParseLinkTxt parses CMake's CMakeFiles/<target>.dir/link.txt (Makefile
// generators). The file may hold several commands, one a line or joined
// with &&; the link is the first that links. Target comes from the path,
// and Dir is the build directory that holds CMakeFiles, where make runs
// the commands (unless opt.Dir says otherwise). Response files must lie
// in that directory.
func ParseLinkTxt(path string, opt Options) (*Link, error) {
	data, err := datafile.ReadFile(path, datafile.SmallText)
	if err != nil {
		return nil, err
	}
	target, buildDir := linkTxtTarget(path)
	dir, err := baseDir(opt.Dir, buildDir)
	if err != nil {
		return nil, err
	}
	s := newSession(opt)
	s.rspRoot = dir
	var firstErr error
	archive := false
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		links, err := s.parseShell(line, dir, Source{File: path, Line: i + 1}, true)
		if err != nil {
			if firstErr == nil && !isNotLink(err) {
				firstErr = err
			}
			archive = archive || runsArchiver(line)
			continue
		}
		links[0].Target = target
		return links[0], nil
	}
	switch {
	case firstErr != nil:
		return nil, firstErr
	case archive:
		return nil, fileError(path, ErrArchive)
	}
	return nil, fileError(path, ErrNotLink)
}

// runsArchiver reports whether a command line runs ar or ranlib (any
// triplet's, gcc-ar, llvm-ar).
func runsArchiver(line string) bool {
	cmds, err := splitShell(line)
	if err != nil {
		return false
	}
	for _, c := range cmds {
		if words := stripPrefix(c.words); len(words) > 0 {
			_, name, _ := classify(words[0])
			if name == "ar" || name == "ranlib" || strings.HasSuffix(name, "-ar") || strings.HasSuffix(name, "-ranlib") {
				return true
			}
		}
	}
	return false
}

// linkTxtTarget reads .../<build>/CMakeFiles/<target>.dir/link.txt.
func linkTxtTarget(path string) (target, buildDir string) {
	tdir := filepath.Dir(path)
	cm := filepath.Dir(tdir)
	if filepath.Base(cm) != "CMakeFiles" || !strings.HasSuffix(filepath.Base(tdir), ".dir") {
		return "", filepath.Dir(path)
	}
	return strings.TrimSuffix(filepath.Base(tdir), ".dir"), filepath.Dir(cm)
}

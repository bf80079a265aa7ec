package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/finding"
)

// locator maps the file names in findings to paths under a base directory
// (SARIF's %SRCROOT%, the GitHub workspace), so that a reviewer's click lands
// on the file in the checkout rather than on the build machine's path.
type locator struct {
	// base is absolute and clean; empty leaves paths as they are given.
	base string
}

func newLocator(base string) (locator, error) {
	if base == "" {
		return locator{}, nil
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return locator{}, fmt.Errorf("base directory %s: %w", base, err)
	}
	return locator{base: abs}, nil
}

// rel returns p relative to the base directory, slash-separated, when p lies
// inside it. Relative paths are taken from the current directory, as the
// command line that named them meant.
func (l locator) rel(p string) (string, bool) {
	if l.base == "" || p == "" {
		return "", false
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	r, err := filepath.Rel(l.base, abs)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

// display is an object name or path for a message: relative to the base
// directory when its file lies inside it, else as given.
func (l locator) display(name string) string {
	file, _ := container(name)
	if r, ok := l.rel(file); ok {
		return r + name[len(file):]
	}
	return name
}

// container splits an object name into the file on disk that holds it and
// the wheel entry or archive member inside that file:
//
//	dist/x.whl!pkg/lib/a.so  ->  dist/x.whl, pkg/lib/a.so
//	build/libb.a(reg.o)      ->  build/libb.a, reg.o
//	dist/x.whl!lib/b.a(r.o)  ->  dist/x.whl, lib/b.a(r.o)
//
// A '!' or parentheses elsewhere are part of a file name.
func container(name string) (file, inner string) {
	for i := 0; i < len(name); i++ {
		if name[i] == '!' && hasSuffixFold(name[:i], ".whl", ".zip") {
			return name[:i], name[i+1:]
		}
	}
	if strings.HasSuffix(name, ")") {
		i := strings.LastIndexByte(name, '(')
		if i > 0 && strings.HasSuffix(name[:i], ".a") && !strings.ContainsRune(name[i:], '/') {
			return name[:i], name[i+1 : len(name)-1]
		}
	}
	return name, ""
}

func hasSuffixFold(s string, suffixes ...string) bool {
	for _, suf := range suffixes {
		if len(s) > len(suf) && strings.EqualFold(s[len(s)-len(suf):], suf) {
			return true
		}
	}
	return false
}

// objectName is the subject's object as people read it: file, file!entry or
// archive(member).
func objectName(s finding.Subject) string {
	if s.Member != "" {
		return s.File + "(" + s.Member + ")"
	}
	return s.File
}

// lastElem is the last component of an object name: the file, entry or
// member without the directories and containers around it.
func lastElem(name string) string {
	name = strings.TrimSuffix(name, ")")
	if i := strings.LastIndexAny(name, "/!("); i >= 0 {
		return name[i+1:]
	}
	return name
}

// withObject appends name to msg unless msg already names its last element,
// for outputs whose location cannot point at the object itself.
func withObject(msg, name string) string {
	if name == "" || strings.Contains(msg, lastElem(name)) {
		return msg
	}
	return msg + " (" + name + ")"
}

// escapeURIPath percent-encodes a slash-separated path for a URI: every byte
// but the unreserved characters and '/' '+' '@' '='. '!' and parentheses (the
// wheel and archive separators), ':' (which would read as a scheme in a
// relative reference), '%', spaces and non-ASCII bytes are all encoded.
func escapeURIPath(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~/+@=", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return "file://" + escapeURIPath(p)
}

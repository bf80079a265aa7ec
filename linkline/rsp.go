package linkline

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// maxRspDepth bounds response files nested in response files.
const maxRspDepth = 16

// maxRspArgs bounds the arguments response files give one command: each
// costs about 4 us and 400 bytes to read, so a 16 MB file of "a.o "
// would take 1.8 GB. Chromium's largest links name about 60,000 objects.
const maxRspArgs = 1 << 18

// ErrResponseFile is wrapped by every response-file error: a missing file, a
// cycle, or nesting deeper than 16.
var ErrResponseFile = errors.New("response file")

// word is one argument with where it was read.
type word struct {
	text string
	src  Source
}

// splitRsp splits response-file text as GCC's libiberty (buildargv) does:
// whitespace separates arguments; single and double quotes group, and a
// backslash escapes the next character everywhere, inside quotes too. A
// quoted empty string is an (empty) argument. Each word records its line.
// Past max words it stops, and ok is false.
func splitRsp(data, file string, max int) (out []word, ok bool) {
	var (
		cur     strings.Builder
		inArg   bool
		squote  bool
		dquote  bool
		bsquote bool
		line    = 1
		start   = 1
	)
	for i := 0; i < len(data); i++ {
		c := data[i]
		if !inArg {
			if isSpace(c) {
				if c == '\n' {
					line++
				}
				continue
			}
			inArg = true
			start = line
		}
		if c == '\n' {
			line++
		}
		switch {
		case bsquote:
			bsquote = false
			cur.WriteByte(c)
		case c == '\\':
			bsquote = true
		case squote:
			if c == '\'' {
				squote = false
			} else {
				cur.WriteByte(c)
			}
		case dquote:
			if c == '"' {
				dquote = false
			} else {
				cur.WriteByte(c)
			}
		case isSpace(c):
			if len(out) == max {
				return out, false
			}
			out = append(out, word{cur.String(), Source{File: file, Line: start}})
			cur.Reset()
			inArg = false
		case c == '\'':
			squote = true
		case c == '"':
			dquote = true
		default:
			cur.WriteByte(c)
		}
	}
	if inArg {
		if len(out) == max {
			return out, false
		}
		out = append(out, word{cur.String(), Source{File: file, Line: start}})
	}
	return out, true
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// expandRsp replaces each @file argument by the arguments the file holds,
// recursively, as GCC and GNU ld do. A relative path is taken from dir (the
// tools open it relative to their working directory, also when named in
// another response file). Contents known without reading (ninja's
// rspfile_content, in s.overlay) are used first. chain is the response files
// being expanded, outermost first.
func (s *session) expandRsp(args []word, dir string, chain []string) ([]word, error) {
	return s.expandRspWithin(args, dir, chain, maxRspArgs)
}

// expandRspWithin is expandRsp giving at most room arguments (args and
// what their response files hold).
func (s *session) expandRspWithin(args []word, dir string, chain []string, room int) ([]word, error) {
	var out []word
	for i, a := range args {
		if len(a.text) < 2 || a.text[0] != '@' {
			if out != nil {
				out = append(out, a)
			}
			continue
		}
		if out == nil {
			out = append(make([]word, 0, len(args)+16), args[:i]...)
		}
		name := a.text[1:]
		path := name
		if !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		path = filepath.Clean(path)
		for _, c := range chain {
			if c == path {
				return nil, srcError(a.src, fmt.Errorf("%w cycle: %s", ErrResponseFile, strings.Join(append(chain, path), " -> ")))
			}
		}
		if len(chain) >= maxRspDepth {
			return nil, srcError(a.src, fmt.Errorf("%w nesting deeper than %d: %s", ErrResponseFile, maxRspDepth, strings.Join(append(chain, path), " -> ")))
		}
		data, ok := s.overlay[path]
		src := path
		if ok {
			src = s.overlaySrc[path]
		} else {
			b, err := s.readRsp(path)
			if err != nil {
				return nil, srcError(a.src, fmt.Errorf("%w %s: %w", ErrResponseFile, describeRsp(name, chain), err))
			}
			data = string(b)
		}
		// What is left once the arguments before and after it are in.
		left := max(room-len(out)-(len(args)-i-1), 0)
		words, fits := splitRsp(data, src, left)
		if !fits {
			return nil, srcError(a.src, fmt.Errorf("%w %s: the command holds more than %d arguments with its response files: not read", ErrResponseFile, describeRsp(name, chain), maxRspArgs))
		}
		if ok {
			// Inline content: every word is attributed to the statement
			// that declared it.
			for j := range words {
				words[j].src = a.src
			}
		}
		sub, err := s.expandRspWithin(words, dir, append(chain[:len(chain):len(chain)], path), left)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	if out == nil {
		return args, nil
	}
	return out, nil
}

// describeRsp names a response file in an error, with the files that
// named it.
func describeRsp(name string, chain []string) string {
	if len(chain) == 0 {
		return name
	}
	return fmt.Sprintf("%s (via %s)", name, strings.Join(chain, " -> "))
}

// maxInputSize bounds a response file or an included ninja file.
const maxInputSize = 256 << 20

// readRsp reads a response file from disk. Named by an untrusted build
// tree, it must lie inside s.rspRoot once symbolic links are resolved, as
// File API replies must lie in the reply directory: "@/etc/passwd", or a
// link in the tree to /dev/zero, is not read. readBuildFile reads regular
// files only: a FIFO inside the tree is refused too.
func (s *session) readRsp(path string) ([]byte, error) {
	if s.rspRoot != "" {
		real, inside, err := realWithin(path, s.rspRoot)
		if err != nil {
			return nil, err
		}
		if !inside {
			return nil, fmt.Errorf("%s is outside %s, the directory response files are read from: not read", real, s.rspRoot)
		}
	}
	return readBuildFile(s.opt.Budget, path, maxInputSize)
}

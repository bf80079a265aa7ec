package cmake

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it returns is
// consistent (positions in order, errors located), that every command it
// reads prints back (Command.String) to the same command, and that
// evaluating the file never panics either.
func FuzzParse(f *testing.F) {
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasSuffix(path, ".txt") || strings.HasSuffix(path, ".cmake") {
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f.Add(src)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, tc := range argCases {
		f.Add([]byte(tc.src))
	}
	for _, tc := range parseErrors {
		f.Add([]byte(tc.src))
	}
	for _, s := range []string{
		"if((A OR B) AND NOT (C))\nelseif(D)\nelse()\nendif()",
		"foreach(x RANGE 1 3)\n  list(APPEND L ${x})\nendforeach()\nwhile(L)\n  list(POP_BACK L)\nendwhile()",
		"function(f a)\n  cmake_parse_arguments(PARSE_ARGV 1 A \"X\" \"Y\" \"Z\")\n  set(r ${A_Z} PARENT_SCOPE)\nendfunction()\nf(1 Z a b)",
		"macro(m)\n  target_link_libraries(${ARGV0} PRIVATE ${ARGN})\nendmacro()\nadd_library(t MODULE t.c)\nm(t \"$<LINK_LIBRARY:WHOLE_ARCHIVE,a>\")",
		"set(x \"${${y}}\" [=[${z}]=] $<A:${B}>)\nstring(REPLACE a b out ${x})",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("CMakeLists.txt", src)
		if file == nil {
			t.Fatal("nil File")
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *SyntaxError: %v", err, err)
			}
			if se.Line < 1 || se.Col < 1 || se.Msg == "" {
				t.Fatalf("badly located error: %v", err)
			}
			return
		}
		for _, c := range file.Commands {
			if c.Line < 1 || c.Col < 1 || c.EndLine < c.Line {
				t.Fatalf("%s: position %d:%d-%d", c.Raw, c.Line, c.Col, c.EndLine)
			}
			for _, a := range c.Args {
				if a.Line < c.Line || a.Line > c.EndLine || a.Col < 1 {
					t.Fatalf("%s: argument %q at %d:%d outside %d-%d", c.Raw, a.Text, a.Line, a.Col, c.Line, c.EndLine)
				}
			}
			if printsBack := !strings.Contains(c.String(), "\r\n"); !printsBack {
				// CMake's one-pass CRLF conversion turns \r\r\n into a
				// \r\n that stays in the text; printed back, it would be
				// converted again.
				continue
			}
			again, err := Parse("again", []byte(c.String()))
			if err != nil {
				t.Fatalf("%s does not parse back: %v", c.String(), err)
			}
			if len(again.Commands) != 1 || !sameCommand(c, again.Commands[0]) {
				t.Fatalf("%q parses back as %v", c.String(), again.Commands)
			}
		}
		if p, _ := evalBytes(src, Options{MaxDepth: 8}, nil); p == nil {
			t.Fatal("nil Project")
		}
	})
}

func sameCommand(a, b *Command) bool {
	if a.Name != b.Name || a.Raw != b.Raw || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i].Text != b.Args[i].Text || a.Args[i].Quoting != b.Args[i].Quoting {
			return false
		}
	}
	return true
}

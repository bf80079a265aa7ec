package report

import (
	"bytes"
	"testing"
)

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]string
		want   string
	}{
		{"aligned", []string{"ID", "NAME"}, [][]string{{"ET301", "defined-by-peer"}, {"E", "x"}},
			"  ID     NAME\n  ET301  defined-by-peer\n  E      x\n"},
		{"cells trimmed, no trailing blanks", []string{"A", "B"}, [][]string{{" a ", ""}, {"bb", " c\t"}},
			"  A   B\n  a\n  bb  c\n"},
		{"wide and combining characters", []string{"NAME", "X"}, [][]string{{"日本", "1"}, {"e\u0301", "2"}, {"Ａb", "3"}},
			"  NAME  X\n  日本  1\n  e\u0301     2\n  Ａb   3\n"},
		// A name read from a file holding a newline cannot forge a row;
		// bytes that are not UTF-8 do not reach the terminal raw.
		{"a newline in a cell is escaped", []string{"A", "B", "C"}, [][]string{{"x\n  libevil.so  DYN", "z", "w"}, {"n\xff\xfe", "\ufffd", "\x1b[2J"}},
			"  A                       B  C\n  x\\x0a  libevil.so  DYN  z  w\n  n\\xff\\xfe               \ufffd  \\x1b[2J\n"},
		{"short rows", []string{"A", "B"}, [][]string{{"only"}},
			"  A     B\n  only\n"},
	} {
		var b bytes.Buffer
		if err := Table(&b, tc.header, tc.rows); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("%s:\ngot\n%q\nwant\n%q", tc.name, b.String(), tc.want)
		}
	}
}

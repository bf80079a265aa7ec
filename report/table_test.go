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
		{"a cell with a newline spans two lines", []string{"A", "B", "C"}, [][]string{{"x\ny", "z", "w"}},
			"  A  B  C\n  x  z  w\n  y\n"},
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

package report

import (
	"bufio"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Table writes a plain table in the report's style (for inventories such
// as scan): a header row, then the rows, left-aligned, two blanks between
// columns, every line indented by two blanks and without trailing blanks.
// A cell is one line: its control characters (a newline in a name read
// from a file would forge a row) are escaped. Columns are as wide as
// their widest cell as a terminal shows it (East Asian wide characters
// take two columns, combining marks none).
//
// Written here rather than with a table library: this is all the report
// needs, and the one it used cost every etlink start 2-4 ms in package
// initialisation (a 650 KB width cache built before main).
func Table(w io.Writer, header []string, rows [][]string) error {
	all := append([][]string{header}, rows...)
	var widths []int
	cells := make([][]string, len(all)) // row, column
	for i, r := range all {
		cells[i] = make([]string, len(r))
		for j, c := range r {
			cells[i][j] = Visible(strings.TrimSpace(c))
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], displayWidth(cells[i][j]))
		}
	}
	bw := bufio.NewWriter(w)
	var line strings.Builder
	for _, r := range cells {
		line.Reset()
		line.WriteString("  ")
		for j, s := range r {
			line.WriteString(s)
			if j < len(r)-1 {
				line.WriteString(strings.Repeat(" ", widths[j]-displayWidth(s)+2))
			}
		}
		bw.WriteString(strings.TrimRight(line.String(), " "))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r < utf8.RuneSelf:
			n++
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}

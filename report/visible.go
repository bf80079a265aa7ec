package report

import (
	"fmt"
	"strings"
	"unicode"
)

// VisibleLines is Visible for text meant to span lines: newlines stay.
func VisibleLines(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

// Visible escapes the control characters of s (ESC, BEL, DEL, C1 codes;
// tab and newline too) as \xNN or \u{NNNN}, so that a name read from a
// hostile file cannot move the cursor, recolour or clear a terminal, ring
// it, or forge a line of a log. Everything a report prints from an input
// passes through it.
func Visible(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unicode.IsControl(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		}
	}
	return b.String()
}

package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// VisibleLines is Visible for text meant to span lines: newlines stay.
func VisibleLines(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

// Visible escapes the control characters of s (ESC, BEL, DEL, C1 codes;
// tab and newline too) as \xNN or \u{NNNN}, and bytes that are not UTF-8
// as \xNN, so that a name read from a hostile file cannot move the cursor,
// recolour or clear a terminal, ring it, forge a line of a log or a row of
// a table, or reach a terminal as raw bytes (two names that differ in
// them still read differently). Everything a report prints from an input
// passes through it.
func Visible(s string) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
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

package report

import (
	"strings"

	"github.com/etlink/etlink/finding"
)

// sgr are the colours of the severities, as GCC and Clang print them.
var sgr = map[finding.Severity]string{
	finding.Error:   "\x1b[1;31m",
	finding.Warning: "\x1b[1;35m",
	finding.Note:    "\x1b[1;36m",
}

const sgrReset = "\x1b[0m"

// paint colours a severity's word when the text goes to a terminal that
// wants colour (Options.Color).
func (t *textWriter) paint(sev finding.Severity, s string) string {
	if !t.opt.Color || sgr[sev] == "" {
		return s
	}
	return sgr[sev] + s + sgrReset
}

// plainWidth is the columns s takes on a terminal, its SGR sequences (the
// renderer's own: input text reaches it escaped by Visible) taking none.
func plainWidth(s string) int {
	n := 0
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return n + displayWidth(s)
		}
		n += displayWidth(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return n + displayWidth(s[i:])
		}
		s = s[i+j+1:]
	}
}

package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestWriteFormats(t *testing.T) {
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := Write(&buf, format, fixtureReport(), Options{Rules: fixtureRules(), BaseDir: fixtureBase}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
		if buf.Len() == 0 {
			t.Errorf("%s: no output", format)
		}
	}
	err := Write(&bytes.Buffer{}, "xml", fixtureReport(), Options{})
	if err == nil || !strings.Contains(err.Error(), strings.Join(Formats, ", ")) {
		t.Errorf("unknown format: %v", err)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/etlink/etlink/finding"
)

// stdJSON is what EncodeJSON must reproduce byte for byte.
func stdJSON(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestEncodeJSONMatchesTheEncoder(t *testing.T) {
	for _, r := range []finding.Report{
		{Command: "conflicts", Inputs: []finding.Input{}, Findings: []finding.Finding{}},
		{Command: `a "findings": [] b`, Inputs: []finding.Input{{Path: `x\"findings\": []`, Error: "<&>"}},
			Findings: []finding.Finding{
				{Rule: "ET301", Message: `std::vector<int, std::allocator<int> > "quoted" \ back`, Severity: finding.Error},
				{Rule: "ET302", Evidence: []finding.Step{{Text: "é ü \u2028 \x01"}, {}}},
			},
			Summary: map[string]int{"error": 1, "note": 0}},
	} {
		want := stdJSON(t, &r)
		var got bytes.Buffer
		if err := JSON(&got, &r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("EncodeJSON:\n%s\nthe encoder:\n%s", got.Bytes(), want)
		}
	}
}

// FuzzIndentJSON holds indentJSON to json.Indent on every valid document.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[],"b":{},"c":[1,{"d":"e\"f"}]}`, `"x\\"`, `[{"k":"\u2028"},null,true,-1.5e3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, compact.Bytes(), 0); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indentJSON(%q) =\n%s\njson.Indent:\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}

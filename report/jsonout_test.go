package report

import (
	"bytes"
	"encoding/json"
	"strings"
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

// TestEncodeJSONError: an element the encoder refuses is an error, not a
// truncated document passed off as whole.
func TestEncodeJSONError(t *testing.T) {
	elems := make([]any, 40)
	elems[33] = make(chan int)
	var out bytes.Buffer
	err := EncodeJSON(&out, struct {
		Findings []any `json:"findings"`
	}{[]any{}}, "findings", elems)
	if err == nil {
		t.Fatalf("no error for an element JSON cannot hold; wrote\n%s", out.Bytes())
	}
}

// FuzzIndentJSON: indentJSON indents compact JSON exactly as json.Indent
// does with two spaces, strings with escaped quotes and backslashes, and
// documents deeper than its indent string, included.
func FuzzIndentJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c\"d\\\\"}],"e":{},"f":[]}`, "[" + strings.Repeat(`"0123456789abcdef",`, 5000) + "1]", `"x\\\\\"y"`, strings.Repeat("[", 50) + strings.Repeat("]", 50),
		`{"k":"\\\\","l":"\\\"\\\\"}`, `[true,false,null,-1.5e3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := indentJSON(nil, compact.Bytes(), 0, nil); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indentJSON:\n%s\njson.Indent:\n%s", got, want.Bytes())
		}
		var flushed []byte
		rest := indentJSON(nil, compact.Bytes(), 0, func(b []byte) { flushed = append(flushed, b...) })
		if got := append(flushed, rest...); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("indentJSON, flushed:\n%s\njson.Indent:\n%s", got, want.Bytes())
		}
	})
}

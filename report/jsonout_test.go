package report

import (
	"bytes"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/jsonw/jsonwtest"
)

func TestEncodeJSONMatchesTheEncoder(t *testing.T) {
	for _, r := range []finding.Report{
		{Command: "conflicts", Inputs: []finding.Input{}, Findings: []finding.Finding{}},
		{Command: `a "findings": [] b`, Inputs: []finding.Input{{Path: `x\"findings\": []`, Error: "<&>"}},
			Findings: []finding.Finding{
				{Rule: "ET301", Message: `std::vector<int, std::allocator<int> > "quoted" \ back`, Severity: finding.Error},
				{Rule: "ET302", Evidence: []finding.Step{{Text: "é ü \u2028 \x01"}, {}}},
				{Rule: "ET202", Severity: finding.Note, Subject: finding.Subject{File: "f", Member: "m.o", Target: "t", Symbol: "_ZN1aE",
					Demangled: "a", Component: "c", Peer: "p"}, Evidence: []finding.Step{{Text: "t", File: "CMakeLists.txt", Line: 7, Symbol: "s"}},
					Fix: "fix\n\tit", Location: &finding.Location{File: "CMakeLists.txt", Line: 3}, Fingerprint: "0123",
					Details: map[string]any{"symbols": []string{"a<b>", "c&d"}, "empty": []int{}, "nil": nil}},
				{Rule: "ET101", Location: &finding.Location{File: "x"}, Evidence: []finding.Step{}, Details: []int(nil)},
				{Rule: "ET999", Severity: finding.Severity(9), Details: struct{}{}},
			},
			Summary: map[string]int{"error": 1, "note": 0}},
	} {
		want := append(jsonwtest.EncodingJSON(t, &r), '\n')
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
	elems := make([]finding.Finding, 40)
	elems[33].Details = make(chan int)
	var out bytes.Buffer
	err := EncodeJSON(&out, struct {
		Findings []any `json:"findings"`
	}{[]any{}}, "findings", elems)
	if err == nil {
		t.Fatalf("no error for an element JSON cannot hold; wrote\n%s", out.Bytes())
	}
}

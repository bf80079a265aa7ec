package jsonw_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/jsonw"
	"github.com/etlink/etlink/internal/jsonw/jsonwtest"
)

// FuzzIndent: Indent indents compact JSON exactly as json.Indent does with
// two spaces, strings with escaped quotes and backslashes, and documents
// deeper than its indent string, included.
func FuzzIndent(f *testing.F) {
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
		if got := jsonw.Indent(nil, compact.Bytes(), 0, nil); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("Indent:\n%s\njson.Indent:\n%s", got, want.Bytes())
		}
		var flushed []byte
		rest := jsonw.Indent(nil, compact.Bytes(), 0, func(b []byte) { flushed = append(flushed, b...) })
		if got := append(flushed, rest...); !bytes.Equal(got, want.Bytes()) {
			t.Errorf("Indent, flushed:\n%s\njson.Indent:\n%s", got, want.Bytes())
		}
	})
}

// FuzzString: a string is quoted as encoding/json quotes it without HTML
// escaping, invalid UTF-8, control bytes and U+2028 included.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", `a"b\c`, "\b\f\n\r\t\x00\x1f\x7f", "<&>", "é\u2028\u2029", "\xff\xfe", "std::vector<int>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var w jsonw.Writer
		w.String(s)
		if got, want := w.Bytes(), jsonwtest.EncodingJSON(t, s); !bytes.Equal(got, want) {
			t.Errorf("%q: wrote %s, encoding/json %s", s, got, want)
		}
	})
}

type sample struct {
	Name  string   `json:"name"`
	Opt   string   `json:"opt,omitempty"`
	N     int      `json:"n"`
	List  []string `json:"list"`
	Inner []sample `json:"inner,omitempty"`
}

func (s *sample) WriteJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("name", s.Name)
	w.OmitEmpty("opt", s.Opt)
	w.Key("n")
	w.Int(s.N)
	w.Key("list")
	jsonw.Slice(w, s.List, func(v *string, w *jsonw.Writer) { w.String(*v) })
	if len(s.Inner) > 0 {
		w.Key("inner")
		jsonw.Slice(w, s.Inner, (*sample).WriteJSON)
	}
	w.Close('}')
}

// TestWriterAsEncodingJSON: objects, arrays (empty, nil, nested), omitted
// members and values written through encoding/json by Any come out as the
// encoder indents them, flushed or not.
func TestWriterAsEncodingJSON(t *testing.T) {
	values := []any{
		&sample{},
		&sample{Name: "a", Opt: "b", N: -3, List: []string{}, Inner: []sample{{Name: "x", List: []string{"1", "2"}}, {}}},
		map[string]any{"k": []any{&sample{Name: "in a map"}, 1, nil}, "e": map[string]int{}},
		[]string{strings.Repeat("long ", 20000)},
	}
	for _, v := range values {
		want := jsonwtest.EncodingJSON(t, v)
		var flushed []byte
		for _, flush := range []func([]byte){nil, func(b []byte) { flushed = append(flushed, b...) }} {
			w := jsonw.NewWriter(0, flush)
			if w.Any(v); w.Err() != nil {
				t.Fatal(w.Err())
			}
			got := append(flushed, w.Bytes()...)
			if !bytes.Equal(got, want) {
				t.Errorf("wrote\n%s\nencoding/json:\n%s", got, want)
			}
		}
	}
	w := jsonw.NewWriter(0, nil)
	if w.Any(make(chan int)); w.Err() == nil {
		t.Error("no error for a value encoding/json cannot encode")
	}
}

// Package jsonwtest holds jsonw's types to encoding/json in their tests.
package jsonwtest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/etlink/etlink/internal/jsonw"
)

// EncodingJSON is v as a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) writes it, without the final line break: what a
// Value's WriteJSON must reproduce.
func EncodingJSON(t testing.TB, v any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// SameAsEncodingJSON fails t unless v (a Value) writes itself, at depth
// 0 and at depth 3, as encoding/json writes it.
func SameAsEncodingJSON(t testing.TB, v jsonw.Value) {
	t.Helper()
	want := EncodingJSON(t, v)
	w := jsonw.NewWriter(0, nil)
	v.WriteJSON(w)
	if !bytes.Equal(w.Bytes(), want) {
		t.Errorf("%T writes\n%s\nencoding/json:\n%s", v, w.Bytes(), want)
	}
	deep := jsonw.NewWriter(3, nil)
	v.WriteJSON(deep)
	if wantDeep := jsonw.Indent(nil, compact(t, want), 3, nil); !bytes.Equal(deep.Bytes(), wantDeep) {
		t.Errorf("%T at depth 3 writes\n%s\nwant\n%s", v, deep.Bytes(), wantDeep)
	}
}

func compact(t testing.TB, b []byte) []byte {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		t.Fatal(err)
	}
	return c.Bytes()
}

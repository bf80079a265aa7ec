package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/etlink/etlink/internal/jsonw"
)

// EncodeJSON writes v to w exactly as a json.Encoder with SetIndent("", "  ")
// and SetEscapeHTML(false) would (C++ names are full of <, > and &), but
// faster and in less memory: the encoder builds the whole document, then
// indents it into a second buffer, both as large as the output (a torch
// conflict report is megabytes). Here the top-level field key of v, a slice
// set to elems and written empty by v, is written one element at a time by
// the elements' WriteJSON, straight into the output. The rest of v is
// encoded as usual.
func EncodeJSON[T any, P interface {
	*T
	jsonw.Value
}](w io.Writer, v any, key string, elems []T) error {
	var jw *jsonw.Writer
	return encodeDocument(w, v, key, 1, len(elems), func(i int, bw *bufio.Writer) error {
		if jw == nil {
			jw = jsonw.NewWriter(2, func(b []byte) { bw.Write(b) })
		}
		P(&elems[i]).WriteJSON(jw)
		jw.Flush()
		return jw.Err()
	})
}

// ElementEncoder encodes the elements of EncodeJSONWith's array, reusing
// its buffers.
type ElementEncoder struct {
	enc *json.Encoder
	w   indentWriter
}

// Encode returns v as an element of the top-level array: indented two
// levels, without the line break before it or the comma after it. The
// bytes are valid until the next call.
func (e *ElementEncoder) Encode(v any) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.w)
		e.enc.SetEscapeHTML(false)
	}
	e.w.writes = 0
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return e.w.out, nil
}

// indentWriter indents what a json.Encoder writes straight into out: the
// encoder writes each value with one call, from its own buffer, so the
// compact text is never copied.
type indentWriter struct {
	out    []byte
	writes int
}

func (w *indentWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		return 0, errors.New("report: json.Encoder wrote one value in pieces")
	}
	// Indenting adds about half again: one allocation, not a chain of them.
	w.out = jsonw.Indent(slices.Grow(w.out[:0], len(p)*2), bytes.TrimSuffix(p, []byte("\n")), 2, nil)
	return len(p), nil
}

// EncodeJSONWith is EncodeJSON with the n elements of the array at key
// given by elem, each as ElementEncoder.Encode returns it: a caller can
// write elements it no longer holds (scan spills them as it reads).
func EncodeJSONWith(w io.Writer, v any, key string, n int, elem func(i int) ([]byte, error)) error {
	return encodeDocument(w, v, key, 1, n, func(i int, bw *bufio.Writer) error {
		b, err := elem(i)
		bw.Write(b)
		return err
	})
}

// encodeDocument is EncodeJSONWith with each element written to bw by
// writeElem, indented for the array at key, whose member is depth levels
// deep in v (1: a top-level key).
func encodeDocument(w io.Writer, v any, key string, depth, n int, writeElem func(i int, bw *bufio.Writer) error) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc := jsonw.Indent(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 0, nil)
	// Only a member depth levels deep sits at the start of a line indented
	// so: a quote inside a string is escaped.
	indent := strings.Repeat("  ", depth)
	marker := []byte("\n" + indent + "\"" + key + "\": []")
	at := bytes.Index(doc, marker)
	if at < 0 {
		return fmt.Errorf("EncodeJSON: no empty top-level %q in the document", key)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:at+len(marker)-1])
	for i := range n {
		bw.WriteString("\n  " + indent)
		if err := writeElem(i, bw); err != nil {
			return err
		}
		if i < n-1 {
			bw.WriteByte(',')
		}
	}
	if n > 0 {
		bw.WriteString("\n" + indent)
	}
	bw.Write(doc[at+len(marker)-1:])
	bw.WriteByte('\n')
	return bw.Flush()
}

package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// EncodeJSON writes v to w exactly as a json.Encoder with SetIndent("", "  ")
// and SetEscapeHTML(false) would (C++ names are full of <, > and &), but
// faster and in less memory: the encoder builds the whole document, then
// indents it into a second buffer, both as large as the output (a torch
// conflict report is megabytes). Here the top-level field key of v, a slice
// set to elems and written empty by v, is written one element at a time,
// each marshalled compact into a reused buffer and indented by indentJSON.
// The rest of v is encoded as usual.
func EncodeJSON[T any](w io.Writer, v any, key string, elems []T) error {
	var e ElementEncoder
	return encodeDocument(w, v, key, len(elems), func(i int, bw *bufio.Writer) error { return e.encodeTo(bw, &elems[i]) })
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

// encodeTo writes v as Encode returns it to bw, indented a piece at a
// time: no buffer as large as the element (a torch conflict finding is
// hundreds of kilobytes).
func (e *ElementEncoder) encodeTo(bw *bufio.Writer, v any) error {
	e.w.to = bw
	defer func() { e.w.to = nil }()
	_, err := e.Encode(v)
	return err
}

// indentWriter indents what a json.Encoder writes straight into out, or
// through out into to: the encoder writes each value with one call, from
// its own buffer, so the compact text is never copied.
type indentWriter struct {
	out    []byte
	to     *bufio.Writer
	writes int
}

func (w *indentWriter) Write(p []byte) (int, error) {
	if w.writes++; w.writes > 1 {
		return 0, errors.New("report: json.Encoder wrote one value in pieces")
	}
	n := len(p)
	p = bytes.TrimSuffix(p, []byte("\n"))
	if w.to != nil {
		w.out = indentJSON(w.out[:0], p, 2, func(b []byte) { w.to.Write(b) })
		w.to.Write(w.out)
		return n, nil
	}
	// Indenting adds about half again: one allocation, not a chain of them.
	w.out = indentJSON(slices.Grow(w.out[:0], len(p)*2), p, 2, nil)
	return n, nil
}

// EncodeJSONWith is EncodeJSON with the n elements of the array at key
// given by elem, each as ElementEncoder.Encode returns it: a caller can
// write elements it no longer holds (scan spills them as it reads).
func EncodeJSONWith(w io.Writer, v any, key string, n int, elem func(i int) ([]byte, error)) error {
	return encodeDocument(w, v, key, n, func(i int, bw *bufio.Writer) error {
		b, err := elem(i)
		bw.Write(b)
		return err
	})
}

// encodeDocument is EncodeJSONWith with each element written to bw by
// writeElem, as ElementEncoder.Encode indents it.
func encodeDocument(w io.Writer, v any, key string, n int, writeElem func(i int, bw *bufio.Writer) error) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc := indentJSON(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 0, nil)
	// Only a top-level key sits at the start of a line indented once: a
	// quote inside a string is escaped.
	marker := []byte("\n  \"" + key + "\": []")
	at := bytes.Index(doc, marker)
	if at < 0 {
		return fmt.Errorf("EncodeJSON: no empty top-level %q in the document", key)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:at+len(marker)-1])
	for i := range n {
		bw.WriteString("\n    ")
		if err := writeElem(i, bw); err != nil {
			return err
		}
		if i < n-1 {
			bw.WriteByte(',')
		}
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.Write(doc[at+len(marker)-1:])
	bw.WriteByte('\n')
	return bw.Flush()
}

// indentJSON appends src, compact JSON as encoding/json writes it, indented
// by two spaces a level starting at depth, as json.Indent does: empty arrays
// and objects stay "[]" and "{}", a colon is followed by one space. It
// trusts src to be valid (it comes from the encoder) and scans each string
// in one step rather than byte by byte through a state machine. With
// flush, what dst holds is handed to flush whenever it reaches 32 KB, and
// dst starts again: the caller writes what is left in the dst returned.
func indentJSON(dst, src []byte, depth int, flush func([]byte)) []byte {
	newline := func() {
		n := 1 + 2*depth
		dst = append(dst, indent[:min(n, len(indent))]...)
		for range n - len(indent) { // deeper than indent reaches
			dst = append(dst, ' ')
		}
	}
	for i := 0; i < len(src); i++ {
		if flush != nil && len(dst) >= 32<<10 {
			flush(dst)
			dst = dst[:0]
		}
		switch c := src[i]; c {
		case '"':
			// The closing quote: the next one not escaped (after an even
			// run of backslashes), found a block at a time.
			j := i + 1
			for {
				k := bytes.IndexByte(src[j:], '"')
				if k < 0 {
					j = len(src) - 1
					break
				}
				j += k
				b := j
				for b > i+1 && src[b-1] == '\\' {
					b--
				}
				if (j-b)%2 == 0 {
					break
				}
				j++
			}
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// indent is a line break and the spaces of 32 levels.
const indent = "\n                                                                "

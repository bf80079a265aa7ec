package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc := indentJSON(nil, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 0)
	// Only a top-level key sits at the start of a line indented once: a
	// quote inside a string is escaped.
	marker := []byte("\n  \"" + key + "\": []")
	at := bytes.Index(doc, marker)
	if at < 0 {
		return fmt.Errorf("EncodeJSON: no empty top-level %q in the document", key)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(doc[:at+len(marker)-1])
	var out []byte
	for i := range elems {
		buf.Reset()
		if err := enc.Encode(&elems[i]); err != nil {
			return err
		}
		out = append(out[:0], "\n    "...)
		out = indentJSON(out, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 2)
		if i < len(elems)-1 {
			out = append(out, ',')
		}
		bw.Write(out)
	}
	if len(elems) > 0 {
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
// in one step rather than byte by byte through a state machine.
func indentJSON(dst, src []byte, depth int) []byte {
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, "  "...)
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
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

// Package jsonw writes JSON as a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) would, byte for byte, from types that spell their
// fields out (Value) rather than through reflection: a torch conflict
// report is a megabyte of the same few structs, which encoding/json builds
// whole in memory and then re-reads to indent. Types without WriteJSON
// still go through encoding/json (Writer.Any).
package jsonw

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Value is a type that writes itself: the same JSON encoding/json makes of
// it, field names, order, omitempty and null for a nil slice included (the
// types' tests hold them to it with SameAsEncodingJSON).
type Value interface {
	WriteJSON(w *Writer)
}

// Writer appends indented JSON to a buffer, handing it to flush each time
// it passes flushAt (flush nil: the buffer only grows).
type Writer struct {
	buf   []byte
	depth int
	// empty is whether the object or array just opened has no member yet:
	// an empty one is written "{}" or "[]", on one line.
	empty bool
	flush func([]byte)
	err   error // the first error of Any
}

const flushAt = 32 << 10

// NewWriter returns a Writer starting at depth (the indentation of the
// line the first value is on), flushing to flush when it is not nil.
func NewWriter(depth int, flush func([]byte)) *Writer {
	return &Writer{depth: depth, flush: flush}
}

// Bytes returns what was written and not flushed; Flush hands it on.
func (w *Writer) Bytes() []byte { return w.buf }

// Flush hands what is buffered to the flush function and empties the buffer.
func (w *Writer) Flush() {
	if w.flush != nil && len(w.buf) > 0 {
		w.flush(w.buf)
		w.buf = w.buf[:0]
	}
}

func (w *Writer) newline() { w.buf = appendNewline(w.buf, w.depth) }

// appendNewline appends a line break and the indent of depth levels.
func appendNewline(dst []byte, depth int) []byte {
	n := 1 + 2*depth
	dst = append(dst, indent[:min(n, len(indent))]...)
	for range n - len(indent) { // deeper than indent reaches
		dst = append(dst, ' ')
	}
	return dst
}

// before starts a member of the object or array open: after a comma unless
// it is the first, on a line of its own.
func (w *Writer) before() {
	if w.flush != nil && len(w.buf) >= flushAt {
		w.Flush()
	}
	if !w.empty {
		w.buf = append(w.buf, ',')
	}
	w.empty = false
	w.newline()
}

// Open starts an object ('{') or array ('[').
func (w *Writer) Open(c byte) {
	w.buf = append(w.buf, c)
	w.depth++
	w.empty = true
}

// Close ends the object ('}') or array (']') open.
func (w *Writer) Close(c byte) {
	w.depth--
	if !w.empty {
		w.newline()
	}
	w.empty = false
	w.buf = append(w.buf, c)
}

// Key starts the member of an object named k; its value follows.
func (w *Writer) Key(k string) {
	w.before()
	w.buf = appendString(w.buf, k)
	w.buf = append(w.buf, ':', ' ')
}

// Elem starts the next element of an array; its value follows.
func (w *Writer) Elem() { w.before() }

// String writes s.
func (w *Writer) String(s string) { w.buf = appendString(w.buf, s) }

// Int writes n.
func (w *Writer) Int(n int) { w.buf = strconv.AppendInt(w.buf, int64(n), 10) }

// Null writes null.
func (w *Writer) Null() { w.buf = append(w.buf, "null"...) }

// Field writes the member k: s.
func (w *Writer) Field(k, s string) {
	w.Key(k)
	w.String(s)
}

// OmitEmpty writes the member k: s unless s is empty (",omitempty").
func (w *Writer) OmitEmpty(k, s string) {
	if s != "" {
		w.Field(k, s)
	}
}

// Any writes v: through its WriteJSON when it has one, else as encoding/json
// encodes it, indented to the depth here. An error of encoding/json (a
// type it cannot encode, a Marshaler failing) is kept for Err, and null
// written in its place.
func (w *Writer) Any(v any) {
	if wv, ok := v.(Value); ok {
		wv.WriteJSON(w)
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		if w.err == nil {
			w.err = err
		}
		w.Null()
		return
	}
	w.buf = Indent(w.buf, bytes.TrimSuffix(b.Bytes(), []byte("\n")), w.depth, nil)
}

// Err is the first error Any met: what was written is not the value.
func (w *Writer) Err() error { return w.err }

// Slice writes s as an array, each element by elem (a method expression
// such as (*T).writeJSON fits); a nil slice is null, as encoding/json
// writes it.
func Slice[T any](w *Writer, s []T, elem func(v *T, w *Writer)) {
	if s == nil {
		w.Null()
		return
	}
	w.Open('[')
	for i := range s {
		w.Elem()
		elem(&s[i], w)
	}
	w.Close(']')
}

// appendString appends s quoted as encoding/json quotes it without HTML
// escaping: \" \\ \b \f \n \r \t, other control bytes as \u00XX, invalid
// UTF-8 as \ufffd, U+2028 and U+2029 escaped; the rest as is.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// Indent appends src, compact JSON as encoding/json writes it, indented
// by two spaces a level starting at depth, as json.Indent does: empty arrays
// and objects stay "[]" and "{}", a colon is followed by one space. It
// trusts src to be valid (it comes from the encoder) and scans each string
// in one step rather than byte by byte through a state machine. With
// flush, what dst holds is handed to flush whenever it reaches flushAt, and
// dst starts again: the caller writes what is left in the dst returned.
func Indent(dst, src []byte, depth int, flush func([]byte)) []byte {
	newline := func() { dst = appendNewline(dst, depth) }
	for i := 0; i < len(src); i++ {
		if flush != nil && len(dst) >= flushAt {
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

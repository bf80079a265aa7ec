package memo

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// A record's file: recordMagic, then the key, the witnesses and the value
// (JSON). Decoding the record as JSON through reflection was three
// quarters of a warm Get; the value stays JSON (its type is the caller's).
// A file of another format (an older etlink's JSON record) has another
// first line: it is no answer, and the next Put replaces it.
const recordMagic = "etlink memo 2\n"

type record struct {
	Key       string
	Value     json.RawMessage
	Witnesses []Witness
}

const (
	flagLink = 1 << iota
	flagExists
)

// encode is r in its file's format.
func (r *record) encode() []byte {
	n := len(recordMagic) + len(r.Key) + len(r.Value) + 2*binary.MaxVarintLen64
	for _, w := range r.Witnesses {
		n += len(w.Path) + 1 + 5*binary.MaxVarintLen64
	}
	b := make([]byte, 0, n) // grown once: a torch record is tens of kilobytes
	b = append(b, recordMagic...)
	b = binary.AppendUvarint(b, uint64(len(r.Key)))
	b = append(b, r.Key...)
	b = binary.AppendUvarint(b, uint64(len(r.Witnesses)))
	for _, w := range r.Witnesses {
		b = binary.AppendUvarint(b, uint64(len(w.Path)))
		b = append(b, w.Path...)
		var flags byte
		if w.Link {
			flags |= flagLink
		}
		if w.Exists {
			flags |= flagExists
		}
		b = append(b, flags)
		b = binary.AppendUvarint(b, w.Ino)
		b = binary.AppendVarint(b, w.Size)
		b = binary.AppendVarint(b, w.Mtime)
		b = binary.AppendVarint(b, w.Changed)
	}
	return append(b, r.Value...)
}

// decodeRecord reads the record in data, if it is one for key (a key is
// compared before its witnesses are decoded).
func decodeRecord(data []byte, key string) (*record, bool) {
	rest, ok := bytes.CutPrefix(data, []byte(recordMagic))
	if !ok {
		return nil, false
	}
	d := decoder{b: rest}
	if string(d.bytes(d.uvarint())) != key || d.bad {
		return nil, false
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) { // each witness is at least a byte
		return nil, false
	}
	r := &record{Key: key, Witnesses: make([]Witness, n)}
	for i := range r.Witnesses {
		w := &r.Witnesses[i]
		w.Path = string(d.bytes(d.uvarint()))
		flags := d.byte()
		w.Link, w.Exists = flags&flagLink != 0, flags&flagExists != 0
		w.Ino, w.Size, w.Mtime, w.Changed = d.uvarint(), d.varint(), d.varint(), d.varint()
	}
	r.Value = d.b
	return r, !d.bad
}

// decoder reads a record's fields in turn; past a malformed one it
// reads zeros and bad says so.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	return d.advance(n, v)
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	return int64(d.advance(n, uint64(v)))
}

func (d *decoder) advance(n int, v uint64) uint64 {
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

package linkmap

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"testing"
)

// hugeMap streams a bfd map of about size bytes: the real fixture's head,
// then one of its memory-map lines repeated, then its tail. It
// is generated as it is read: nothing holds the whole text.
type hugeMap struct {
	head, body, tail []byte
	left             int64
	stage            int
	buf              []byte
}

func (h *hugeMap) Read(p []byte) (int, error) {
	for len(h.buf) == 0 {
		switch {
		case h.stage == 0:
			h.buf, h.stage = h.head, 1
		case h.stage == 1 && h.left > 0:
			h.buf = h.body
			h.left -= int64(len(h.body))
		case h.stage == 1:
			h.buf, h.stage = h.tail, 2
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, h.buf)
	h.buf = h.buf[n:]
	return n, nil
}

// TestStreamsTwoGigabyteMap parses a 2 GiB map and checks the parser's heap
// stays bounded: maps are streamed, never loaded whole.
func TestStreamsTwoGigabyteMap(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("2 GiB of parsing under the race detector or -short takes minutes; the plain run covers it")
	}
	data, err := os.ReadFile("testdata/x86_64-bfd.map")
	if err != nil {
		t.Fatal(err)
	}
	// A linker-script assignment of the memory map: text a map is mostly
	// made of and that yields no entry, so the heap can only grow if the
	// parser keeps the text itself.
	i := bytes.Index(data, []byte("OUTPUT("))
	j := bytes.Index(data, []byte("\n                [!provide]"))
	if i < 0 || j < 0 || j > i {
		t.Fatal("fixture map lacks its PROVIDE assignment or OUTPUT line")
	}
	line := data[j+1 : j+1+bytes.IndexByte(data[j+1:], '\n')+1]
	body := bytes.Repeat(line, 4096)
	r := &hugeMap{head: data[:j+1], body: body, tail: data[j+1:], left: 2 << 30}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Parse(r, "huge.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 256<<20 {
		t.Errorf("parsing a 2 GiB map grew the heap by %d MiB: it is not streamed", grown>>20)
	}
	if m.Format != FormatBFD || m.Output == "" {
		t.Errorf("format %v, output %q: the tail after 2 GiB was not read", m.Format, m.Output)
	}
}

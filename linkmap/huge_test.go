package linkmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/budget"
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
	w := watchHeap(256 << 20)
	m, err := Parse(w.reader(r), "huge.map", Options{})
	if grown := w.stop(); grown > 256<<20 {
		t.Errorf("parsing a 2 GiB map grew the heap by %d MiB: it is not streamed", grown>>20)
	}
	if err != nil {
		t.Fatal(err)
	}
	if m.Format != FormatBFD || m.Output == "" {
		t.Errorf("format %v, output %q: the tail after 2 GiB was not read", m.Format, m.Output)
	}
}

// TestTwoGigabyteRepeatedTable writes a 2 GiB GNU ld map whose
// archive-member table repeats one entry (a parser keeping each table line
// ran out of memory on it) and parses the file: the heap stays flat, every
// byte is charged to the budget, and the map parses to what the fixture
// it was made from says.
func TestTwoGigabyteRepeatedTable(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and parses a 2 GiB file")
	}
	size := int64(2 << 30)
	if raceEnabled {
		size = 64 << 20 // the race detector parses twenty times slower; the shape is the same
	}
	want, err := ParseFile("testdata/x86_64-bfd.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := writeMap(t, repeatedTable(t, size))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b := budget.New(budget.Limits{budget.Read: fi.Size()})
	start := time.Now()
	w := watchHeap(64 << 20)
	m, err := Parse(w.reader(f), path, Options{Budget: b})
	grown := w.stop()
	t.Logf("%d MiB parsed in %v (%.0f MB/s), peak heap growth %d MiB", fi.Size()>>20, time.Since(start).Round(time.Millisecond),
		float64(fi.Size())/time.Since(start).Seconds()/1e6, grown>>20)
	if grown > 64<<20 {
		t.Errorf("the heap grew by %d MiB: repeated table lines are kept", grown>>20)
	}
	if err != nil {
		t.Fatal(err)
	}
	if b.Used(budget.Read) != fi.Size() {
		t.Errorf("charged %d bytes of a %d-byte map", b.Used(budget.Read), fi.Size())
	}
	// The repeats shift every later line by their number.
	shift := m.Extracted[1].Line - want.Extracted[1].Line
	if int64(shift) < size/64 {
		t.Fatalf("the second entry moved by %d lines: the repeats were not read", shift)
	}
	for i := range want.Extracted {
		if i > 0 {
			want.Extracted[i].Line += shift
		}
	}
	if !reflect.DeepEqual(m.Extracted, want.Extracted) {
		t.Errorf("extracted %d members, want the fixture's %d: %+v", len(m.Extracted), len(want.Extracted), m.Extracted)
	}
	if len(m.Symbols) != len(want.Symbols) || m.Symbols[0].Line != want.Symbols[0].Line+shift || m.Output != want.Output {
		t.Errorf("the map after the table parsed differently: %d symbols, first at line %d, output %q; want %d, %d, %q",
			len(m.Symbols), m.Symbols[0].Line, m.Output, len(want.Symbols), want.Symbols[0].Line+shift, want.Output)
	}
}

// writeMap writes r to a file in a temporary directory, removed with it.
func writeMap(t *testing.T, r io.Reader) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "huge.map")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Hiding the file's ReadFrom writes megabytes at a time, not 32 KiB.
	if _, err := io.CopyBuffer(struct{ io.Writer }{f}, r, make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// heapWatch samples the heap while a parse runs: its peak growth, and a
// reader that fails once the heap has grown past a limit, so that a parser
// that keeps what it reads fails the test rather than the machine.
type heapWatch struct {
	base  uint64
	limit uint64
	peak  atomic.Uint64
	done  chan struct{}
	wg    sync.WaitGroup
}

func watchHeap(limit uint64) *heapWatch {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	w := &heapWatch{base: ms.HeapInuse, limit: limit, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			w.sample()
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

func (w *heapWatch) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > w.base && ms.HeapInuse-w.base > w.peak.Load() {
		w.peak.Store(ms.HeapInuse - w.base)
	}
}

// stop ends the sampling and returns the peak growth.
func (w *heapWatch) stop() uint64 {
	close(w.done)
	w.wg.Wait()
	w.sample()
	return w.peak.Load()
}

func (w *heapWatch) reader(r io.Reader) io.Reader { return &watchedReader{r, w} }

type watchedReader struct {
	r io.Reader
	w *heapWatch
}

func (r *watchedReader) Read(p []byte) (int, error) {
	if g := r.w.peak.Load(); g > r.w.limit {
		return 0, fmt.Errorf("the heap grew by %d MiB", g>>20)
	}
	return r.r.Read(p)
}

// repeatedTable returns a bfd map of about size bytes whose archive-member
// table repeats one entry (a hostile map growing a parser that keeps each
// line): the fixture's head to its second entry, the first entry
// repeated, then the rest of the fixture.
func repeatedTable(tb testing.TB, size int64) *hugeMap {
	data := readFixture(tb, "x86_64-bfd.map")
	i := bytes.Index(data, []byte("thin/thin_member.o"))
	j := bytes.Index(data, []byte("./libstatic.a(used.o)"))
	if i < 0 || j < 0 || j > i {
		tb.Fatal("fixture map lacks its archive-member table")
	}
	return &hugeMap{head: data[:i], body: bytes.Repeat(data[j:i], 4096), tail: data[i:], left: size}
}

// TestBudget charges a map's size to the run's budget: ParseFile before
// reading (a map past the budget is refused unread), Parse as it reads.
func TestBudget(t *testing.T) {
	const file = "testdata/x86_64-bfd.map"
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	exhausted := func(t *testing.T, err error, name string) {
		t.Helper()
		var e *Error
		var x *budget.Exhausted
		if !errors.As(err, &e) || !errors.As(err, &x) || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("error %v: want an *Error naming %s wrapping *budget.Exhausted", err, name)
		}
	}

	b := budget.New(budget.Limits{budget.Read: fi.Size()})
	if _, err := ParseFile(file, Options{Budget: b}); err != nil {
		t.Fatal(err)
	}
	if b.Used(budget.Read) != fi.Size() {
		t.Errorf("ParseFile charged %d bytes for a map of %d", b.Used(budget.Read), fi.Size())
	}
	// The budget is spent: the next map is refused before it is read.
	_, err = ParseFile(file, Options{Budget: b})
	exhausted(t, err, file)

	b = budget.New(budget.Limits{budget.Read: fi.Size() - 1})
	_, err = ParseFile(file, Options{Budget: b})
	exhausted(t, err, file)
	if b.Used(budget.Read) != 0 {
		t.Errorf("a refused map charged %d bytes", b.Used(budget.Read))
	}

	b = budget.New(budget.Limits{budget.Read: 100})
	_, err = Parse(bytes.NewReader(readFixture(t, "x86_64-bfd.map")), "app.map", Options{Budget: b})
	exhausted(t, err, "app.map")
}

// distinctMembers returns the fixture map with n distinct members of
// names of about size bytes added to its archive-member table.
func distinctMembers(tb testing.TB, n, size int) []byte {
	data := readFixture(tb, "x86_64-bfd.map")
	i := bytes.Index(data, []byte("thin/thin_member.o"))
	if i < 0 {
		tb.Fatal("fixture map lacks its archive-member table")
	}
	pad := strings.Repeat("m", size)
	var b bytes.Buffer
	b.Grow(len(data) + n*(size+70))
	b.Write(data[:i])
	for k := range n {
		fmt.Fprintf(&b, "libx.a(%s%d.o)\n                              main.o (f)\n", pad, k)
	}
	b.Write(data[i:])
	return b.Bytes()
}

// TestMaxKept parses a map naming more distinct archive members than
// MaxKept holds (a hostile map of distinct names for gigabytes would keep
// them all): the parse stops at the line past it, with an error. Names of
// a kilobyte reach the bound in 60 MB.
func TestMaxKept(t *testing.T) {
	if raceEnabled {
		t.Skip("60 MB of parsing under the race detector takes a minute; the plain run covers it")
	}
	const size = 1 << 10
	n := MaxKept / size
	data := distinctMembers(t, n, size)
	w := watchHeap(MaxKept * 4)
	_, err := Parse(w.reader(bytes.NewReader(data)), "app.map", Options{NoSymbols: true})
	if grown := w.stop(); grown > MaxKept*4 {
		t.Errorf("the heap grew by %d MiB", grown>>20)
	}
	var e *Error
	if !errors.As(err, &e) || e.Path != "app.map" || e.Line < 3 || e.Line > 2*n+3 || !strings.Contains(err.Error(), "MaxKept") {
		t.Fatalf("error %v, want one naming app.map, a line of the table, and MaxKept", err)
	}
	// Below the bound the same table parses, every member kept.
	want, err := ParseFile("testdata/x86_64-bfd.map", Options{NoSymbols: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(bytes.NewReader(distinctMembers(t, n/2, size)), "app.map", Options{NoSymbols: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Extracted) != len(want.Extracted)+n/2 {
		t.Errorf("%d members extracted, want %d", len(m.Extracted), len(want.Extracted)+n/2)
	}
}

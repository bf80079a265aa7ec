package linkmap

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/etlink/etlink/internal/budget"
)

var (
	bigMapOnce sync.Once
	bigMap     []byte
)

// syntheticMap builds a GNU ld map of at least size bytes from the
// committed x86_64 one: its memory map body repeated, each copy with its
// symbols renamed and its input files moved to one of 1000 directories,
// so that names are as varied as in a large real link.
func syntheticMap(tb testing.TB, size int) []byte {
	data := readFixture(tb, "x86_64-bfd.map")
	lines := strings.SplitAfter(string(data), "\n")
	start, end := -1, -1
	for i, l := range lines {
		switch {
		case start < 0 && strings.HasPrefix(l, ".interp"):
			start = i
		case strings.HasPrefix(l, "OUTPUT("):
			end = i
		}
	}
	if start < 0 || end < start {
		tb.Fatal("x86_64-bfd.map has no memory map body")
	}
	sym := regexp.MustCompile(`^( {16}0x[0-9a-f]+ +)([^ =\[][^=]*)\n$`)
	file := regexp.MustCompile(`^( [^ ]+ +0x[0-9a-f]+ +0x[0-9a-f]+ | {16}0x[0-9a-f]+ +0x[0-9a-f]+ )(.+)\n$`)
	var b bytes.Buffer
	b.Grow(size + len(data))
	b.WriteString(strings.Join(lines[:start], ""))
	for k := 0; b.Len() < size; k++ {
		for _, l := range lines[start:end] {
			if m := sym.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[2], "0x") {
				fmt.Fprintf(&b, "%s%s_%d\n", m[1], m[2], k)
			} else if m := file.FindStringSubmatch(l); m != nil {
				fmt.Fprintf(&b, "%sobj%d/%s\n", m[1], k%1000, m[2])
			} else {
				b.WriteString(l)
			}
		}
	}
	b.WriteString(strings.Join(lines[end:], ""))
	return b.Bytes()
}

// BenchmarkParse parses a ~100 MB GNU ld map; the MB/s it reports is for
// one core.
func BenchmarkParse(b *testing.B) {
	bigMapOnce.Do(func() { bigMap = syntheticMap(b, 100<<20) })
	b.SetBytes(int64(len(bigMap)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, err := Parse(bytes.NewReader(bigMap), "big.map", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Symbols) == 0 {
			b.Fatal("no symbols")
		}
	}
}

// TestSyntheticMap checks that the benchmark's input parses to what it
// was built from: every copy's symbols, one Loaded entry per file.
func TestSyntheticMap(t *testing.T) {
	one, err := ParseFile("testdata/x86_64-bfd.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := syntheticMap(t, 1<<20)
	m, err := Parse(bytes.NewReader(data), "big.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	copies := len(m.Symbols) / len(one.Symbols)
	if copies < 2 || len(m.Symbols)%len(one.Symbols) != 0 {
		t.Fatalf("%d symbols from a map of %d", len(m.Symbols), len(one.Symbols))
	}
	if want := one.Symbols[0].Name + fmt.Sprintf("_%d", copies-1); m.Symbols[len(m.Symbols)-len(one.Symbols)].Name != want {
		t.Errorf("last copy's first symbol %q, want %q", m.Symbols[len(m.Symbols)-len(one.Symbols)].Name, want)
	}
}

// FuzzParse checks that no input makes Parse panic, that its errors are
// *Error values naming the input, and that every entry it returns points
// at a line of the input.
func FuzzParse(f *testing.F) {
	for _, file := range fixtures(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(""))
	f.Add([]byte("Archive member included to satisfy reference by file (symbol)\n\nlib.a(x.o)\n"))
	f.Add([]byte("Memory map\n\n.text 0x0 0x10\n .text 0x0 0x10 a.o\n                0x0                f\n"))
	f.Add([]byte("VMA Size Align Out In Symbol\n 0x0 1 1 .text\n 0x0 1 1         a.o:(.text)\n 0x0 0 0                 f\n"))
	f.Add([]byte("Cross Reference Table\n\nSymbol File\nf a.o\n"))
	// Hostile shapes: a table repeating one entry (whole map, and cut
	// before its memory map), as-needed entries repeated, a line longer
	// than the line reader's buffer, a table of distinct members.
	bfd := readFixture(f, "x86_64-bfd.map")
	if r, err := io.ReadAll(repeatedTable(f, 4<<10)); err == nil {
		f.Add(r)
		f.Add(r[:bytes.Index(r, []byte("\nMerging"))+1])
	}
	f.Add([]byte("As-needed library included to satisfy reference by file (symbol)\n\n" +
		strings.Repeat("libc.so.6                     main.o (puts)\n", 100)))
	f.Add([]byte("Archive member included to satisfy reference by file (symbol)\n\n" + strings.Repeat("x", 70<<10) + "\n"))
	f.Add(append(bytes.Repeat([]byte{' '}, 70<<10), bfd...))
	f.Add(distinctMembers(f, 20, 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(bytes.NewReader(data), "fuzz.map", Options{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "fuzz.map:") {
				t.Fatalf("error %v (%T) does not name the input", err, err)
			}
			return
		}
		// A map is read to its end: a budget a byte short of it is spent.
		b := budget.New(budget.Limits{budget.Read: int64(len(data)) - 1})
		var x *budget.Exhausted
		if _, err := Parse(bytes.NewReader(data), "fuzz.map", Options{Budget: b}); !errors.As(err, &x) || !strings.HasPrefix(err.Error(), "fuzz.map") {
			t.Fatalf("a budget of %d bytes for a map of %d: error %v", len(data)-1, len(data), err)
		}
		n := bytes.Count(data, []byte("\n")) + 1
		check := func(what string, line int) {
			if line < 1 || line > n {
				t.Fatalf("%s at line %d of %d", what, line, n)
			}
		}
		for _, x := range m.Loaded {
			check("Loaded", x.Line)
		}
		for _, x := range m.Extracted {
			check("Extracted", x.Line)
		}
		for _, x := range m.AsNeeded {
			check("AsNeeded", x.Line)
		}
		for _, x := range m.Discarded {
			check("Discarded", x.Line)
		}
		for _, x := range m.OutputSections {
			check("OutputSections", x.Line)
		}
		for _, x := range m.Symbols {
			check("Symbols", x.Line)
		}
		if m.Format == FormatUnknown {
			t.Fatal("parsed without a format")
		}
	})
}

// syntheticLLD builds an lld map of at least size bytes from the committed
// x86_64 one, renaming as syntheticMap does.
func syntheticLLD(tb testing.TB, size int) []byte {
	data := readFixture(tb, "x86_64-lld.map")
	lines := strings.SplitAfter(string(data), "\n")
	row := regexp.MustCompile(`^( *[0-9a-f]+ +[0-9a-f]+ +[0-9a-f]+ +[0-9]+ )( {16}| {8})?(.*)\n$`)
	var b bytes.Buffer
	b.Grow(size + len(data))
	b.WriteString(lines[0])
	for k := 0; b.Len() < size; k++ {
		for _, l := range lines[1:] {
			m := row.FindStringSubmatch(l)
			switch {
			case m == nil:
				b.WriteString(l)
			case len(m[2]) == 16:
				fmt.Fprintf(&b, "%s%s%s_%d\n", m[1], m[2], m[3], k)
			case len(m[2]) == 8 && !strings.HasPrefix(m[3], "<"):
				fmt.Fprintf(&b, "%s%sobj%d/%s\n", m[1], m[2], k%1000, m[3])
			default:
				b.WriteString(l)
			}
		}
	}
	return b.Bytes()
}

// BenchmarkParseLLD parses a ~100 MB lld map.
func BenchmarkParseLLD(b *testing.B) {
	data := syntheticLLD(b, 100<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "big.map", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRepeatedTable parses a ~100 MB GNU ld map whose
// archive-member table repeats one line.
func BenchmarkParseRepeatedTable(b *testing.B) {
	data, err := io.ReadAll(repeatedTable(b, 100<<20))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(data), "big.map", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

package linkmap

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// lineOf returns the number of the first line of data containing s.
func lineOf(t *testing.T, data []byte, s string) int {
	t.Helper()
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		t.Fatalf("%q not in fixture", s)
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// firstLines returns the first n lines of data, each with its newline.
func firstLines(data []byte, n int) []byte {
	off := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return data
		}
		off += j + 1
	}
	return data[:off:off]
}

func replaceLine(t *testing.T, data []byte, n int, with string) []byte {
	t.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	if n < 1 || n > len(lines) {
		t.Fatalf("no line %d", n)
	}
	lines[n-1] = with + "\n"
	return []byte(strings.Join(lines, ""))
}

func TestMalformed(t *testing.T) {
	bfd := readFixture(t, "x86_64-bfd.map")
	gold := readFixture(t, "x86_64-gold.map")
	lld := readFixture(t, "x86_64-lld.map")
	mold := readFixture(t, "x86_64-mold.map")

	garbage := make([]byte, 1<<16)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}

	wrapped := lineOf(t, bfd, "libwhole.a(whole_archive_backend_registration.o)\n")
	mid := lineOf(t, bfd, "LOAD main.o")
	lldRow := lineOf(t, lld, ".text\n")
	moldRow := lineOf(t, mold, ".text\n")
	discard := lineOf(t, bfd, " .rodata.cst4")
	text := lineOf(t, bfd, "\n.text  ") + 1
	goldMem := lineOf(t, gold, "Memory map")

	for _, c := range []struct {
		name    string
		data    []byte
		line    int    // the line the error names; 0 for the whole file
		want    string // in the message
		unknown bool   // wraps ErrUnknownFormat
	}{
		{"empty", nil, 0, "empty file", true},
		{"blank", []byte("\n  \n\t\n"), 0, "empty file", true},
		{"text", []byte("hello\nthis is no linker map\n"), 0, "GNU ld", true},
		{"garbage", garbage, 0, "GNU ld", true},
		{"nul bytes", make([]byte, 4096), 0, "GNU ld", true},
		{
			"cut mid-line", bfd[:bytes.Index(bfd, []byte("LOAD main.o"))+7],
			mid, "no newline", false,
		},
		{
			"wrapped entry cut", firstLines(bfd, wrapped),
			wrapped, "has no reason", false,
		},
		{
			"wrapped entry then blank", append(firstLines(bfd, wrapped), '\n'),
			wrapped, "has no reason", false,
		},
		{
			"bfd memory map cut", firstLines(bfd, text+3),
			text + 3, "OUTPUT", false,
		},
		{
			"gold cut before memory map", firstLines(gold, goldMem-1),
			goldMem - 1, "before its memory map", false,
		},
		{
			"gold cut at discarded name", firstLines(gold, lineOf(t, gold, " .note.GNU-stack\n")),
			lineOf(t, gold, " .note.GNU-stack\n"), "no address, size and file", false,
		},
		{"lld header only", firstLines(lld, 1), 1, "no rows", false},
		{
			"lld bad number", replaceLine(t, lld, lldRow, strings.Replace(lineAt(lld, lldRow), "16", "1g", 1)),
			lldRow, "not a lld map row", false,
		},
		{
			"lld too few columns", replaceLine(t, lld, lldRow, "  1000 .text"),
			lldRow, "not a lld map row", false,
		},
		{
			"mold bad size", replaceLine(t, mold, moldRow, strings.Replace(lineAt(mold, moldRow), " 16 .text", " x6 .text", 1)),
			moldRow, "not a mold map row", false,
		},
		{
			"bfd bad discarded", replaceLine(t, bfd, discard, " .rodata.cst4   0x00000000000000zz        0x4 Scrt1.o"),
			discard, "discarded section", false,
		},
		{
			"bfd discarded not indented", replaceLine(t, bfd, discard, "garbage"),
			discard, "not a discarded section", false,
		},
		{
			"bfd bad output section", replaceLine(t, bfd, text-1, ".text           0x000000000000107g      0x154"),
			text - 1, "output section", false,
		},
		{
			"bfd continuation without entry", replaceLine(t, bfd, 3, "                              main.o (used_fn(int))"),
			3, "continuation line without an entry", false,
		},
		{
			"bfd and gold headings", replaceLine(t, bfd, mid, "Memory map"),
			mid, "gold heading in a bfd map", false,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse(bytes.NewReader(c.data), "app.map", Options{})
			if err == nil {
				t.Fatalf("no error; parsed as %v", m.Format)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Path != "app.map" || !strings.HasPrefix(err.Error(), "app.map:") {
				t.Errorf("error %q does not name the file", err)
			}
			if c.unknown != errors.Is(err, ErrUnknownFormat) {
				t.Errorf("error %q: wraps ErrUnknownFormat = %v, want %v", err, !c.unknown, c.unknown)
			}
			if c.unknown && !strings.Contains(err.Error(), "bfd") {
				t.Errorf("error %q does not say which formats were tried", err)
			}
			if c.line >= 0 {
				prefix := "app.map: "
				if c.line > 0 {
					prefix = fmt.Sprintf("app.map:%d: ", c.line)
				}
				if !strings.HasPrefix(err.Error(), prefix) || e.Line != c.line {
					t.Errorf("error %q, want it at line %d", err, c.line)
				}
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func lineAt(data []byte, n int) string {
	return strings.Split(string(data), "\n")[n-1]
}

// TestTruncated cuts every fixture after every line and in the middle of
// every line: a cut mid-line is always an error, a cut before the part of
// the map that proves it complete is an error, and nothing panics.
func TestTruncated(t *testing.T) {
	for _, file := range fixtures(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Parse(bytes.NewReader(data), file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The last line a cut must keep for the map to parse.
		var complete int
		switch full.Format {
		case FormatBFD:
			complete = bytes.Count(data[:bytes.Index(data, []byte("\nOUTPUT("))+1], []byte("\n")) + 1
		case FormatGold:
			complete = bytes.Count(data[:bytes.Index(data, []byte("\nMemory map\n"))+1], []byte("\n")) + 1
		default:
			complete = 2
		}
		n := 0
		for off := 0; off < len(data); {
			j := bytes.IndexByte(data[off:], '\n')
			n++
			end := off + j + 1
			if j > 0 {
				if _, err := Parse(bytes.NewReader(data[:off+j/2+1]), file, Options{}); err == nil {
					t.Errorf("%s: cut in the middle of line %d parsed", file, n)
				}
			}
			_, err := Parse(bytes.NewReader(data[:end]), file, Options{})
			if n < complete && err == nil {
				t.Errorf("%s: cut after line %d (of %d needed) parsed", file, n, complete)
			}
			off = end
		}
	}
}

// TestLongLines feeds lines of 10 MB where a map may hold them (a linker
// script pattern, a symbol name) and one longer than MaxLine.
func TestLongLines(t *testing.T) {
	const long = 10 << 20
	bfd := readFixture(t, "x86_64-bfd.map")
	want, err := Parse(bytes.NewReader(bfd), "app.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := lineOf(t, bfd, " *(.interp)")
	pattern := " *(" + strings.Repeat("x", long) + ")"
	m, err := Parse(bytes.NewReader(replaceLine(t, bfd, at, pattern)), "app.map", Options{})
	if err != nil {
		t.Fatalf("10 MB pattern line: %v", err)
	}
	if !bytes.Equal(render(m), render(want)) {
		t.Error("a 10 MB pattern line changed the parse")
	}

	lld := readFixture(t, "x86_64-lld.map")
	row := lineOf(t, lld, "used_fn(int)")
	name := strings.Repeat("n", long)
	m, err = Parse(bytes.NewReader(replaceLine(t, lld, row, strings.Replace(lineAt(lld, row), "used_fn(int)", name, 1))), "app.map", Options{})
	if err != nil {
		t.Fatalf("10 MB symbol name: %v", err)
	}
	found := false
	for _, s := range m.Symbols {
		if s.Line == row {
			found = len(s.Name) == long
		}
	}
	if !found {
		t.Error("the 10 MB symbol is missing")
	}

	_, err = Parse(bytes.NewReader(replaceLine(t, lld, row, strings.Repeat("y", MaxLine+10))), "app.map", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("app.map:%d: ", row)) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("line over MaxLine: error %v", err)
	}

	_, err = Parse(strings.NewReader(strings.Repeat("z", long)), "app.map", Options{})
	if !errors.Is(err, ErrUnknownFormat) {
		t.Errorf("one 10 MB line without a newline: error %v, want ErrUnknownFormat", err)
	}
}

func TestParseFileMissing(t *testing.T) {
	if _, err := ParseFile("testdata/no-such.map", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v", err)
	}
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Parse(&errReader{data: readFixture(t, "x86_64-lld.map")[:3000], err: boom}, "app.map", Options{})
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "app.map:") {
		t.Errorf("error %v, want the read error, naming the file", err)
	}
}

// TestLLDWithoutLMA reads the layout of lld before version 7, which had no
// LMA column ("Address Size Align Out In Symbol"), made from the committed
// map by dropping that column.
func TestLLDWithoutLMA(t *testing.T) {
	data := readFixture(t, "x86_64-lld.map")
	want, err := Parse(bytes.NewReader(data), "app.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[0] = "         Address             Size Align Out     In      Symbol\n"
	for i, l := range lines[1:] {
		if l == "" || strings.HasPrefix(l, "\n") || strings.Contains(l, "Cross Reference") {
			break
		}
		f := strings.Fields(l)
		j := strings.Index(l, " "+f[1]+" ") // the LMA column
		lines[i+1] = l[:j] + l[j+len(f[1])+1:]
	}
	got, err := Parse(strings.NewReader(strings.Join(lines, "")), "app.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Format != FormatLLD || !bytes.Equal(render(got), render(want)) {
		t.Errorf("lld map without LMA parsed differently:\n%s", firstDiff(render(got), render(want)))
	}
}

// TestTolerated changes lines where linkers may print new things: the
// parse must not change.
func TestTolerated(t *testing.T) {
	bfd := readFixture(t, "x86_64-bfd.map")
	want, err := Parse(bytes.NewReader(bfd), "app.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	data := replaceLine(t, bfd, lineOf(t, bfd, " *(.interp)"), " SOMETHING_NEW (.interp) 0xzz")
	data = replaceLine(t, data, lineOf(t, data, "Removed property"), "A heading a later ld may print")
	data = append(data, "\nSome future table\n\n  weird 0xzz stuff\nanother line\n"...)
	data = append([]byte("\n\n"), data...)
	got, err := Parse(bytes.NewReader(data), "app.map", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Two blank lines moved everything down by two.
	for i := range want.Symbols {
		want.Symbols[i].Line += 2
	}
	if len(got.Symbols) != len(want.Symbols) || got.Symbols[3] != want.Symbols[3] ||
		len(got.Loaded) != len(want.Loaded) || len(got.OutputSections) != len(want.OutputSections) ||
		len(got.Extracted) != len(want.Extracted) || len(got.AsNeeded) != len(want.AsNeeded) {
		t.Errorf("tolerated lines changed the parse:\n%s", firstDiff(render(got), render(want)))
	}
}

func TestSplitReason(t *testing.T) {
	for _, c := range []struct{ in, file, sym, reason string }{
		{"main.o (used_fn(int))", "main.o", "used_fn(int)", ""},
		{"main.o (_Z7used_fni)", "main.o", "_Z7used_fni", ""},
		{"libwhole.a(w.o) (puts@@GLIBC_2.2.5)", "libwhole.a(w.o)", "puts@@GLIBC_2.2.5", ""},
		{"a.o (operator()(int) const)", "a.o", "operator()(int) const", ""},
		{"a.o ((anonymous namespace)::f())", "a.o", "(anonymous namespace)::f()", ""},
		{"(reg_unused_marker)", "", "reg_unused_marker", ""},
		{"(--whole-archive)", "", "", "--whole-archive"},
		{"--whole-archive", "", "", "--whole-archive"},
		{"-u reg_unused_marker", "", "reg_unused_marker", ""},
		{"something new", "", "", "something new"},
	} {
		f, s, r, ok := splitReason([]byte(c.in))
		if !ok || string(f) != c.file || string(s) != c.sym || string(r) != c.reason {
			t.Errorf("splitReason(%q) = %q, %q, %q, %v; want %q, %q, %q", c.in, f, s, r, ok, c.file, c.sym, c.reason)
		}
	}
	if _, _, _, ok := splitReason([]byte("   ")); ok {
		t.Error("splitReason of nothing succeeded")
	}
}

package linkmap

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from the parser's output")

// fixtures lists the committed maps (testdata/gen.sh writes them).
func fixtures(t testing.TB) []string {
	t.Helper()
	maps, err := filepath.Glob("testdata/*.map")
	if err != nil || len(maps) == 0 {
		t.Fatalf("no maps under testdata/ (run testdata/gen.sh): %v", err)
	}
	return maps
}

// expectation is one fact gen.sh wrote beside a map, from readelf, nm, ar
// and c++filt of the link (never from the map).
type expectation struct {
	kind   string
	fields []string
	line   int
}

func readExpect(t *testing.T, file string) []expectation {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []expectation
	for i, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Fields(l)
		out = append(out, expectation{kind: f[0], fields: f[1:], line: i + 1})
	}
	return out
}

// sameInput compares an input as a map names it with one as gen.sh names
// it, ignoring a "./" the linker adds to archives it found by -l.
func sameInput(got, want string) bool {
	norm := func(s string) string {
		if a, m, ok := SplitMember(s); ok {
			return path.Clean(a) + "(" + m + ")"
		}
		return path.Clean(s)
	}
	return norm(got) == norm(want)
}

func hexArg(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	if err != nil {
		t.Fatalf("bad number %q in expectations", s)
	}
	return v
}

func TestFixtures(t *testing.T) {
	for _, file := range fixtures(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".map")
		t.Run(name, func(t *testing.T) {
			m, err := ParseFile(file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkExpect(t, m, readExpect(t, strings.TrimSuffix(file, ".map")+".expect"))
			checkLines(t, m, file)
		})
	}
}

func checkExpect(t *testing.T, m *Map, exp []expectation) {
	needed := map[string]bool{}
	for _, e := range exp {
		if e.kind == "needed" {
			needed[e.fields[0]] = true
		}
	}
	for _, e := range exp {
		f := e.fields
		switch e.kind {
		case "format":
			if m.Format.String() != f[0] {
				t.Errorf("format %v, want %s", m.Format, f[0])
			}
		case "extracted":
			x := findExtraction(m, f[0], f[1])
			if x == nil {
				t.Errorf("expect:%d: member %s(%s) not in Extracted %+v", e.line, f[0], f[1], m.Extracted)
				break
			}
			if !slices.ContainsFunc(m.Loaded, func(in Input) bool { return in.Member == x.Member && in.Archive == x.Archive }) {
				t.Errorf("expect:%d: member %s(%s) not in Loaded", e.line, f[0], f[1])
			}
			if len(f) > 2 && f[2] == "whole-archive" && m.Shows(ExtractionReasons) && x.Reason != "--whole-archive" {
				t.Errorf("expect:%d: %s(%s) Reason %q, want --whole-archive", e.line, f[0], f[1], x.Reason)
			}
		case "reference":
			x := findExtraction(m, f[0], f[1])
			if x == nil || !m.Shows(ExtractionReasons) {
				break
			}
			if x.ByFile != f[2] || (x.BySymbol != f[3] && x.BySymbol != f[4]) {
				t.Errorf("expect:%d: %s(%s) pulled by %s (%s), want %s (%s or %s)", e.line, f[0], f[1], x.ByFile, x.BySymbol, f[2], f[3], f[4])
			}
		case "not-extracted":
			if x := findExtraction(m, f[0], f[1]); x != nil {
				t.Errorf("expect:%d: %s(%s) is not extracted, map says it is at line %d", e.line, f[0], f[1], x.Line)
			}
			for _, in := range m.Loaded {
				if in.Member == f[1] {
					t.Errorf("expect:%d: %s(%s) is not extracted, Loaded has it (line %d)", e.line, f[0], f[1], in.Line)
				}
			}
			for _, s := range m.Symbols {
				if strings.HasSuffix(s.File, "("+f[1]+")") {
					t.Errorf("expect:%d: symbol %s from unextracted %s", e.line, s.Name, s.File)
				}
			}
		case "needed", "dropped":
			if !m.Shows(AsNeededKept) {
				if len(m.AsNeeded) > 0 {
					t.Errorf("%v map with AsNeeded entries", m.Format)
				}
				break
			}
			kept := slices.ContainsFunc(m.AsNeeded, func(k Kept) bool { return k.Library == f[0] })
			if kept != (e.kind == "needed") {
				t.Errorf("expect:%d: %s %s, but AsNeeded %+v", e.line, e.kind, f[0], m.AsNeeded)
			}
		case "kept-by":
			if !m.Shows(AsNeededKept) {
				break
			}
			i := slices.IndexFunc(m.AsNeeded, func(k Kept) bool { return k.Library == f[0] })
			if i < 0 {
				break // reported above
			}
			if k := m.AsNeeded[i]; k.ByFile != f[1] || (k.BySymbol != f[2] && k.BySymbol != f[3]) {
				t.Errorf("expect:%d: %s kept by %s (%s), want %s (%s or %s)", e.line, f[0], k.ByFile, k.BySymbol, f[1], f[2], f[3])
			}
		case "shared":
			has := slices.Contains(m.Shared, f[0])
			switch {
			case m.Shows(SharedLibraries), m.Format == FormatGold && m.CrossReference:
				if !has {
					t.Errorf("expect:%d: shared library %s not in Shared %q", e.line, f[0], m.Shared)
				}
			case m.Format == FormatLLD && m.CrossReference:
				if has != needed[soname(f[0])] {
					t.Errorf("expect:%d: lld's cross reference table names %s: %v; it is needed: %v", e.line, f[0], has, needed[soname(f[0])])
				}
			case len(m.Shared) > 0:
				t.Errorf("%v map without a cross reference table names shared libraries %q", m.Format, m.Shared)
			}
			if m.Shows(InputList) && !slices.ContainsFunc(m.Loaded, func(in Input) bool { return in.Path == f[0] }) {
				t.Errorf("expect:%d: %s not in Loaded", e.line, f[0])
			}
		case "discarded":
			if !m.Shows(DiscardedSections) {
				if len(m.Discarded) > 0 {
					t.Errorf("%v map with Discarded entries", m.Format)
				}
				break
			}
			size := hexArg(t, f[2])
			if !slices.ContainsFunc(m.Discarded, func(s Section) bool { return s.File == f[0] && s.Name == f[1] && s.Size == size }) {
				t.Errorf("expect:%d: discarded %s %s %#x not in Discarded", e.line, f[0], f[1], size)
			}
		case "section":
			addr, size := hexArg(t, f[1]), hexArg(t, f[2])
			if !slices.ContainsFunc(m.OutputSections, func(s OutputSection) bool { return s.Name == f[0] && s.Addr == addr && s.Size == size }) {
				t.Errorf("expect:%d: output section %s %#x %#x not in OutputSections", e.line, f[0], addr, size)
			}
		case "symbol":
			addr, size := hexArg(t, f[2]), hexArg(t, f[3])
			i := slices.IndexFunc(m.Symbols, func(s Symbol) bool { return s.Name == f[0] || s.Name == f[1] })
			if i < 0 {
				t.Errorf("expect:%d: symbol %s not in Symbols", e.line, f[1])
				break
			}
			s := m.Symbols[i]
			if s.Addr != addr {
				t.Errorf("expect:%d: symbol %s at %#x, want %#x", e.line, f[1], s.Addr, addr)
			}
			if m.Shows(SymbolSizes) && s.Size != size {
				t.Errorf("expect:%d: symbol %s size %#x, want %#x", e.line, f[1], s.Size, size)
			}
			_, member, _ := SplitMember(f[4])
			thin := m.Format == FormatBFD && s.File == member // GNU ld names thin members alone
			if !sameInput(s.File, f[4]) && !thin {
				t.Errorf("expect:%d: symbol %s from %q, want %s", e.line, f[1], s.File, f[4])
			}
		case "absent":
			for _, s := range m.Symbols {
				if s.Name == f[0] || s.Name == f[1] {
					t.Errorf("expect:%d: symbol %s is not in the output, map line %d lists it", e.line, s.Name, s.Line)
				}
			}
		default:
			t.Fatalf("expect:%d: unknown fact %q", e.line, e.kind)
		}
	}
	for _, s := range m.Shared {
		if !isShared(s) {
			t.Errorf("Shared holds %q", s)
		}
	}
}

// soname gives the SONAME gen.sh gave a library it built.
func soname(p string) string {
	if path.Base(p) == "libyes.so" {
		return "libyes.so.1"
	}
	return path.Base(p)
}

func findExtraction(m *Map, archive, member string) *Extraction {
	for i, x := range m.Extracted {
		if x.Member != member {
			continue
		}
		// GNU ld names a thin archive's member without its archive.
		if path.Base(x.Archive) == archive || (x.Archive == "" && m.Format == FormatBFD) {
			return &m.Extracted[i]
		}
	}
	return nil
}

// checkLines checks that every entry's Line is the map line that names it.
func checkLines(t *testing.T, m *Map, file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	at := func(what string, n int, text string) {
		t.Helper()
		if n < 1 || n > len(lines) || !strings.Contains(lines[n-1], text) {
			l := ""
			if n >= 1 && n <= len(lines) {
				l = lines[n-1]
			}
			t.Errorf("%s %q: line %d is %q", what, text, n, l)
		}
	}
	for _, x := range m.Loaded {
		at("Loaded", x.Line, x.Path)
	}
	for _, x := range m.Extracted {
		at("Extracted", x.Line, x.Member)
	}
	for _, x := range m.AsNeeded {
		at("AsNeeded", x.Line, x.Library)
	}
	for _, x := range m.Discarded {
		at("Discarded", x.Line, x.Name)
	}
	for _, x := range m.OutputSections {
		at("OutputSections", x.Line, x.Name)
	}
	for _, x := range m.Symbols {
		at("Symbols", x.Line, x.Name)
	}
}

// TestDetect checks that the first 4 KiB of each map give its format.
func TestDetect(t *testing.T) {
	for _, file := range fixtures(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Parse(bytes.NewReader(data), file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, ok := Detect(data[:min(len(data), 4096)])
		if !ok || f != m.Format {
			t.Errorf("%s: Detect = %v, %v; want %v", file, f, ok, m.Format)
		}
	}
	if f, ok := Detect([]byte("Discarded input sections\n\n .text 0x0 0x0 a.o\n")); ok {
		t.Errorf("Detect decided %v from a heading both GNU linkers print", f)
	}
	if _, ok := Detect(nil); ok {
		t.Error("Detect(nil) reported a format")
	}
}

// TestGolden compares a rendering of each parsed map with
// testdata/golden/NAME.txt; go test -update rewrites them.
func TestGolden(t *testing.T) {
	for _, file := range fixtures(t) {
		m, err := ParseFile(file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := render(m)
		golden := filepath.Join("testdata", "golden", strings.TrimSuffix(filepath.Base(file), ".map")+".txt")
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestGolden -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: parse differs from %s (go test -run TestGolden -update rewrites it); first difference:\n%s", file, golden, firstDiff(got, want))
		}
	}
}

func render(m *Map) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "format %v\noutput %q\ncref %v\n", m.Format, m.Output, m.CrossReference)
	for _, x := range m.Loaded {
		fmt.Fprintf(&b, "loaded %d %q %q %q\n", x.Line, x.Path, x.Archive, x.Member)
	}
	for _, x := range m.Extracted {
		fmt.Fprintf(&b, "extracted %d %q %q by %q %q reason %q\n", x.Line, x.Archive, x.Member, x.ByFile, x.BySymbol, x.Reason)
	}
	for _, x := range m.AsNeeded {
		fmt.Fprintf(&b, "as-needed %d %q by %q %q\n", x.Line, x.Library, x.ByFile, x.BySymbol)
	}
	for _, x := range m.Discarded {
		fmt.Fprintf(&b, "discarded %d %q %q %#x\n", x.Line, x.Name, x.File, x.Size)
	}
	for _, x := range m.Shared {
		fmt.Fprintf(&b, "shared %q\n", x)
	}
	for _, x := range m.OutputSections {
		fmt.Fprintf(&b, "section %d %q %#x %#x\n", x.Line, x.Name, x.Addr, x.Size)
	}
	for _, x := range m.Symbols {
		fmt.Fprintf(&b, "symbol %d %q %#x %#x %q\n", x.Line, x.Name, x.Addr, x.Size, x.File)
	}
	return b.Bytes()
}

func firstDiff(got, want []byte) string {
	g := bufio.NewScanner(bytes.NewReader(got))
	w := bufio.NewScanner(bytes.NewReader(want))
	for n := 1; ; n++ {
		gok, wok := g.Scan(), w.Scan()
		if !gok && !wok {
			return "(none)"
		}
		if g.Text() != w.Text() || gok != wok {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", n, g.Text(), w.Text())
		}
	}
}

func TestSplitMember(t *testing.T) {
	for _, c := range []struct {
		in, archive, member string
		ok                  bool
	}{
		{"libfoo.a(bar.o)", "libfoo.a", "bar.o", true},
		{"./libstatic.a(used.o)", "./libstatic.a", "used.o", true},
		{"libthin.a(thin/thin_member.o)", "libthin.a", "thin/thin_member.o", true},
		{"/x/lib(1).a(m(2).o)", "/x/lib(1).a", "m(2).o", true},
		{"main.o", "", "", false},
		{"(m.o)", "", "", false},
		{"lib.a()", "", "", false},
		{"lib.a(m.o", "", "", false},
	} {
		a, m, ok := SplitMember(c.in)
		if a != c.archive || m != c.member || ok != c.ok {
			t.Errorf("SplitMember(%q) = %q, %q, %v; want %q, %q, %v", c.in, a, m, ok, c.archive, c.member, c.ok)
		}
	}
}

func TestIsShared(t *testing.T) {
	for in, want := range map[string]bool{
		"libc.so.6": true, "./libyes.so": true, "/usr/lib/libpython3.11.so.1.0": true,
		"_C.cpython-311-x86_64-linux-gnu.so": true, "/lib64/ld-linux-x86-64.so.2": true,
		"libfoo.a": false, "main.o": false, "libso.a": false, "x.so.a": false,
		"lib.a(x.so)": false, "libfoo.sox": false,
	} {
		if got := isShared(in); got != want {
			t.Errorf("isShared(%q) = %v", in, got)
		}
	}
}

func TestFormatShows(t *testing.T) {
	for f, want := range map[Format][]Capability{
		FormatBFD:  {InputList, ExtractionReasons, AsNeededKept, DiscardedSections, SharedLibraries},
		FormatGold: {ExtractionReasons, DiscardedSections},
		FormatLLD:  {SymbolSizes, LocalSymbols},
		FormatMold: {LocalSymbols},
	} {
		for _, c := range want {
			if !f.Shows(c) {
				t.Errorf("%v does not show %d", f, c)
			}
		}
	}
	if FormatLLD.Shows(DiscardedSections) || FormatMold.Shows(ExtractionReasons) || FormatGold.Shows(AsNeededKept) {
		t.Error("a format shows what its maps do not")
	}
	if FormatUnknown.Shows(OutputSections) || FormatBFD.Shows(0) {
		t.Error("unknown format or no capability shown")
	}
	if FormatMold.String() != "mold" || Format(99).String() != "unknown" {
		t.Error("Format.String")
	}
}

// TestNoSymbols: a parse without the symbol list keeps every fact about
// the inputs (what retention reads) exactly as the full parse gives it.
func TestNoSymbols(t *testing.T) {
	maps, _ := filepath.Glob("testdata/*.map")
	if len(maps) == 0 {
		t.Fatal("no maps under testdata")
	}
	for _, p := range maps {
		full, err := ParseFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sparse, err := ParseFile(p, Options{NoSymbols: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(sparse.Symbols)+len(sparse.Discarded)+len(sparse.OutputSections) != 0 {
			t.Errorf("%s: NoSymbols kept %d symbols, %d sections", p, len(sparse.Symbols), len(sparse.Discarded)+len(sparse.OutputSections))
		}
		full.Symbols, full.Discarded, full.OutputSections = nil, nil, nil
		if !reflect.DeepEqual(full, sparse) {
			t.Errorf("%s: the facts of the inputs differ without the symbol list", p)
		}
	}
}

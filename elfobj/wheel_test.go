package elfobj

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type zipEntry struct {
	name string
	data []byte
	mode fs.FileMode // 0: 0644
	// raw, when set, is stored as the entry's deflated bytes, with size as
	// the declared uncompressed size: a header that can lie.
	raw  []byte
	size uint64
}

func buildZip(tb testing.TB, entries []zipEntry) []byte {
	tb.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		var w io.Writer
		var err error
		if e.raw != nil {
			h.CompressedSize64, h.UncompressedSize64 = uint64(len(e.raw)), e.size
			if w, err = zw.CreateRaw(h); err == nil {
				_, err = w.Write(e.raw)
			}
		} else if w, err = zw.CreateHeader(h); err == nil {
			_, err = w.Write(e.data)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// deflated compresses an ELF magic followed by n zero bytes without holding
// them in memory.
func deflated(tb testing.TB, n int64) []byte {
	var b bytes.Buffer
	fw, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	fw.Write(elfMagic)
	if _, err := io.CopyN(fw, zeros{}, n); err != nil {
		tb.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

func readWheel(data []byte, lim Limits) ([]*Object, []error) {
	return ReadWheel("w.whl", bytes.NewReader(data), int64(len(data)), Options{Limits: lim, Initializers: true})
}

func TestReadWheel(t *testing.T) {
	fx := compiled(t)
	data := buildZip(t, []zipEntry{
		{name: "pkg/"},
		{name: "pkg/__init__.py", data: []byte("from ._ext import *\n")},
		{name: "pkg/_ext.cpython-312-x86_64-linux-gnu.so", data: fx.soData},
		{name: "pkg/lib/libfix.a", data: buildGNU([]arFile{{"fix.o", fx.objData}, {"NOTES", []byte("text")}}, nil, false)},
		{name: "top.so", data: fx.soData},
		{name: "pkg-1.0.dist-info/WHEEL", data: []byte("Wheel-Version: 1.0\n")},
	})
	objs, errs := readWheel(data, Limits{})
	if len(errs) > 0 {
		t.Fatalf("errors: %q", errTexts(t, errs))
	}
	type fields struct{ Path, Dir, Wheel, Entry, Archive, Member string }
	var got []fields
	for _, o := range objs {
		got = append(got, fields{o.Path, o.Dir, o.Wheel, o.Entry, o.Archive, o.Member})
	}
	want := []fields{
		{"w.whl!pkg/_ext.cpython-312-x86_64-linux-gnu.so", "w.whl!pkg", "w.whl", "pkg/_ext.cpython-312-x86_64-linux-gnu.so", "", ""},
		{"w.whl!pkg/lib/libfix.a(fix.o)", "", "w.whl", "pkg/lib/libfix.a", "w.whl!pkg/lib/libfix.a", "fix.o"},
		{"w.whl!top.so", "w.whl!.", "w.whl", "top.so", "", ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("objects\n got %+v\nwant %+v", got, want)
	}
	if len(objs) == 3 && (objs[0].Soname != "libfix.so.1" || !hasSymbol(objs[1], "fix_answer", true)) {
		t.Errorf("soname %q; member symbols %v", objs[0].Soname, objs[1].Symbols)
	}
}

func TestReadWheelUnsafeNames(t *testing.T) {
	fx := compiled(t)
	data := buildZip(t, []zipEntry{
		{name: "../../x.so", data: fx.soData},
		{name: "/abs/y.so", data: fx.soData},
		{name: "pkg/../../z.so", data: fx.soData},
		{name: `..\w.so`, data: fx.soData},
		{name: "C:/win/v.so", data: fx.soData},
		{name: "pkg/a:b.so", data: fx.soData},
		{name: "pkg/good.so", data: fx.soData},
		{name: "pkg/..data/ok.so", data: fx.soData}, // ".." only as a whole component is unsafe
	})
	objs, errs := readWheel(data, Limits{})
	want := []string{
		"w.whl!../../x.so: unsafe entry name",
		"w.whl!/abs/y.so: unsafe entry name",
		"w.whl!pkg/../../z.so: unsafe entry name",
		`w.whl!..\w.so: unsafe entry name`,
		"w.whl!C:/win/v.so: unsafe entry name",
	}
	if got := errTexts(t, errs); !slices.Equal(got, want) {
		t.Errorf("errors\n got %q\nwant %q", got, want)
	}
	if got := paths(objs); !slices.Equal(got, []string{"w.whl!pkg/a:b.so", "w.whl!pkg/good.so", "w.whl!pkg/..data/ok.so"}) {
		t.Errorf("objects %q", got)
	}
}

func TestReadWheelLimits(t *testing.T) {
	const big = 100 << 20
	bomb := deflated(t, big)
	small := deflated(t, 2<<20)
	tests := []struct {
		name    string
		entries []zipEntry
		lim     Limits
		want    string
	}{
		{
			name:    "zip bomb over the entry limit",
			entries: []zipEntry{{name: "pkg/bomb.so", raw: bomb, size: big + 4}},
			lim:     Limits{MaxEntry: 1 << 20},
			want:    "w.whl!pkg/bomb.so: declared size of 104857604 bytes exceeds the per-entry limit of 1048576 bytes",
		},
		{
			name:    "zip bomb over the ratio",
			entries: []zipEntry{{name: "pkg/bomb.so", raw: bomb, size: big + 4}},
			lim:     Limits{MaxRatio: 100},
			want:    "w.whl!pkg/bomb.so: compression ratio of 104857604:",
		},
		{
			name:    "header lies about the size",
			entries: []zipEntry{{name: "pkg/bomb.so", raw: bomb, size: 4096}},
			lim:     Limits{MaxEntry: 1 << 20},
			want:    "w.whl!pkg/bomb.so: entry inflates past its declared size of 4096 bytes",
		},
		{
			name:    "header lies about the size, default limits",
			entries: []zipEntry{{name: "pkg/bomb.so", raw: bomb, size: 4096}},
			want:    "w.whl!pkg/bomb.so: entry inflates past its declared size of 4096 bytes",
		},
		{
			name: "wheel total",
			entries: []zipEntry{
				{name: "a.so", raw: small, size: 2<<20 + 4},
				{name: "b.so", raw: small, size: 2<<20 + 4},
			},
			lim:  Limits{MaxTotal: 3 << 20, MaxRatio: 1 << 20}, // the ratio is not what this case is about
			want: "w.whl!b.so: declared size of 2097156 bytes would take the wheel past its limit of 3145728 uncompressed bytes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := buildZip(t, tt.entries)
			var objs []*Object
			var errs []error
			alloc := allocated(func() { objs, errs = readWheel(data, tt.lim) })
			got := errTexts(t, errs)
			if len(objs) != 0 || len(got) == 0 || !strings.HasPrefix(got[len(got)-1], tt.want) {
				t.Fatalf("objects %q, errors %q; want an error starting %q", paths(objs), got, tt.want)
			}
			if alloc > 8<<20 {
				t.Errorf("allocated %d MiB reading a %d KiB wheel", alloc>>20, len(data)>>10)
			}
		})
	}
}

// A non-ELF entry costs only a peek at its first bytes: the same lying header
// that fails an ELF entry goes unnoticed on a .py file, because it is never
// inflated past 8 bytes.
func TestReadWheelPeeksOnly(t *testing.T) {
	raw := func(text string) []byte {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestSpeed)
		fw.Write([]byte(text))
		io.CopyN(fw, zeros{}, 1<<20)
		fw.Close()
		return b.Bytes()
	}
	data := buildZip(t, []zipEntry{
		{name: "pkg/mod.py", raw: raw("import os"), size: 16},
		{name: "pkg/lib.so", raw: raw("\x7fELF"), size: 16},
	})
	_, errs := readWheel(data, Limits{})
	got := errTexts(t, errs)
	if len(got) != 1 || !strings.HasPrefix(got[0], "w.whl!pkg/lib.so: ") {
		t.Errorf("errors %q, want one for pkg/lib.so only", got)
	}
}

func TestReadWheelCorrupt(t *testing.T) {
	fx := compiled(t)
	good := buildZip(t, []zipEntry{{name: "pkg/a.so", data: fx.soData}, {name: "pkg/b.py", data: []byte("x")}})
	// Damage a.so's compressed bytes: its local header starts the zip.
	damaged := slices.Clone(good)
	for i := 30 + len("pkg/a.so") + 100; i < 30+len("pkg/a.so")+400; i++ {
		damaged[i] ^= 0x55
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"truncated zip", good[:len(good)/2], "w.whl: corrupt wheel: zip: not a valid zip file"},
		{"not a zip", []byte("PK\x03\x04 but nothing else"), "w.whl: corrupt wheel: "},
		{"damaged entry", damaged, "w.whl!pkg/a.so: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, errs := readWheel(tt.data, Limits{})
			got := errTexts(t, errs)
			if len(objs) != 0 || len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("objects %q, errors %q; want one error starting %q", paths(objs), got, tt.want)
			}
		})
	}
}

func TestListWheel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pkg-1.0-py3-none-any.whl")
	writeFile(t, p, buildZip(t, []zipEntry{
		{name: "pkg/__init__.py", data: []byte("# hi\n")},
		{name: "pkg/tool", data: []byte("#!/bin/sh\n"), mode: 0o777},
	}))
	got, err := ListWheel(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []WheelEntry{{"pkg/__init__.py", 0o644, 5}, {"pkg/tool", 0o777, 10}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	_, err = ListWheel(filepath.Join(t.TempDir(), "missing.whl"))
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("missing wheel: error %v is not an *Error", err)
	}
}

// FuzzWheel: any input gives objects named inside the wheel and *Errors,
// never a panic; tight limits keep each run small.
func FuzzWheel(f *testing.F) {
	f.Add(buildZip(f, []zipEntry{{name: "pkg/x.py", data: []byte("x")}, {name: "../evil.so", data: []byte("\x7fELF")}}))
	f.Add(buildZip(f, []zipEntry{{name: "lib.a", data: buildGNU(testFiles, testSyms, false)}}))
	f.Add(buildZip(f, []zipEntry{{name: "pkg/lie.so", raw: deflated(f, 1<<10), size: 16}}))
	if fx := compiledIfAvailable(); fx != nil {
		f.Add(buildZip(f, []zipEntry{{name: "pkg/a.so", data: fx.soData}, {name: "pkg/b.a", data: buildGNU([]arFile{{"fix.o", fx.objData}}, nil, false)}}))
	}
	lim := Limits{MaxEntry: 1 << 20, MaxTotal: 4 << 20, MaxRatio: 1000}
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, errs := ReadWheel("fuzz.whl", bytes.NewReader(data), int64(len(data)), Options{Limits: lim, Initializers: true})
		for _, err := range errs {
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Path, "fuzz.whl") {
				t.Fatalf("error %q is not an *Error naming the wheel", err)
			}
		}
		for _, o := range objs {
			if !strings.HasPrefix(o.Path, "fuzz.whl!") || o.Wheel != "fuzz.whl" {
				t.Fatalf("object %q (wheel %q) not named inside the wheel", o.Path, o.Wheel)
			}
		}
	})
}

package elfobj

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/internal/testenv"
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
	// Entries sharing data (TestReadWheelOverlap).
	f.Add(overlapZip(f, buildZip(f, []zipEntry{{name: "pkg/00000.so", data: []byte("\x7fELF\x02\x01\x01")}}), 3))
	f.Add(growFirst(f, buildZip(f, []zipEntry{{name: "pkg/a.so", data: []byte("\x7fELF")}, {name: "pkg/b.so", data: []byte("\x7fELF")}})))
	if fx := compiledIfAvailable(); fx != nil {
		f.Add(buildZip(f, []zipEntry{{name: "pkg/a.so", data: fx.soData}, {name: "pkg/b.a", data: buildGNU([]arFile{{"fix.o", fx.objData}}, nil, false)}}))
		// A library whose tables lie at both ends of padding, and one
		// whose code only Parse's misses find (TestReadWheelMisses).
		for _, hide := range []bool{false, true} {
			p := newPaddedELF(f, fx.soData, 256<<10)
			if hide {
				hideCode(f, p.prefix)
			}
			var zb bytes.Buffer
			zw := newFastZip(&zb)
			writeEntry(f, zw, "pkg/padded.so", p, p.size())
			if err := zw.Close(); err != nil {
				f.Fatal(err)
			}
			f.Add(zb.Bytes())
		}
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

// initLib compiles a shared library whose constructor calls through a
// chain of its own functions into libc: its initializers are disassembled,
// which reads code found from the dynamic section and the symbols.
func initLib(t *testing.T) []byte {
	t.Helper()
	fx := compiled(t)
	dir := t.TempDir()
	src := `#include <stdio.h>
int lib_state;
__attribute__((noinline)) void lib_leaf(void) { puts("leaf"); }
__attribute__((noinline)) void lib_mid(void) { lib_leaf(); lib_state++; }
__attribute__((constructor)) static void lib_init(void) { lib_mid(); }
int lib_answer(void) { return 42 + lib_state; }
`
	writeFile(t, filepath.Join(dir, "init.c"), []byte(src))
	if err := run(dir, "cc", "-shared", "-fPIC", "-O1", "-o", "libinit.so", "init.c", fx.so); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "libinit.so"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// paddedELF is a 64-bit little-endian ELF image with n bytes of a
// non-allocated section inserted before its section headers (which move
// after it): a large honest library whose tables lie at its two ends, as
// a library with a huge .text or debugging sections has them. It is
// served from its parts, never held.
type paddedELF struct {
	prefix []byte // the image up to its section headers
	pad    int64
	tail   []byte // the section headers, one more for the padding
}

func newPaddedELF(tb testing.TB, image []byte, pad int64) *paddedELF {
	tb.Helper()
	le := binary.LittleEndian
	shoff, shent, shnum := le.Uint64(image[40:]), int(le.Uint16(image[58:])), int(le.Uint16(image[60:]))
	if image[elf.EI_CLASS] != byte(elf.ELFCLASS64) || shoff+uint64(shent*shnum) != uint64(len(image)) {
		tb.Fatalf("want a 64-bit image ending in its section headers")
	}
	p := &paddedELF{prefix: slices.Clone(image[:shoff]), pad: pad}
	p.tail = append(slices.Clone(image[shoff:]), make([]byte, shent)...)
	sh := p.tail[shent*shnum:]
	le.PutUint32(sh[4:], uint32(elf.SHT_PROGBITS))
	le.PutUint64(sh[24:], shoff)                   // sh_offset
	le.PutUint64(sh[32:], uint64(pad))             // sh_size
	le.PutUint64(sh[48:], 1)                       // sh_addralign
	le.PutUint64(p.prefix[40:], shoff+uint64(pad)) // e_shoff
	le.PutUint16(p.prefix[60:], uint16(shnum+1))   // e_shnum
	return p
}

func (p *paddedELF) size() int64 { return int64(len(p.prefix)) + p.pad + int64(len(p.tail)) }

// padChunk is what the padding repeats: mostly zeros, with enough noise
// that it deflates about 100:1, an honest ratio under DefaultLimits'.
var padChunk = func() []byte {
	b := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(b); i += 128 {
		b[i] = byte(r.Uint32())
	}
	return b
}()

func (p *paddedELF) ReadAt(b []byte, off int64) (int, error) {
	pre, tail := int64(len(p.prefix)), int64(len(p.prefix))+p.pad
	n := 0
	for pos := off; n < len(b) && pos < p.size(); pos = off + int64(n) {
		switch {
		case pos < pre:
			n += copy(b[n:], p.prefix[pos:])
		case pos < tail:
			k := int(min(int64(len(b)-n), tail-pos))
			n += copy(b[n:n+k], padChunk[(pos-pre)%int64(len(padChunk)):])
		default:
			n += copy(b[n:], p.tail[pos-tail:])
		}
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// writeEntry adds an entry holding size bytes of r to zw, deflated fast.
func writeEntry(tb testing.TB, zw *zip.Writer, name string, r io.ReaderAt, size int64) {
	tb.Helper()
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
	if err == nil {
		_, err = io.Copy(w, io.NewSectionReader(r, 0, size))
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// newFastZip is a zip writer that deflates at flate.BestSpeed: the test
// wheels of hundreds of MB take a second to write, not ten.
func newFastZip(w io.Writer) *zip.Writer {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	return zw
}

// comparable clears what differs between an object read from a wheel and
// the same image read from a file: its names.
func comparable(o *Object) *Object {
	c := *o
	c.Path, c.Dir, c.Wheel, c.Entry, c.Real = "", "", "", "", ""
	for i := range c.Initializers {
		c.Initializers[i].Function = strings.TrimSpace(c.Initializers[i].Function)
	}
	return &c
}

var wheelModes = []struct {
	name string
	opt  Options
}{
	{"symbols", Options{}},
	{"references", Options{References: true}},
	{"initializers", Options{Initializers: true}},
}

// TestReadWheelSparse: an ELF entry read from the ranges the passes keep
// is the object Parse reads from the whole image, in every mode, for
// compiled libraries and (where installed) large real ones, and for a
// library padded to 300 MB (32 MB under the race detector), whose reading
// holds a few MB.
func TestReadWheelSparse(t *testing.T) {
	fx := compiled(t)
	lib := initLib(t)
	pad := int64(300 << 20)
	if raceEnabled {
		pad = 32 << 20
	}
	padded := newPaddedELF(t, fx.soData, pad)
	images := []struct {
		name string
		r    io.ReaderAt
		size int64
		init bool // Parse's initializers are compared
	}{
		{"libfix.so", bytes.NewReader(fx.soData), int64(len(fx.soData)), true},
		{"libinit.so", bytes.NewReader(lib), int64(len(lib)), true},
		{"padded.so", padded, padded.size(), true},
	}
	// libtorch_cpu's initializers are left out: Parse's walk of them is
	// slow, and not the same from run to run (initializer 452's calls).
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0"} {
		if b, err := os.ReadFile(p); err == nil && !(raceEnabled && len(b) > 16<<20) {
			images = append(images, struct {
				name string
				r    io.ReaderAt
				size int64
				init bool
			}{filepath.Base(p), bytes.NewReader(b), int64(len(b)), !strings.Contains(p, "torch")})
		}
	}
	for _, img := range images {
		var zb bytes.Buffer
		zw := newFastZip(&zb)
		writeEntry(t, zw, "pkg/"+img.name, img.r, img.size)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		for _, m := range wheelModes {
			if m.opt.Initializers && !img.init {
				continue
			}
			t.Run(img.name+"/"+m.name, func(t *testing.T) {
				want, err := Parse("file", "dir", img.r, img.size, m.opt)
				if err != nil {
					t.Fatal(err)
				}
				got, passes, peak := readOne(t, zb.Bytes(), m.opt, img.size)
				if !reflect.DeepEqual(comparable(got), comparable(want)) {
					t.Errorf("read from the wheel, not as from the image: %s", objectDiff(comparable(got), comparable(want)))
				}
				t.Logf("%d MB entry: %.1f passes, peak heap %d MB", img.size>>20, passes, peak>>20)
				if img.name == "padded.so" && peak > min(48<<20, uint64(pad)/2) {
					t.Errorf("reading a %d MB entry took the heap %d MB higher", img.size>>20, peak>>20)
				}
			})
		}
	}
}

// readOne reads the one ELF entry of the wheel data, and returns its
// object, the passes its reading took (of an entry of size bytes) and
// how much higher the live heap went meanwhile.
func readOne(t *testing.T, data []byte, opt Options, size int64) (*Object, float64, uint64) {
	t.Helper()
	b := budget.New(budget.Limits{budget.Inflated: 1 << 62})
	opt.Budget = b
	var objs []*Object
	var errs []error
	peak := peakHeap(func() { objs, errs = ReadWheel("w.whl", bytes.NewReader(data), int64(len(data)), opt) })
	if len(errs) > 0 || len(objs) != 1 {
		t.Fatalf("objects %q, errors %q", paths(objs), errTexts(t, errs))
	}
	return objs[0], float64(b.Used(budget.Inflated)) / float64(size), peak
}

// peakHeap runs f and returns how much higher than before it the live
// heap went, sampled every millisecond with the collector running often
// (the inflater's tables are garbage as soon as made).
func peakHeap(f func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	done := make(chan uint64)
	stop := make(chan struct{})
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
				metrics.Read(sample)
				peak = max(peak, sample[0].Value.Uint64())
			}
		}
	}()
	f()
	close(stop)
	return max(<-done, base) - base
}

// TestReadWheelMisses: where the headers do not lead to what Parse
// reads (here a code segment that claims no bytes of the file, so that
// the first pass keeps none of it, and no section type names .text), Parse's
// missed reads are kept by one more pass, and the object is the one read
// from the whole image.
func TestReadWheelMisses(t *testing.T) {
	// Padded, so that what is kept before the section headers is padding.
	lib := newPaddedELF(t, initLib(t), smallEntry+1<<20) // past smallEntry, planned
	hideCode(t, lib.prefix)
	want, err := Parse("file", "dir", lib, lib.size(), Options{Initializers: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Initializers) == 0 || len(want.Initializers[0].Calls) == 0 {
		t.Fatalf("initializers %+v: want calls read from the code", want.Initializers)
	}
	var zb bytes.Buffer
	zw := newFastZip(&zb)
	writeEntry(t, zw, "pkg/libinit.so", lib, lib.size())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, passes, _ := readOne(t, zb.Bytes(), Options{Initializers: true}, lib.size())
	if !reflect.DeepEqual(comparable(got), comparable(want)) {
		t.Errorf("read from the wheel, not as from the image: %s", objectDiff(comparable(got), comparable(want)))
	}
	if passes != 3 {
		t.Errorf("%.1f passes, want 3: headers, sections, Parse's misses", passes)
	}
}

// hideCode makes the executable PT_LOAD of a 64-bit little-endian image
// claim no bytes of the file (a segment past the file's end is an error
// now): Parse reads the code through the sections, headPlan skips it.
func hideCode(tb testing.TB, image []byte) {
	le := binary.LittleEndian
	phoff, phent, phnum := le.Uint64(image[32:]), uint64(le.Uint16(image[54:])), uint64(le.Uint16(image[56:]))
	for i := range phnum {
		ph := image[phoff+i*phent:]
		if elf.ProgType(le.Uint32(ph)) == elf.PT_LOAD && elf.ProgFlag(le.Uint32(ph[4:]))&elf.PF_X != 0 {
			le.PutUint64(ph[32:], 0)
			return
		}
	}
	tb.Fatal("no executable segment")
}

// overlapZip rewrites a zip of one entry named pkg/00000.so so that its
// central directory lists it copies times more, under other names, all
// pointing at the same data: the shape of the zip bombs pip refuses.
func overlapZip(tb testing.TB, data []byte, copies int) []byte {
	le := binary.LittleEndian
	eocd := data[len(data)-22:]
	size, off := le.Uint32(eocd[12:]), le.Uint32(eocd[16:])
	rec := data[off : off+size]
	if le.Uint16(eocd[10:]) != 1 || !bytes.Contains(rec, []byte("pkg/00000.so")) {
		tb.Fatal("want one entry named pkg/00000.so")
	}
	out := slices.Clone(data[:off+size])
	for i := 1; i <= copies; i++ {
		out = append(out, bytes.Replace(rec, []byte("00000"), fmt.Appendf(nil, "%05d", i), 1)...)
	}
	end := slices.Clone(eocd)
	le.PutUint16(end[8:], uint16(copies+1))
	le.PutUint16(end[10:], uint16(copies+1))
	le.PutUint32(end[12:], size*uint32(copies+1))
	return append(out, end...)
}

// growFirst makes the first central directory record of a zip of two
// entries claim compressed bytes that run past its data descriptor (16
// bytes) into the second's local header.
func growFirst(tb testing.TB, data []byte) []byte {
	out := slices.Clone(data)
	le := binary.LittleEndian
	off := le.Uint32(out[len(out)-22+16:])
	rec := out[off:]
	le.PutUint32(rec[20:], le.Uint32(rec[20:])+24)
	return out
}

func TestReadWheelOverlap(t *testing.T) {
	fx := compiled(t)
	one := buildZip(t, []zipEntry{{name: "pkg/00000.so", data: fx.soData}})
	two := buildZip(t, []zipEntry{{name: "pkg/a.so", data: fx.soData}, {name: "pkg/b.so", data: fx.soData}})
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"one entry listed 1000 times", overlapZip(t, one, 1000), `w.whl: corrupt wheel: entries "pkg/00000.so" and "pkg/00001.so" overlap`},
		{"data runs into the next header", growFirst(t, two), `w.whl: corrupt wheel: entries "pkg/a.so" and "pkg/b.so" overlap`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := zip.NewReader(bytes.NewReader(tt.data), int64(len(tt.data))); err != nil {
				t.Fatalf("archive/zip does not read the crafted zip: %v", err)
			}
			objs, errs := readWheel(tt.data, Limits{})
			got := errTexts(t, errs)
			if len(objs) != 0 || len(got) != 1 || !strings.HasPrefix(got[0], tt.want) {
				t.Errorf("objects %q, errors %q; want one error starting %q", paths(objs), got, tt.want)
			}
		})
	}
	if objs, errs := readWheel(two, Limits{}); len(objs) != 2 || len(errs) != 0 {
		t.Errorf("the zip before the damage: objects %q, errors %q", paths(objs), errTexts(t, errs))
	}
}

// TestReadWheelHuge reads a 2 GiB honest entry (a library padded with a
// non-allocated section that deflates 100:1, within the limits): the
// object is the one Parse reads from the image, and the heap holds
// megabytes, not the entry.
func TestReadWheelHuge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and reads a 2 GiB entry: 10 s, 6 minutes under the race detector")
	}
	fx := compiled(t)
	padded := newPaddedELF(t, fx.soData, 2<<30)
	start := time.Now()
	var zb bytes.Buffer
	zw := newFastZip(&zb)
	writeEntry(t, zw, "pkg/huge.so", padded, padded.size())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	written := time.Since(start)
	for _, m := range wheelModes[2:] { // the mode that reads most
		want, err := Parse("file", "dir", padded, padded.size(), m.opt)
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		got, passes, peak := readOne(t, zb.Bytes(), m.opt, padded.size())
		took := time.Since(start)
		if !reflect.DeepEqual(comparable(got), comparable(want)) {
			t.Errorf("%s: read from the wheel, not as from the image: %s", m.name, objectDiff(comparable(got), comparable(want)))
		}
		t.Logf("%s: %d MB wheel written in %v; read in %v, %.1f passes (%.0f MB/s inflated), peak heap %d MB",
			m.name, zb.Len()>>20, written.Round(time.Millisecond), took.Round(time.Millisecond), passes,
			passes*float64(padded.size())/took.Seconds()/1e6, peak>>20)
		if peak > 64<<20 {
			t.Errorf("%s: reading a 2 GiB entry took the heap %d MB higher", m.name, peak>>20)
		}
	}
}

// objectDiff names the fields in which two objects differ, and the first
// differing element of a list.
func objectDiff(a, b *Object) string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := range va.NumField() {
		fa, fb := va.Field(i), vb.Field(i)
		if !fa.CanInterface() || reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			continue
		}
		d := va.Type().Field(i).Name
		if fa.Kind() == reflect.Slice {
			d += fmt.Sprintf(" (%d vs %d elements)", fa.Len(), fb.Len())
			for k := range min(fa.Len(), fb.Len()) {
				if !reflect.DeepEqual(fa.Index(k).Interface(), fb.Index(k).Interface()) {
					d += fmt.Sprintf(", [%d]: %+v vs %+v", k, fa.Index(k).Interface(), fb.Index(k).Interface())
					break
				}
			}
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}

// TestReadWheelPatchelfed: auditwheel grafts libraries with patchelf,
// which moves .dynstr and .gnu.hash into a segment it adds at the end of
// the file, where no plan looks; the field's grafted libcpuinfo needed
// more passes than allowed. Small entries are kept whole from the first
// pass (with smallEntry 0 this library takes the last pass's fallback to
// the whole entry, and reads as it should too).
func TestReadWheelPatchelfed(t *testing.T) {
	testenv.NeedTools(t, "patchelf")
	src, err := filepath.EvalSymlinks("/usr/lib/x86_64-linux-gnu/libcpuinfo.so.0")
	if err != nil {
		t.Skip("libcpuinfo is not installed (libcpuinfo-dev)")
	}
	lib := filepath.Join(t.TempDir(), "libcpuinfo-437503c2.so.0")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("patchelf", "--set-soname", "libcpuinfo-437503c2.so.0", lib).CombinedOutput(); err != nil {
		t.Fatalf("patchelf: %v\n%s", err, out)
	}
	image, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	r, size := bytes.NewReader(image), int64(len(image))
	for _, opt := range []Options{{}, {References: true}, {Initializers: true}} {
		want, err := Parse("file", "dir", r, size, opt)
		if err != nil {
			t.Fatal(err)
		}
		var zb bytes.Buffer
		zw := newFastZip(&zb)
		writeEntry(t, zw, "cpupkg.libs/libcpuinfo-437503c2.so.0", r, size)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		got, _, _ := readOne(t, zb.Bytes(), opt, size)
		if !reflect.DeepEqual(comparable(got), comparable(want)) {
			t.Errorf("%+v: read from the wheel, not as from the image: %s", opt, objectDiff(comparable(got), comparable(want)))
		}
	}
}

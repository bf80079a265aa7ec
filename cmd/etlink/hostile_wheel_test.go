package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// TestHostileWheels runs etlink on wheels built to cost memory or time:
// one whose central directory lists one entry's data 16,000 times, and
// several honest wheels each holding a library of hundreds of MB, which
// must be read within the same bounds.
func TestHostileWheels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on hostile wheels")
	}
	testenv.NeedTools(t, "objcopy")
	lib, err := os.ReadFile("../../testdata/elf/x86_64/libversioned.so.1")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("entries sharing their data", func(t *testing.T) {
		dir := t.TempDir()
		bad := filepath.Join(dir, "overlap-1.0-py3-none-linux_x86_64.whl")
		writeBytes(t, bad, overlappingZip(t, lib, 16000))
		for _, cmd := range []string{"check", "conflicts"} {
			before := hashTree(t, dir)
			r := runHostile(t, cmd, bad, demoWheel, "-q", "--format", "json")
			if r.elapsed > 5*time.Second || r.maxRSS > 1<<30 {
				t.Errorf("%s: took %v, peak RSS %d MB", cmd, r.elapsed, r.maxRSS>>20)
			}
			if r.code != exitError || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "overlap") {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 and an error naming %s", cmd, r.code, r.stderr, bad)
			}
			checkWheelRun(t, r, []string{demoWheel})
			if after := hashTree(t, dir); !equalHashes(before, after) {
				t.Errorf("%s: the inputs changed", cmd)
			}
		}
	})
	t.Run("four wheels with a 300 MB library each", func(t *testing.T) {
		dir := t.TempDir()
		data := largeLibraryWheel(t, dir, lib, 300<<20)
		var wheels []string
		for i := range 4 {
			p := filepath.Join(dir, fmt.Sprintf("large%d-1.0-py3-none-linux_x86_64.whl", i))
			writeBytes(t, p, data)
			wheels = append(wheels, p)
		}
		before := hashTree(t, dir)
		r := runHostile(t, append([]string{"check"}, append(wheels, "-q", "--format", "json")...)...)
		if r.elapsed > 20*time.Second || r.maxRSS > 1<<30 {
			t.Errorf("took %v, peak RSS %d MB", r.elapsed, r.maxRSS>>20)
		}
		if r.code == exitError || strings.Contains(r.stderr, "large") {
			t.Errorf("exit %d on honest wheels: %s", r.code, r.stderr)
		}
		checkWheelRun(t, r, wheels)
		if after := hashTree(t, dir); !equalHashes(before, after) {
			t.Error("the inputs changed")
		}
	})
}

// checkWheelRun checks that a run did not crash and reported every
// input of good as read.
func checkWheelRun(t *testing.T, r hostileRun, good []string) {
	t.Helper()
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "fatal error") {
		t.Fatalf("crashed: %s", r.stderr)
	}
	var head struct {
		Inputs []struct{ Path, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &head); err != nil {
		t.Fatalf("no JSON report on stdout (%v): %q", err, r.stdout)
	}
	for _, g := range good {
		if !slices.ContainsFunc(head.Inputs, func(in struct{ Path, Error string }) bool { return in.Path == g && in.Error == "" }) {
			t.Errorf("the good input %s is not reported as read: %+v", g, head.Inputs)
		}
	}
}

func equalHashes(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func writeBytes(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// overlappingZip is a zip of lib as pkg/00000.so whose central directory
// lists it copies times more, as pkg/00001.so and on, each record pointing
// at the same local header and data: 16,000 libraries for the price of
// one, which CPython's zipfile (and so pip) refuses as "Overlapped
// entries".
func overlappingZip(t *testing.T, lib []byte, copies int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("pkg/00000.so")
	if err == nil {
		_, err = w.Write(lib)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	le := binary.LittleEndian
	eocd := data[len(data)-22:]
	size, off := le.Uint32(eocd[12:]), le.Uint32(eocd[16:])
	rec := data[off : off+size]
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

// largeLibraryWheel returns a wheel holding lib with a non-allocated
// section of pad bytes added by objcopy, as debugging sections or a large
// .text make a library hundreds of MB: mostly zeros, with noise that keeps
// it deflating about 100:1, an honest ratio.
func largeLibraryWheel(t *testing.T, dir string, lib []byte, pad int) []byte {
	t.Helper()
	in, padFile, out := filepath.Join(dir, "in.so"), filepath.Join(dir, "pad.bin"), filepath.Join(dir, "large.so")
	writeBytes(t, in, lib)
	chunk := make([]byte, 64<<10)
	noise := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(chunk); i += 128 {
		chunk[i] = byte(noise.Uint32())
	}
	f, err := os.Create(padFile)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < pad; n += len(chunk) {
		f.Write(chunk)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("objcopy", "--add-section", ".pad="+padFile, in, out).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	w, err := zw.Create("large/liblarge.so")
	if err != nil {
		t.Fatal(err)
	}
	f, err = os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{in, padFile, out} {
		os.Remove(p)
	}
	return buf.Bytes()
}

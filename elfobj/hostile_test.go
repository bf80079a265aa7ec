package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/etlink/etlink/symset"
)

// versionedFixture returns the bytes of libversioned.so.1 (x86_64), a copy
// to patch, and its headers as debug/elf reads them.
func versionedFixture(t *testing.T) ([]byte, *elf.File) {
	t.Helper()
	data, err := os.ReadFile("../testdata/elf/x86_64/libversioned.so.1")
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return data, f
}

// patchDynsymName returns libversioned.so.1 with the name offset of its
// first real dynamic symbol pointing far past .dynstr.
func patchDynsymName(t *testing.T) []byte {
	t.Helper()
	data, f := versionedFixture(t)
	ds := f.SectionByType(elf.SHT_DYNSYM)
	out := append([]byte(nil), data...)
	binary.LittleEndian.PutUint32(out[ds.Offset+24:], 0x7fffff00) // entry 1's st_name
	return out
}

// TestOutOfRangeStringOffsets: a symbol whose name lies outside the string
// table is an error naming the file and the symbol, by either reader; never
// a panic, a read past the buffer, or (as debug/elf alone would have it) a
// symbol quietly without a name.
func TestOutOfRangeStringOffsets(t *testing.T) {
	data := patchDynsymName(t)
	asked := &symset.Set{}
	asked.Add("etlink_no_such_symbol")
	// The read that teaches the index tests no name but those it picks:
	// it finds the name outside the table all the same.
	for _, opt := range []Options{{}, {Initializers: true}, {Only: asked, Index: OpenIndex("")}} {
		_, err := Parse("evil.so", ".", bytes.NewReader(data), int64(len(data)), opt)
		if err == nil || !strings.HasPrefix(err.Error(), "evil.so: ") || !strings.Contains(err.Error(), "dynamic symbol 1 names offset 0x7fffff00") {
			t.Errorf("Initializers=%v: error %v, want one naming evil.so and symbol 1's offset", opt.Initializers, err)
		}
	}
}

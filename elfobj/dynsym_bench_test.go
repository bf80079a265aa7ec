package elfobj

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// benchLib is the largest library of Debian's python3-torch.
var benchLib = filepath.Join(systemLibDir, "libtorch_cpu.so.1.13")

// symbolSectionBytes is the size of what a symbol reader cannot avoid
// reading: .dynsym, .dynstr and .gnu.version*. MB/s is measured against it.
func symbolSectionBytes(b *testing.B, path string) int64 {
	b.Helper()
	f, err := elf.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var n int64
	for _, s := range f.Sections {
		if s.Name == ".dynsym" || s.Name == ".dynstr" || strings.HasPrefix(s.Name, ".gnu.version") {
			n += int64(s.FileSize)
		}
	}
	return n
}

// BenchmarkReadDynsym reads libtorch_cpu's dynamic section and symbols with
// the dynamic reader, with it keeping only a wheel's worth of names (as
// etlink conflicts reads a peer), and with debug/elf (the reference, and
// what reading initializers still uses).
func BenchmarkReadDynsym(b *testing.B) {
	testenv.NeedFiles(b, benchLib)
	size := symbolSectionBytes(b, benchLib)
	only := &symset.Set{}
	only.AddPrefix("PyInit_")
	for i := range 1000 {
		only.Add(fmt.Sprintf("_ZN7leveldb2DB%dEv", i))
		only.Add(fmt.Sprintf("xnn_create_operator_%d", i))
	}
	for _, c := range []struct {
		name string
		fast bool
		only *symset.Set
	}{{"dynsym", true, nil}, {"dynsym-only", true, only}, {"debug-elf", false, nil}} {
		b.Run(c.name, func(b *testing.B) {
			f, err := os.Open(benchLib)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				o, err := parse(benchLib, "", f, fi.Size(), Options{Only: c.only}, c.fast)
				if err != nil || len(o.Symbols) == 0 && c.only == nil {
					b.Fatal(o, err)
				}
			}
		})
	}
}

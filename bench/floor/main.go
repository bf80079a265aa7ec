// Command floor is the lower bound bench/run.sh measures etlink against: it
// reads the bytes of .dynsym, .dynstr and .gnu.version* (and the ELF and
// section headers that locate them) of every file named on stdin, one path a
// line, and nothing else. It decodes nothing: whatever a tool that answers
// questions about dynamic symbols does, it has to read at least this much.
//
// Sections are found by type (SHT_DYNSYM, the string table its sh_link names,
// SHT_GNU_versym, SHT_GNU_verdef, SHT_GNU_verneed), so the section name table
// is not read either. Files are read by -j workers at once (default
// GOMAXPROCS), each with one pread per section into a reused buffer.
//
// It prints "files N sections S bytes B": B is the total size of the symbol
// sections read, the yardstick of bench/run.sh's peak-memory ratio.
//
// Usage:
//
//	ldd-closure-of-something | floor [-j N]
//	floor [-j N] -list FILE
package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

func main() {
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "files read at once")
	list := flag.String("list", "", "read the paths from this file rather than stdin")
	flag.Parse()
	in := os.Stdin
	if *list != "" {
		f, err := os.Open(*list)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	var paths []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if p := sc.Text(); p != "" {
			paths = append(paths, p)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	var (
		mu            sync.Mutex
		bytes, nsects int64
		failed        bool
		wg            sync.WaitGroup
	)
	next := make(chan string)
	for range max(1, *jobs) {
		wg.Go(func() {
			var buf []byte
			for p := range next {
				n, s, err := readSymbolSections(p, &buf)
				mu.Lock()
				bytes, nsects = bytes+n, nsects+s
				if err != nil {
					fmt.Fprintf(os.Stderr, "floor: %s: %v\n", p, err)
					failed = true
				}
				mu.Unlock()
			}
		})
	}
	for _, p := range paths {
		next <- p
	}
	close(next)
	wg.Wait()
	fmt.Printf("files %d sections %d bytes %d\n", len(paths), nsects, bytes)
	if failed {
		os.Exit(1)
	}
}

// readSymbolSections reads the symbol sections of one ELF file into *buf and
// returns how many bytes and sections it read.
func readSymbolSections(path string, buf *[]byte) (n, sections int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var h [64]byte
	if _, err := f.ReadAt(h[:], 0); err != nil && err != io.EOF {
		return 0, 0, err
	}
	if string(h[:4]) != elf.ELFMAG {
		return 0, 0, errors.New("not ELF")
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		bo = binary.BigEndian
	}
	is64 := elf.Class(h[elf.EI_CLASS]) == elf.ELFCLASS64
	var shoff uint64
	var shentsize, shnum int
	if is64 {
		shoff, shentsize, shnum = bo.Uint64(h[40:]), int(bo.Uint16(h[58:])), int(bo.Uint16(h[60:]))
	} else {
		shoff, shentsize, shnum = uint64(bo.Uint32(h[32:])), int(bo.Uint16(h[46:])), int(bo.Uint16(h[48:]))
	}
	want := 40
	if is64 {
		want = 64
	}
	if shnum == 0 || shentsize < want {
		return 0, 0, nil // no sections (or more than 0xff00): nothing a symbol reader would use
	}
	shdrs := make([]byte, shnum*shentsize)
	if _, err := f.ReadAt(shdrs, int64(shoff)); err != nil {
		return 0, 0, fmt.Errorf("section headers: %w", err)
	}
	type section struct {
		typ       elf.SectionType
		off, size uint64
		link      uint32
	}
	header := func(i int) section {
		b := shdrs[i*shentsize:]
		if is64 {
			return section{elf.SectionType(bo.Uint32(b[4:])), bo.Uint64(b[24:]), bo.Uint64(b[32:]), bo.Uint32(b[40:])}
		}
		return section{elf.SectionType(bo.Uint32(b[4:])), uint64(bo.Uint32(b[16:])), uint64(bo.Uint32(b[20:])), bo.Uint32(b[24:])}
	}
	read := func(s section) error {
		if uint64(cap(*buf)) < s.size {
			*buf = make([]byte, s.size)
		}
		if _, err := f.ReadAt((*buf)[:s.size], int64(s.off)); err != nil {
			return err
		}
		n += int64(s.size)
		sections++
		return nil
	}
	for i := range shnum {
		s := header(i)
		switch s.typ {
		case elf.SHT_DYNSYM:
			if err := read(s); err != nil {
				return n, sections, err
			}
			if int(s.link) > 0 && int(s.link) < shnum {
				if err := read(header(int(s.link))); err != nil {
					return n, sections, err
				}
			}
		case elf.SHT_GNU_VERSYM, elf.SHT_GNU_VERDEF, elf.SHT_GNU_VERNEED:
			if err := read(s); err != nil {
				return n, sections, err
			}
		}
	}
	return n, sections, nil
}

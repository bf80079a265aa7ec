// Package ldcache reads glibc's /etc/ld.so.cache, the table the dynamic loader
// consults for a DT_NEEDED name after DT_RPATH, LD_LIBRARY_PATH and DT_RUNPATH
// and before the default directories. etlink needs it to predict which file a
// library name resolves to on the machine whose cache it reads, without running
// the loader.
//
// Both on-disk formats are read: the current one (magic "glibc-ld.so.cache1.1",
// written by ldconfig since glibc 2.2 and alone by default since 2.32) and the
// libc5-era one (magic "ld.so-1.7.0"), including the "compat" layout in which
// the new table follows the old one. The layout follows glibc's
// sysdeps/generic/dl-cache.h; the lookup rules follow elf/dl-cache.c.
package ldcache

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/etlink/etlink/datafile"
)

// Entry is one record of the cache: ldconfig maps the soname Name to the file
// Path for the ABI recorded in Flags.
type Entry struct {
	// Name is the lookup key, the library's soname (for example "libc.so.6").
	Name string
	// Path is the file ld.so opens for Name.
	Path string
	// Flags holds the library type in its low byte (FlagELFLibc6 for any
	// glibc library) and the ABI ldconfig saw in the ELF header in the bits
	// of FlagRequiredMask (FlagX8664Lib64, FlagAArch64Lib64, ...).
	Flags int32
	// HWCap is zero for a baseline library. Otherwise it marks a library
	// from a glibc-hwcaps subdirectory (bit 62 set, the low 32 bits index the
	// subdirectory names) or from a legacy hwcap/platform subdirectory. It is
	// always zero for a cache in the old format, which has no such field.
	HWCap uint64
}

// Cache is a parsed ld.so.cache. Entries keep the file's order, which is the
// order ld.so walks when several entries share a name.
type Cache struct {
	Entries []Entry

	// first and next list Entries' positions by key (see key), in file
	// order: a loader search asks for hundreds of names of a cache of
	// thousands.
	indexOnce sync.Once
	first     map[string]int32 // the first entry of each key
	next      []int32          // the entry after each with the same key; -1 for none
}

// Flag values of Entry.Flags, from glibc's sysdeps/generic/ldconfig.h. They
// are exported so that callers can explain an entry the way `ldconfig -p`
// does.
const (
	FlagTypeMask     = 0x00ff
	FlagLibc4        = 0x0000
	FlagELF          = 0x0001
	FlagELFLibc5     = 0x0002
	FlagELFLibc6     = 0x0003
	FlagRequiredMask = 0xff00

	FlagSPARCLib64              = 0x0100
	FlagIA64Lib64               = 0x0200
	FlagX8664Lib64              = 0x0300
	FlagS390Lib64               = 0x0400
	FlagPowerPCLib64            = 0x0500
	FlagMIPS64LibN32            = 0x0600
	FlagMIPS64LibN64            = 0x0700
	FlagX8664LibX32             = 0x0800
	FlagARMLibHF                = 0x0900
	FlagAArch64Lib64            = 0x0a00
	FlagARMLibSF                = 0x0b00
	FlagMIPSLib32NaN2008        = 0x0c00
	FlagMIPS64LibN32NaN2008     = 0x0d00
	FlagMIPS64LibN64NaN2008     = 0x0e00
	FlagRISCVFloatABISoft       = 0x0f00
	FlagRISCVFloatABIDouble     = 0x1000
	FlagLoongArchFloatABISoft   = 0x1100
	FlagLoongArchFloatABIDouble = 0x1200
)

// Layout constants of the two formats (struct cache_file, struct file_entry,
// struct cache_file_new and struct file_entry_new in dl-cache.h).
const (
	magicOld = "ld.so-1.7.0"
	magicNew = "glibc-ld.so.cache1.1"

	oldHeaderSize = 16 // magic[11], 1 byte of padding, uint32 nlibs
	oldEntrySize  = 12 // int32 flags, uint32 key, uint32 value
	newHeaderSize = 48
	newEntrySize  = 24 // old entry, uint32 osversion, uint64 hwcap

	newCountOff = 20 // uint32 nlibs in the new header
	newFlagsOff = 28 // uint8 flags: endianness in the low two bits

	endianUnset   = 0
	endianInvalid = 1
	endianLittle  = 2
	endianBig     = 3

	// hwcapTLS is the legacy "tls" pseudo-hwcap; ld.so never excludes an
	// entry for it.
	hwcapTLS = 1 << 63

	// maxFileSize bounds what Load reads: real caches are well under a
	// megabyte, and Parse keeps the whole file in memory.
	maxFileSize = 64 << 20
)

// FormatError reports a malformed cache: what is wrong and the byte offset in
// the data where it was found, as debug/elf does.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("ldcache: %s (at offset %#x)", e.Msg, e.Off)
}

func formatErr(off int, format string, args ...any) error {
	return &FormatError{Off: int64(off), Msg: fmt.Sprintf(format, args...)}
}

// Load reads and parses the cache file at path. It reads the whole file
// because caches are small; a file larger than 64 MiB is refused rather than
// read, since it cannot be a real cache.
func Load(path string) (*Cache, error) {
	data, err := datafile.ReadFile(path, maxFileSize) // in one buffer of the file's size
	if errors.Is(err, datafile.ErrTooLarge) {
		return nil, fmt.Errorf("ldcache: %s: larger than %d bytes, not an ld.so.cache", path, maxFileSize)
	}
	if err != nil {
		return nil, fmt.Errorf("ldcache: %w", err)
	}
	// data is Load's own, never written again: the image's strings are
	// its bytes, not a copy of the file (77 KB of fresh memory).
	c, err := parse(data, unsafe.String(unsafe.SliceData(data), len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a cache image. When the file holds both formats it returns the
// entries of the new one, as ld.so and `ldconfig -p` use them. Every count and
// string offset is checked against len(data) before it is used, so a corrupt
// or hostile file yields a *FormatError, never a panic or an allocation sized
// by a field of the file.
func Parse(data []byte) (*Cache, error) { return parse(data, string(data)) }

// parse is Parse with img, data as a string: every name and path is a
// substring of it, so entries that share or overlap strings cost no copies.
func parse(data []byte, img string) (*Cache, error) {
	switch {
	case bytes.HasPrefix(data, []byte(magicNew)):
		return parseNew(data, img, 0)
	case bytes.HasPrefix(data, []byte(magicOld)):
		return parseOld(data, img)
	}
	if len(data) < len(magicOld) {
		return nil, formatErr(0, "file too short for a cache header: %d bytes", len(data))
	}
	n := min(len(data), len(magicNew))
	return nil, formatErr(0, "not an ld.so.cache: magic %q, want %q or %q", data[:n], magicNew, magicOld)
}

// parseOld reads the libc5-era format and, when one follows it, the new
// table embedded after the old entries (ldconfig -c compat).
func parseOld(data []byte, img string) (*Cache, error) {
	if len(data) < oldHeaderSize {
		return nil, formatErr(0, "truncated old-format header: %d bytes, need %d", len(data), oldHeaderSize)
	}
	// The old header has no byte-order mark. Take the reading under which
	// the entries fit in the file, little-endian first.
	room := uint64(len(data) - oldHeaderSize)
	var order binary.ByteOrder
	for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		if uint64(o.Uint32(data[12:]))*oldEntrySize <= room {
			order = o
			break
		}
	}
	if order == nil {
		n := binary.LittleEndian.Uint32(data[12:])
		return nil, formatErr(12, "old-format entry count %d needs %d bytes of entries, only %d follow the header",
			n, uint64(n)*oldEntrySize, room)
	}
	n := int(order.Uint32(data[12:]))
	strBase := oldHeaderSize + n*oldEntrySize

	// ALIGN_CACHE aligns the new header to alignof(struct cache_file_new):
	// 8 on 64-bit hosts, 4 on i386, where uint64_t is 4-aligned in structs.
	for _, off := range []int{(strBase + 7) &^ 7, strBase} {
		if off+newHeaderSize <= len(data) && bytes.HasPrefix(data[off:], []byte(magicNew)) {
			return parseNew(data, img, off)
		}
	}

	c := &Cache{Entries: make([]Entry, 0, n)}
	for i := range n {
		p := oldHeaderSize + i*oldEntrySize
		e, err := readEntry(data, img, order, p, strBase, i)
		if err != nil {
			return nil, err
		}
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// parseNew reads the new format whose header starts at base; its string
// offsets are relative to base.
func parseNew(data []byte, img string, base int) (*Cache, error) {
	if len(data)-base < newHeaderSize {
		return nil, formatErr(base, "truncated header: %d bytes, need %d", len(data)-base, newHeaderSize)
	}
	room := uint64(len(data) - base - newHeaderSize)
	fits := func(o binary.ByteOrder) bool {
		return uint64(o.Uint32(data[base+newCountOff:]))*newEntrySize <= room
	}
	var order binary.ByteOrder
	switch flags := data[base+newFlagsOff] & 3; flags {
	case endianLittle:
		order = binary.LittleEndian
	case endianBig:
		order = binary.BigEndian
	case endianInvalid:
		return nil, formatErr(base+newFlagsOff, "header flags mark the cache invalid (endianness field 1)")
	case endianUnset:
		// Written by an ldconfig older than glibc 2.33: no byte-order
		// mark, so take the reading under which the entries fit.
		order = binary.LittleEndian
		if !fits(order) && fits(binary.BigEndian) {
			order = binary.BigEndian
		}
	}
	if !fits(order) {
		n := order.Uint32(data[base+newCountOff:])
		return nil, formatErr(base+newCountOff, "entry count %d needs %d bytes of entries, only %d follow the header",
			n, uint64(n)*newEntrySize, room)
	}
	n := int(order.Uint32(data[base+newCountOff:]))

	c := &Cache{Entries: make([]Entry, 0, n)}
	for i := range n {
		p := base + newHeaderSize + i*newEntrySize
		e, err := readEntry(data, img, order, p, base, i)
		if err != nil {
			return nil, err
		}
		e.HWCap = order.Uint64(data[p+16:])
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// readEntry decodes the fields common to both entry layouts at offset p;
// string offsets are relative to strBase.
func readEntry(data []byte, img string, order binary.ByteOrder, p, strBase, i int) (Entry, error) {
	b := data[p : p+oldEntrySize]
	key, err := cstring(img, strBase, order.Uint32(b[4:]), p+4, i, "name")
	if err != nil {
		return Entry{}, err
	}
	val, err := cstring(img, strBase, order.Uint32(b[8:]), p+8, i, "path")
	if err != nil {
		return Entry{}, err
	}
	return Entry{Name: key, Path: val, Flags: int32(order.Uint32(b))}, nil
}

// cstring returns the NUL-terminated string at strBase+off. fieldOff is where
// the offset itself was read, for the error.
func cstring(img string, strBase int, off uint32, fieldOff, i int, what string) (string, error) {
	start := uint64(strBase) + uint64(off)
	if start >= uint64(len(img)) {
		return "", formatErr(fieldOff, "entry %d: %s string offset %#x points past the end of the file (%d bytes)",
			i, what, off, len(img))
	}
	s := img[start:]
	end := indexNUL(s)
	if end < 0 {
		return "", formatErr(int(start), "entry %d: %s string is not NUL-terminated", i, what)
	}
	return s[:end], nil
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// abi is the set of Entry.Flags values ld.so accepts for one ABI, in order of
// preference (_DL_CACHE_DEFAULT_ID first, then what _dl_cache_check_flags
// also admits).
type abi []int32

// abiFor maps an ELF machine and class to the flag values ldconfig writes
// for libraries of that ABI and the per-architecture dl-cache.h accepts.
func abiFor(m elf.Machine, c elf.Class) (abi, bool) {
	const libc6 = FlagELFLibc6
	if c != elf.ELFCLASS32 && c != elf.ELFCLASS64 {
		return nil, false
	}
	is64 := c == elf.ELFCLASS64
	switch m {
	case elf.EM_X86_64:
		if is64 {
			return abi{FlagX8664Lib64 | libc6}, true
		}
		return abi{FlagX8664LibX32 | libc6}, true
	case elf.EM_AARCH64:
		if is64 {
			return abi{FlagAArch64Lib64 | libc6}, true
		}
	case elf.EM_ARM:
		// The float ABI is in e_flags, which the query does not carry:
		// accept both marks, hard-float (Debian's armhf) first, and the
		// unmarked entries both ld.so variants accept.
		return abi{FlagARMLibHF | libc6, FlagARMLibSF | libc6, libc6}, true
	case elf.EM_RISCV:
		return abi{FlagRISCVFloatABIDouble | libc6, FlagRISCVFloatABISoft | libc6}, true
	case elf.EM_LOONGARCH:
		return abi{FlagLoongArchFloatABIDouble | libc6, FlagLoongArchFloatABISoft | libc6}, true
	case elf.EM_MIPS:
		// 32-bit means o32 here: n32 is also ELFCLASS32 and differs only
		// in e_flags.
		if is64 {
			return abi{FlagMIPS64LibN64 | libc6, FlagMIPS64LibN64NaN2008 | libc6}, true
		}
		return abi{libc6, FlagMIPSLib32NaN2008 | libc6, FlagELF}, true
	case elf.EM_PPC64:
		if is64 {
			return abi{FlagPowerPCLib64 | libc6, FlagELF}, true
		}
	case elf.EM_S390:
		if is64 {
			return abi{FlagS390Lib64 | libc6, FlagELF}, true
		}
		return abi{libc6, FlagELF}, true
	case elf.EM_SPARCV9:
		if is64 {
			return abi{FlagSPARCLib64 | libc6, FlagELF}, true
		}
	case elf.EM_IA_64:
		if is64 {
			return abi{FlagIA64Lib64 | libc6, FlagELF}, true
		}
	default:
		// Architectures without a dl-cache.h of their own (i386, 32-bit
		// PowerPC and SPARC, m68k, ...) use the generic check.
		return abi{libc6, FlagELF}, true
	}
	return nil, false
}

// Lookup returns the path ld.so would take from the cache for soname when
// loading an object of the given machine and class: the first entry whose
// name matches (digit runs compare numerically, as _dl_cache_libcmp does) and
// whose flags are the ABI's _DL_CACHE_DEFAULT_ID, or failing that the first
// one the architecture's _dl_cache_check_flags also accepts.
//
// Modelled: the flag check per architecture (x86-64 and x32, i386, AArch64,
// ARM, RISC-V, LoongArch, MIPS, PowerPC, s390, SPARC, IA-64; others use the
// generic rule), entry order, numeric name comparison.
//
// Not modelled, because they depend on the CPU and kernel of the machine that
// runs the program rather than on the files: glibc-hwcaps subdirectories
// (x86-64-v2/v3/v4, power9, z15, ...) and legacy hwcap and platform
// subdirectories. Entries carrying any of them are skipped, so the answer is
// the baseline library, the one ld.so loads on a CPU that matches no
// subdirectory. Also not modelled: the osversion check (no longer written),
// the ARM and RISC-V float ABI and MIPS n32 (they live in e_flags, which the
// query lacks; both variants are accepted), and when ld.so consults the
// cache at all (never for a name containing a slash, and only after RPATH,
// LD_LIBRARY_PATH and RUNPATH failed): that is the caller's search order.
//
// A cache in the old format has no hwcap field, so there the glibc-hwcaps
// entries look like baseline ones and come first; Lookup then returns them,
// as ld.so itself does with such a cache.
func (c *Cache) Lookup(soname string, machine elf.Machine, class elf.Class) (string, bool) {
	want, ok := abiFor(machine, class)
	if !ok || c == nil {
		return "", false
	}
	c.indexOnce.Do(func() {
		// Chained through next, in file order: two allocations, not one
		// slice per name (a cache holds a thousand or more).
		// Built from the last entry back, each put before the name's
		// first so far: one map, not a second for the chains' ends.
		c.first = make(map[string]int32, len(c.Entries))
		c.next = make([]int32, len(c.Entries))
		for i := len(c.Entries) - 1; i >= 0; i-- {
			k := key(c.Entries[i].Name)
			if j, ok := c.first[k]; ok {
				c.next[i] = j
			} else {
				c.next[i] = -1
			}
			c.first[k] = int32(i)
		}
	})
	fallback, found := "", false
	i, ok := c.first[key(soname)]
	for ; ok && i >= 0; i = c.next[i] {
		e := &c.Entries[i]
		if e.HWCap&^hwcapTLS != 0 {
			continue
		}
		for i, f := range want {
			if e.Flags != f {
				continue
			}
			if i == 0 {
				return e.Path, true
			}
			if !found {
				fallback, found = e.Path, true
			}
		}
	}
	return fallback, found
}

// key is a name as _dl_cache_libcmp compares it: runs of digits by value, so
// "libfoo.so.01" and "libfoo.so.1" have the same key. Two names are equal to
// ld.so exactly when their keys are.
func key(name string) string {
	if !leadingZero(name) {
		return name // most names: ".so.0" has a zero, not a leading one
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		if isDigit(name[i]) {
			v, n := digitRun(name[i:])
			b.WriteString(v)
			i += n
			continue
		}
		b.WriteByte(name[i])
		i++
	}
	return b.String()
}

// leadingZero reports whether a run of digits in name starts with a zero
// and goes on: what key drops.
func leadingZero(name string) bool {
	for i := 0; i+1 < len(name); i++ {
		if name[i] == '0' && isDigit(name[i+1]) && (i == 0 || !isDigit(name[i-1])) {
			return true
		}
	}
	return false
}

// digitRun returns a run of digits with leading zeros dropped (so that runs
// compare by value without overflow) and its length.
func digitRun(s string) (string, int) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	v := s[:n]
	for len(v) > 1 && v[0] == '0' {
		v = v[1:]
	}
	return v, n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

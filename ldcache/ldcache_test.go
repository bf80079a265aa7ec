package ldcache

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

func ldconfigPath(t *testing.T) string {
	return testenv.Tool(t, "ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig")
}

// hostABI is the machine and class of the running test binary, which is the
// ABI of the host's own libc entries.
func hostABI(t *testing.T) (elf.Machine, elf.Class, string) {
	switch runtime.GOARCH {
	case "amd64":
		return elf.EM_X86_64, elf.ELFCLASS64, "(libc6,x86-64)"
	case "arm64":
		return elf.EM_AARCH64, elf.ELFCLASS64, "(libc6,AArch64)"
	}
	t.Skipf("no ldconfig flag description for GOARCH %s", runtime.GOARCH)
	return 0, 0, ""
}

// printedEntry is one line of `ldconfig -p`.
type printedEntry struct {
	name, desc, path string
}

func (p printedEntry) String() string { return fmt.Sprintf("%s %s => %s", p.name, p.desc, p.path) }

// ldconfigPrint runs `ldconfig -p` (on cacheFile if not empty) and parses
// its entry lines. The hwcap part of the description is cut off: in the
// compat format ldconfig prints the glibc-hwcaps name from the wrong base
// (glibc bug), so only its presence is compared.
func ldconfigPrint(t *testing.T, ldconfig, cacheFile string) []printedEntry {
	t.Helper()
	args := []string{"-p"}
	if cacheFile != "" {
		args = append(args, "-C", cacheFile)
	}
	out, err := exec.Command(ldconfig, args...).Output()
	if err != nil {
		t.Fatalf("ldconfig %v: %v", args, err)
	}
	var got []printedEntry
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "\t") {
			continue
		}
		open := strings.Index(line, " (")
		arrow := strings.LastIndex(line, ") => ")
		if open < 0 || arrow < open {
			t.Fatalf("cannot parse ldconfig line %q", line)
		}
		desc := line[open+1 : arrow+1]
		if i := strings.Index(desc, ", hwcap: "); i >= 0 {
			desc = desc[:i] + ", hwcap)"
		}
		got = append(got, printedEntry{line[1:open], desc, line[arrow+len(") => "):]})
	}
	return got
}

// describe renders flags and hwcap as cache.c's print_entry does, up to the
// hwcap detail that ldconfigPrint cuts off.
func describe(e Entry) string {
	var b strings.Builder
	b.WriteString("(")
	switch e.Flags & FlagTypeMask {
	case FlagLibc4:
		b.WriteString("libc4")
	case FlagELF:
		b.WriteString("ELF")
	case FlagELFLibc5:
		b.WriteString("libc5")
	case FlagELFLibc6:
		b.WriteString("libc6")
	default:
		b.WriteString("unknown")
	}
	names := map[int32]string{
		FlagSPARCLib64: ",64bit", FlagIA64Lib64: ",IA-64", FlagX8664Lib64: ",x86-64",
		FlagS390Lib64: ",64bit", FlagPowerPCLib64: ",64bit", FlagMIPS64LibN32: ",N32",
		FlagMIPS64LibN64: ",64bit", FlagX8664LibX32: ",x32", FlagARMLibHF: ",hard-float",
		FlagAArch64Lib64: ",AArch64", FlagARMLibSF: ",soft-float", FlagMIPSLib32NaN2008: ",nan2008",
		FlagMIPS64LibN32NaN2008: ",N32,nan2008", FlagMIPS64LibN64NaN2008: ",64bit,nan2008",
		FlagRISCVFloatABISoft: ",soft-float", FlagRISCVFloatABIDouble: ",double-float",
	}
	if req := e.Flags & FlagRequiredMask; req != 0 {
		if s, ok := names[req]; ok {
			b.WriteString(s)
		} else {
			fmt.Fprintf(&b, ",%d", req)
		}
	}
	if e.HWCap != 0 {
		b.WriteString(", hwcap")
	}
	b.WriteString(")")
	return b.String()
}

func compareWithLdconfig(t *testing.T, c *Cache, want []printedEntry) {
	t.Helper()
	if len(c.Entries) != len(want) {
		t.Errorf("parsed %d entries, ldconfig -p printed %d", len(c.Entries), len(want))
	}
	for i := range min(len(c.Entries), len(want)) {
		e := c.Entries[i]
		got := printedEntry{e.Name, describe(e), e.Path}
		if got != want[i] {
			t.Errorf("entry %d:\n got  %v\n want %v", i, got, want[i])
		}
	}
}

// TestSystemCache checks the machine's own cache against ldconfig's reading
// of it, entry by entry, and the libc lookup against the line ldconfig prints.
func TestSystemCache(t *testing.T) {
	ldconfig := ldconfigPath(t)
	machine, class, desc := hostABI(t)
	const path = "/etc/ld.so.cache"
	testenv.NeedFiles(t, path)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := ldconfigPrint(t, ldconfig, "")
	compareWithLdconfig(t, c, want)

	var libc string
	for _, p := range want {
		if p.name == "libc.so.6" && p.desc == desc {
			libc = p.path
			break
		}
	}
	if libc == "" {
		t.Fatalf("ldconfig -p has no libc.so.6 %s line", desc)
	}
	got, ok := c.Lookup("libc.so.6", machine, class)
	if !ok || got != libc {
		t.Errorf("Lookup(libc.so.6) = %q, %v; ldconfig -p says %q", got, ok, libc)
	}
	if got, ok := c.Lookup("libdoes-not-exist.so.42", machine, class); ok {
		t.Errorf("Lookup of a missing name = %q, want not found", got)
	}
}

// TestLdconfigFormats has the real ldconfig write the same directories in
// its three formats and checks each parse against `ldconfig -p`. On x86-64 a
// glibc-hwcaps/x86-64-v3 copy of a library is added, so the new formats carry
// an hwcaps entry and the old one shows how it loses that marking.
func TestLdconfigFormats(t *testing.T) {
	ldconfig := ldconfigPath(t)
	machine, class, _ := hostABI(t)
	sys, err := Load("/etc/ld.so.cache")
	if err != nil {
		t.Skip(err)
	}
	soname := "libz.so.1"
	src, ok := sys.Lookup(soname, machine, class)
	if !ok {
		soname = "libc.so.6"
		if src, ok = sys.Lookup(soname, machine, class); !ok {
			t.Skip("neither libz.so.1 nor libc.so.6 in the system cache")
		}
	}
	real, err := filepath.EvalSymlinks(src)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	libDir := filepath.Join(dir, "lib")
	hwcapsDir := filepath.Join(libDir, "glibc-hwcaps", "x86-64-v3")
	dirs := []string{libDir}
	if machine == elf.EM_X86_64 {
		dirs = append(dirs, hwcapsDir)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(real)
		if err != nil {
			t.Skip(err)
		}
		base := filepath.Base(real)
		if err := os.WriteFile(filepath.Join(d, base), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if base != soname {
			if err := os.Symlink(base, filepath.Join(d, soname)); err != nil {
				t.Fatal(err)
			}
		}
	}
	conf := filepath.Join(dir, "ld.so.conf")
	if err := os.WriteFile(conf, []byte(libDir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, format := range []string{"new", "old", "compat"} {
		t.Run(format, func(t *testing.T) {
			file := filepath.Join(dir, "ld.so.cache."+format)
			cmd := exec.Command(ldconfig, "-X", "-i", "-c", format, "-C", file, "-f", conf)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Skipf("ldconfig cannot write a cache here: %v\n%s", err, out)
			}
			c, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			compareWithLdconfig(t, c, ldconfigPrint(t, ldconfig, file))

			got, ok := c.Lookup(soname, machine, class)
			want := filepath.Join(libDir, soname)
			if format == "old" && machine == elf.EM_X86_64 {
				// No hwcap field: the hwcaps copy sorts first and
				// wins, for ld.so as for Lookup.
				want = filepath.Join(hwcapsDir, filepath.Base(real))
			}
			if !ok || got != want {
				t.Errorf("Lookup(%s) = %q, %v, want %q", soname, got, ok, want)
			}
		})
	}
}

// builder writes cache images for the crafted tests, in the layout
// ldconfig's save_cache uses.
type builder struct {
	order   byteOrder
	endian  byte // header flags byte of the new format
	entries []Entry
	strings []byte
	offs    map[string]uint32
}

// byteOrder is what binary.LittleEndian and binary.BigEndian both provide.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func newBuilder(order byteOrder, entries ...Entry) *builder {
	endian := byte(endianLittle)
	if order == binary.BigEndian {
		endian = endianBig
	}
	return &builder{order: order, endian: endian, entries: entries, offs: map[string]uint32{}}
}

// str interns s and returns its offset within the string area.
func (b *builder) str(s string) uint32 {
	if off, ok := b.offs[s]; ok {
		return off
	}
	off := uint32(len(b.strings))
	b.strings = append(append(b.strings, s...), 0)
	b.offs[s] = off
	return off
}

// newFormat returns the new-format image; string offsets are relative to
// its start, the strings follow the entries.
func (b *builder) newFormat() []byte {
	strBase := uint32(newHeaderSize + newEntrySize*len(b.entries))
	var out []byte
	out = append(out, magicNew...)
	out = b.order.AppendUint32(out, uint32(len(b.entries)))
	out = b.order.AppendUint32(out, 0) // len_strings, filled below
	out = append(out, b.endian, 0, 0, 0)
	out = append(out, make([]byte, 16)...) // extension_offset, unused[3]
	for _, e := range b.entries {
		out = b.order.AppendUint32(out, uint32(e.Flags))
		out = b.order.AppendUint32(out, strBase+b.str(e.Name))
		out = b.order.AppendUint32(out, strBase+b.str(e.Path))
		out = b.order.AppendUint32(out, 0)
		out = b.order.AppendUint64(out, e.HWCap)
	}
	b.order.PutUint32(out[24:], uint32(len(b.strings)))
	return append(out, b.strings...)
}

// oldFormat returns the old-format image, strings relative to the end of
// the entries.
func (b *builder) oldFormat() []byte {
	var out []byte
	out = append(out, magicOld...)
	out = append(out, 0)
	out = b.order.AppendUint32(out, uint32(len(b.entries)))
	for _, e := range b.entries {
		out = b.order.AppendUint32(out, uint32(e.Flags))
		out = b.order.AppendUint32(out, b.str(e.Name))
		out = b.order.AppendUint32(out, b.str(e.Path))
	}
	return append(out, b.strings...)
}

// compatFormat returns the old table followed by the new one at align
// (8 on 64-bit hosts, 4 on i386); old offsets count from the end of the old
// entries, new ones from the new header, as in ldconfig -c compat.
func (b *builder) compatFormat(align int) []byte {
	oldEnd := oldHeaderSize + oldEntrySize*len(b.entries)
	pad := (oldEnd+align-1)/align*align - oldEnd
	newPart := b.newFormat()
	var out []byte
	out = append(out, magicOld...)
	out = append(out, 0)
	out = b.order.AppendUint32(out, uint32(len(b.entries)))
	for _, e := range b.entries {
		// Point the old entries at the strings inside the new part.
		strBase := uint32(pad + newHeaderSize + newEntrySize*len(b.entries))
		out = b.order.AppendUint32(out, uint32(e.Flags))
		out = b.order.AppendUint32(out, strBase+b.offs[e.Name])
		out = b.order.AppendUint32(out, strBase+b.offs[e.Path])
	}
	out = append(out, make([]byte, pad)...)
	return append(out, newPart...)
}

var sample = []Entry{
	{Name: "libz.so.1", Path: "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libz.so.1", Flags: 0x0303, HWCap: 1<<62 | 0},
	{Name: "libz.so.1", Path: "/lib/x86_64-linux-gnu/libz.so.1", Flags: 0x0303},
	{Name: "libz.so.1", Path: "/lib/i386-linux-gnu/libz.so.1", Flags: 0x0003},
	{Name: "libc.so.6", Path: "/lib/x86_64-linux-gnu/libc.so.6", Flags: 0x0303},
	{Name: "libc.so.6", Path: "/libx32/libc.so.6", Flags: 0x0803},
}

func TestParseFormats(t *testing.T) {
	oldSample := make([]Entry, len(sample))
	for i, e := range sample {
		e.HWCap = 0 // the old format cannot carry it
		oldSample[i] = e
	}
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, n := range []int{len(sample), len(sample) - 1} { // odd and even counts move the alignment pad
			unset := newBuilder(order, sample[:n]...)
			unset.endian = endianUnset
			tests := []struct {
				name string
				data []byte
				want []Entry
			}{
				{"new", newBuilder(order, sample[:n]...).newFormat(), sample[:n]},
				{"new-unset-endian", unset.newFormat(), sample[:n]},
				{"old", newBuilder(order, sample[:n]...).oldFormat(), oldSample[:n]},
				{"compat-align8", newBuilder(order, sample[:n]...).compatFormat(8), sample[:n]},
				{"compat-align4", newBuilder(order, sample[:n]...).compatFormat(4), sample[:n]},
			}
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s/%v/%d", tt.name, order, n), func(t *testing.T) {
					c, err := Parse(tt.data)
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(c.Entries) != fmt.Sprint(tt.want) {
						t.Errorf("got  %v\nwant %v", c.Entries, tt.want)
					}
				})
			}
		}
	}
}

func TestLookup(t *testing.T) {
	c := &Cache{Entries: []Entry{
		{Name: "libz.so.1", Path: "/hwcaps/v3/libz.so.1", Flags: 0x0303, HWCap: 1 << 62},
		{Name: "libz.so.1", Path: "/legacy/sse2/libz.so.1", Flags: 0x0303, HWCap: 1 << 3},
		{Name: "libz.so.1", Path: "/tls/libz.so.1", Flags: 0x0303, HWCap: 1 << 63},
		{Name: "libz.so.1", Path: "/lib32/libz.so.1", Flags: 0x0003},
		{Name: "libz.so.1", Path: "/libx32/libz.so.1", Flags: 0x0803},
		{Name: "libold.so.2", Path: "/libc5/libold.so.2", Flags: 0x0001},
		{Name: "libold.so.2", Path: "/glibc/libold.so.2", Flags: 0x0003},
		{Name: "libarm.so.1", Path: "/sf/libarm.so.1", Flags: 0x0b03},
		{Name: "libarm.so.1", Path: "/plain/libarm.so.1", Flags: 0x0003},
		{Name: "libfoo.so.01", Path: "/lib/libfoo.so.01", Flags: 0x0a03},
	}}
	tests := []struct {
		name    string
		machine elf.Machine
		class   elf.Class
		want    string // "" means not found
	}{
		{"libz.so.1", elf.EM_X86_64, elf.ELFCLASS64, "/tls/libz.so.1"},
		{"libz.so.1", elf.EM_386, elf.ELFCLASS32, "/lib32/libz.so.1"},
		{"libz.so.1", elf.EM_X86_64, elf.ELFCLASS32, "/libx32/libz.so.1"},
		{"libz.so.1", elf.EM_AARCH64, elf.ELFCLASS64, ""},
		{"libz.so", elf.EM_X86_64, elf.ELFCLASS64, ""},
		{"libz.so.1.2", elf.EM_X86_64, elf.ELFCLASS64, ""},
		// The generic rule accepts libc5-era ELF entries but prefers
		// _DL_CACHE_DEFAULT_ID even when it comes later.
		{"libold.so.2", elf.EM_386, elf.ELFCLASS32, "/glibc/libold.so.2"},
		{"libold.so.2", elf.EM_X86_64, elf.ELFCLASS64, ""},
		// ARM: no float ABI in the query; without a hard-float entry
		// the first accepted one (ldconfig sorts marked ones first).
		{"libarm.so.1", elf.EM_ARM, elf.ELFCLASS32, "/sf/libarm.so.1"},
		// Digit runs compare by value, as in _dl_cache_libcmp.
		{"libfoo.so.1", elf.EM_AARCH64, elf.ELFCLASS64, "/lib/libfoo.so.01"},
		{"libfoo.so.01", elf.EM_AARCH64, elf.ELFCLASS64, "/lib/libfoo.so.01"},
		{"libfoo.so.10", elf.EM_AARCH64, elf.ELFCLASS64, ""},
		{"libz.so.1", elf.EM_X86_64, elf.ELFCLASSNONE, ""},
	}
	for _, tt := range tests {
		got, ok := c.Lookup(tt.name, tt.machine, tt.class)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Lookup(%q, %v, %v) = %q, %v; want %q", tt.name, tt.machine, tt.class, got, ok, tt.want)
		}
	}
	var nilCache *Cache
	if _, ok := nilCache.Lookup("libz.so.1", elf.EM_X86_64, elf.ELFCLASS64); ok {
		t.Error("Lookup on a nil cache found something")
	}
}

func TestKeyComparesLikeLdSo(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"libc.so.6", "libc.so.6", true},
		{"libc.so.6", "libc.so.06", true},
		{"libc.so.6", "libc.so.60", false},
		{"libc.so.6", "libc.so.6.1", false},
		{"libx264.so.164", "libx264.so.164", true},
		{"libx264.so.164", "libx0264.so.164", true},
		{"liba.so", "libb.so", false},
		{"", "", true},
		{"lib1", "lib", false},
		{"lib00000000000000000000000000001", "lib1", true},
	}
	for _, tt := range tests {
		if got := key(tt.a) == key(tt.b); got != tt.want {
			t.Errorf("key(%q) == key(%q) is %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func le32(b []byte, off int, v uint32) []byte {
	out := bytes.Clone(b)
	binary.LittleEndian.PutUint32(out[off:], v)
	return out
}

// TestParseErrors feeds broken images and checks that each is refused with a
// *FormatError naming the problem and the offset where it was found.
func TestParseErrors(t *testing.T) {
	good := newBuilder(binary.LittleEndian, sample...).newFormat()
	goodOld := newBuilder(binary.LittleEndian, sample...).oldFormat()
	entry0 := newHeaderSize
	invalid := bytes.Clone(good)
	invalid[newFlagsOff] = endianInvalid
	noNUL := bytes.Clone(good)
	noNUL = noNUL[:len(noNUL)-1] // drop the last string's terminator

	tests := []struct {
		name    string
		data    []byte
		wantOff int64
		wantMsg string
	}{
		{"empty", nil, 0, "too short"},
		{"short", []byte("glibc"), 0, "too short"},
		{"bad magic", []byte("this is not a cache at all"), 0, "not an ld.so.cache"},
		{"truncated new header", good[:40], 0, "truncated header"},
		{"truncated old header", goodOld[:14], 0, "truncated old-format header"},
		{"truncated entries", good[:entry0+newEntrySize+3], newCountOff, "entry count 5"},
		{"huge count", le32(good, newCountOff, 0xffffffff), newCountOff, "entry count 4294967295"},
		{"huge old count", le32(goodOld, 12, 0x7fffffff), 12, "old-format entry count"},
		{"key out of range", le32(good, entry0+4, 1<<30), int64(entry0 + 4), "entry 0: name string offset"},
		{"key wraps", le32(good, entry0+4, 0xffffffff), int64(entry0 + 4), "entry 0: name string offset"},
		{"value out of range", le32(good, entry0+newEntrySize+8, uint32(len(good))), int64(entry0 + newEntrySize + 8), "entry 1: path string offset"},
		{"old value out of range", le32(goodOld, oldHeaderSize+8, uint32(len(goodOld))), oldHeaderSize + 8, "entry 0: path string offset"},
		{"string not terminated", noNUL, -1, "not NUL-terminated"},
		{"endian invalid", invalid, newFlagsOff, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.data)
			if err == nil {
				t.Fatalf("Parse succeeded with %d entries, want an error", len(c.Entries))
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T) is not a *FormatError", err, err)
			}
			if tt.wantOff >= 0 && fe.Off != tt.wantOff {
				t.Errorf("offset %#x, want %#x (%v)", fe.Off, tt.wantOff, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tt.wantMsg)
			}
		})
	}
}

// TestHugeCountDoesNotAllocate checks that a lying entry count is refused
// before anything is allocated for it.
func TestHugeCountDoesNotAllocate(t *testing.T) {
	data := le32(newBuilder(binary.LittleEndian, sample...).newFormat(), newCountOff, 0xfffffff0)
	old := le32(newBuilder(binary.LittleEndian, sample...).oldFormat(), 12, 0xfffffff0)
	for _, d := range [][]byte{data, old} {
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := Parse(d); err == nil {
				t.Fatal("Parse accepted a huge count")
			}
		})
		// Only the error value and its message.
		if allocs > 10 {
			t.Errorf("Parse made %v allocations for a lying count", allocs)
		}
	}
}

func TestLoadErrorsNameFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.cache")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) error %v does not name the file", err)
	}
	bad := filepath.Join(dir, "bad.cache")
	if err := os.WriteFile(bad, []byte("garbage, not a cache"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(bad)
	var fe *FormatError
	if err == nil || !strings.Contains(err.Error(), bad) || !errors.As(err, &fe) {
		t.Errorf("Load(bad) error %v should name the file and wrap a *FormatError", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(newBuilder(binary.LittleEndian, sample...).newFormat())
	f.Add(newBuilder(binary.BigEndian, sample...).newFormat())
	f.Add(newBuilder(binary.LittleEndian, sample...).oldFormat())
	f.Add(newBuilder(binary.LittleEndian, sample...).compatFormat(8))
	f.Add(newBuilder(binary.LittleEndian, sample[:3]...).compatFormat(4))
	f.Add([]byte(magicNew))
	f.Add([]byte(magicOld))
	if data, err := os.ReadFile("/etc/ld.so.cache"); err == nil && len(data) < 1<<20 {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			if c != nil {
				t.Fatal("non-nil cache with an error")
			}
			return
		}
		// Entries cannot outnumber what fits in the data.
		if len(c.Entries)*oldEntrySize > len(data) {
			t.Fatalf("%d entries from %d bytes", len(c.Entries), len(data))
		}
		for _, e := range c.Entries {
			if strings.IndexByte(e.Name, 0) >= 0 || strings.IndexByte(e.Path, 0) >= 0 {
				t.Fatalf("entry %+v holds a NUL", e)
			}
			c.Lookup(e.Name, elf.EM_X86_64, elf.ELFCLASS64)
			c.Lookup(e.Name, elf.EM_ARM, elf.ELFCLASS32)
		}
	})
}

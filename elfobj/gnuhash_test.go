package elfobj

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// hashLib is linked by every linker in TestHashLookupsMatchTheScan: enough
// exports for many buckets, one name in two versions (both in one chain),
// a protected and a weak definition, and undefined references (unhashed).
const hashLib = `
int printf(const char *, ...);
int puts(const char *);
extern int ext_counter;
__attribute__((visibility("protected"))) int prot(void) { return 1; }
__attribute__((weak)) int weakdef(void) { return 2; }
int old_api(void) { return 3; }
int new_api(void) { return printf("%d", ext_counter); }
__asm__(".symver old_api, api@V1");
__asm__(".symver new_api, api@@V2");
#define F(n) int fn##n(void) { return n + puts(""); }
#define T(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
T(1) T(2) T(3) T(4) T(5) T(6) T(7) T(8) T(9)
`

const hashLibVersions = "V1 { global: api; prot; weakdef; fn*; local: *; }; V2 { global: api; } V1;\n"

// tableFiles are the dynamic tables the readers are held to: hashLib
// linked by each linker (linkHashLib) and every ELF file of the system's
// library directory (Debian's packages, built by their own toolchains),
// each real file once.
func tableFiles(t *testing.T) []string {
	files := linkHashLib(t)
	system, _ := filepath.Glob(filepath.Join(systemLibDir, "*.so*"))
	if len(system) == 0 {
		testenv.Missing(t, "%s/*.so*", systemLibDir)
	}
	seen := map[string]bool{}
	for _, p := range system {
		if real, err := filepath.EvalSymlinks(p); err == nil && !seen[real] && IsELFFile(real) {
			seen[real] = true
			files = append(files, real)
		}
	}
	return files
}

// linkHashLib links hashLib with each linker, for x86_64 (through gcc) and
// i386 (the linker run on gcc -m32's object: 32-bit Bloom filter words),
// and returns the libraries.
func linkHashLib(t *testing.T) []string {
	t.Helper()
	testenv.NeedTools(t, "gcc")
	dir := t.TempDir()
	src, vers, obj32 := filepath.Join(dir, "h.c"), filepath.Join(dir, "h.map"), filepath.Join(dir, "h32.o")
	if err := os.WriteFile(src, []byte(hashLib), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vers, []byte(hashLibVersions), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(what string, args ...string) {
		if b, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, b)
		}
	}
	run("compiling for i386", "gcc", "-m32", "-fPIC", "-c", "-o", obj32, src)
	var libs []string
	for _, ld := range []string{"bfd", "gold", "lld", "mold"} {
		tool := map[string]string{"bfd": "ld.bfd", "gold": "ld.gold", "lld": "ld.lld", "mold": "mold"}[ld]
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Missing(t, "%s (to link with -fuse-ld=%s)", tool, ld)
			continue
		}
		out := filepath.Join(dir, "libh-"+ld+".so")
		run("linking with "+ld, "gcc", "-shared", "-fPIC", "-fuse-ld="+ld, "-Wl,--hash-style=gnu",
			"-Wl,--version-script="+vers, "-Wl,--allow-shlib-undefined", "-o", out, src)
		out32 := filepath.Join(dir, "libh-"+ld+"-i386.so")
		run("linking for i386 with "+ld, tool, "-m", "elf_i386", "-shared", "--hash-style=gnu",
			"--version-script="+vers, "-o", out32, obj32)
		libs = append(libs, out, out32)
	}
	return libs
}

// TestHashLookupsMatchTheScan holds the hash lookups (gnuhash.go) to the
// symbol-by-symbol scan on tables each linker wrote: hashLib linked here by
// bfd, gold, lld and mold, and every library of the system's library
// directory (Debian's packages, built by their own toolchains). The same
// names, asked for without a prefix (looked up) and with one (scanned),
// must keep the same symbols; and the lookups must have been used.
func TestHashLookupsMatchTheScan(t *testing.T) {
	files := tableFiles(t)
	looked := 0
	for _, path := range files {
		full, err := OpenFile(path, "", Options{})
		if err != nil || full.Type != elf.ET_DYN {
			continue
		}
		names, scanned := &symset.Set{}, &symset.Set{}
		scanned.AddPrefix("\x00") // no name starts with NUL: the set scans
		ask := func(n string) { names.Add(n); scanned.Add(n) }
		ask("etlink_no_such_symbol")
		for i, s := range full.Symbols {
			if i%10 == 0 { // defined and undefined: looked up and tested
				ask(s.Name)
			}
		}
		got, err := OpenFile(path, "", Options{Only: names})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		want, err := OpenFile(path, "", Options{Only: scanned})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(got.Symbols, want.Symbols) {
			t.Errorf("%s: looked up %d symbols, scanned %d:\n%v\nwant\n%v", path, len(got.Symbols), len(want.Symbols), got.Symbols, want.Symbols)
		}
		// Definitions only (OnlyDefs) of other names, defined and not.
		defs := &symset.Set{}
		for i := 5; i < len(full.Symbols); i += 10 {
			defs.Add(full.Symbols[i].Name)
		}
		got, err = OpenFile(path, "", Options{Only: names, OnlyDefs: defs})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		want, err = OpenFile(path, "", Options{Only: scanned, OnlyDefs: defs})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(got.Symbols, want.Symbols) {
			t.Errorf("%s, OnlyDefs: looked up %d symbols, scanned %d", path, len(got.Symbols), len(want.Symbols))
		}
		if usedLookups(t, path, names) {
			looked++
		} else if strings.Contains(path, "libh-") {
			t.Errorf("%s: the hash table was not used", path)
		}
	}
	if looked < len(files)/2 {
		t.Errorf("the hash table was used for %d of %d libraries", looked, len(files))
	}
}

// usedLookups reports whether reading path with Only: names looks the names
// up in its hash table.
func usedLookups(t *testing.T, path string, names *symset.Set) bool {
	t.Helper()
	ef, src, done, err := sourceOf(t, path)
	if err != nil {
		return false
	}
	defer done()
	dynsym := ef.SectionByType(elf.SHT_DYNSYM)
	if dynsym == nil || dynsym.Entsize == 0 {
		return false
	}
	tab := &dynTables{f: ef, src: src, bo: ef.ByteOrder, opt: Options{Only: names}}
	_, _, ok := tab.hashPicks(dynsym, int(dynsym.Size/dynsym.Entsize))
	return ok
}

// TestNameHashIsGNUHash: the name hash taken eight bytes at a time is
// symset.GNUHash of the name at every offset of a table: names of every
// length around the word size, bytes of every value (high bits set too),
// names that run to the table's end unterminated, and the empty name.
func TestNameHashIsGNUHash(t *testing.T) {
	var b strings.Builder
	seed := uint32(1)
	for n := range 40 {
		for range n {
			seed = seed*1664525 + 1013904223
			b.WriteByte(byte(seed>>24) | 1) // never a NUL inside a name
		}
		b.WriteByte(0)
	}
	b.WriteString("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs\x00\x00\xff\xfe\x80unterminated")
	tab := b.String()
	for off := range len(tab) + 2 {
		name := ""
		if off < len(tab) {
			name, _, _ = strings.Cut(tab[off:], "\x00")
		}
		if got, want := nameHash(tab, uint32(off)), symset.GNUHash(name); got != want {
			t.Fatalf("offset %d (%q): hash %#x, want %#x", off, name, got, want)
		}
	}
}

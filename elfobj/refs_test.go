package elfobj

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// readelfRefs reads, from readelf -rW and readelf --dyn-syms -W output, the
// dynamic symbol names the relocations name and those copy relocations
// name, as readelf spells them (foo@@V2, foo@V1, memcpy@GLIBC_2.14): the
// relocation's Info holds the symbol index, looked up in the listing.
func readelfRefs(t *testing.T, relocs, dynsyms string) (relocated, copied map[string]bool) {
	t.Helper()
	names := map[uint64]string{}
	for _, line := range strings.Split(dynsyms, "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !symIndex.MatchString(f[0]) {
			continue
		}
		n, _ := strconv.ParseUint(strings.TrimSuffix(f[0], ":"), 10, 64)
		names[n] = f[7]
	}
	relocated, copied = map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(relocs, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || !strings.HasPrefix(f[2], "R_") {
			continue
		}
		info, err := strconv.ParseUint(f[1], 16, 64)
		if err != nil {
			continue
		}
		idx := info >> 32
		if len(f[1]) <= 8 { // a 32-bit file's Info: index in the upper 24 bits
			idx = info >> 8
		}
		if idx == 0 {
			continue
		}
		name, ok := names[idx]
		if !ok {
			t.Fatalf("relocation names symbol %d, which readelf --dyn-syms does not list: %s", idx, line)
		}
		relocated[name] = true
		if strings.HasSuffix(f[2], "_COPY") {
			copied[name] = true
		}
	}
	return relocated, copied
}

// checkRefs compares o's relocation flags with readelf's answer.
func checkRefs(t *testing.T, o *Object, relocated, copied map[string]bool) {
	t.Helper()
	var diffs []string
	for i := range o.Symbols {
		s := &o.Symbols[i]
		if s.Relocated() != relocated[s.Versioned()] {
			diffs = append(diffs, s.Versioned()+" relocated="+strconv.FormatBool(s.Relocated()))
		}
		if s.Copied() != copied[s.Versioned()] {
			diffs = append(diffs, s.Versioned()+" copied="+strconv.FormatBool(s.Copied()))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Errorf("%s: relocation flags differ from readelf's (%d):\n  %s", o.Path, len(diffs), strings.Join(diffs, "\n  "))
	}
}

// TestFixtureReferences holds Relocated and Copied to the relocations
// readelf -rW lists for each fixture: prog's copy of exported_table on
// x86_64, the GOT and PLT entries everywhere.
func TestFixtureReferences(t *testing.T) {
	sawCopy := false
	for _, arch := range arches {
		for _, name := range []string{"libversioned.so.1", "librpath.so", "prog"} {
			t.Run(arch+"/"+name, func(t *testing.T) {
				file := filepath.Join("..", "testdata", "elf", arch, name)
				relocated, copied := readelfRefs(t, readExpect(t, arch, name+".relocs.txt"), readExpect(t, arch, name+".dyn-syms.txt"))
				for _, fast := range []bool{true, false} {
					f, err := os.Open(file)
					if err != nil {
						t.Fatal(err)
					}
					fi, _ := f.Stat()
					o, err := parse(file, "", f, fi.Size(), Options{References: true}, fast)
					f.Close()
					if err != nil {
						t.Fatal(err)
					}
					checkRefs(t, o, relocated, copied)
				}
				sawCopy = sawCopy || len(copied) > 0
			})
		}
	}
	if !sawCopy {
		t.Error("no fixture has a copy relocation: prog should copy exported_table on x86_64")
	}
}

// TestReferencesOnlyKeepsFlags checks that the flags land on the right
// symbols when Options.Only leaves most of the table out.
func TestReferencesOnlyKeepsFlags(t *testing.T) {
	file := filepath.Join("..", "testdata", "elf", "x86_64", "prog")
	only := &symset.Set{}
	only.Add("exported_table")
	only.Add("foo")
	o, err := OpenFile(file, "", Options{References: true, Only: only})
	if err != nil {
		t.Fatal(err)
	}
	relocated, copied := readelfRefs(t, readExpect(t, "x86_64", "prog.relocs.txt"), readExpect(t, "x86_64", "prog.dyn-syms.txt"))
	if len(o.Symbols) != 2 {
		t.Fatalf("kept %d symbols, want 2", len(o.Symbols))
	}
	checkRefs(t, o, relocated, copied)
}

// TestReferencesMatchReadelfOnSystemFiles compares the flags with readelf
// run now on real, large files of this machine: the interpreter (an
// executable with copy relocations) and the C++ runtime.
func TestReferencesMatchReadelfOnSystemFiles(t *testing.T) {
	testenv.NeedTools(t, "readelf")
	files := []string{"/usr/bin/python3", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libm.so.6"}
	testenv.NeedFiles(t, files...)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			relocs, err := exec.Command("readelf", "-rW", file).Output()
			if err != nil {
				t.Fatal(err)
			}
			dynsyms, err := exec.Command("readelf", "--dyn-syms", "-W", file).Output()
			if err != nil {
				t.Fatal(err)
			}
			relocated, copied := readelfRefs(t, string(relocs), string(dynsyms))
			o, err := OpenFile(file, "", Options{References: true})
			if err != nil {
				t.Fatal(err)
			}
			checkRefs(t, o, relocated, copied)
		})
	}
}

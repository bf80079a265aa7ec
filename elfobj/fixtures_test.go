package elfobj

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The fixtures in ../testdata/elf are built for x86_64 and aarch64 by
// testdata/build.sh, which also records what readelf, nm and ar say about
// each in expect/. These tests hold etlink's reading to binutils' answers.

var arches = []string{"x86_64", "aarch64"}

func readExpect(t *testing.T, arch, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "elf", arch, "expect", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var symIndex = regexp.MustCompile(`^[0-9]+:$`)

var dynLine = regexp.MustCompile(`\((NEEDED|SONAME|RUNPATH|RPATH)\)\s+\S+ \S+: \[(.*)\]`)

// TestFixtureDynamic compares SONAME, DT_NEEDED, RPATH and RUNPATH with readelf -d.
func TestFixtureDynamic(t *testing.T) {
	for _, arch := range arches {
		for _, name := range []string{"libversioned.so.1", "librpath.so", "prog"} {
			t.Run(arch+"/"+name, func(t *testing.T) {
				o, err := OpenFile(filepath.Join("..", "testdata", "elf", arch, name), "", Options{})
				if err != nil {
					t.Fatal(err)
				}
				if o.MachineName() != arch {
					t.Errorf("machine %s, want %s", o.MachineName(), arch)
				}
				var want, got []string
				for _, m := range dynLine.FindAllStringSubmatch(readExpect(t, arch, name+".readelf-d.txt"), -1) {
					want = append(want, m[1]+"="+m[2])
				}
				for _, n := range o.Needed {
					got = append(got, "NEEDED="+n)
				}
				if o.Soname != "" {
					got = append(got, "SONAME="+o.Soname)
				}
				if len(o.Runpath) > 0 {
					got = append(got, "RUNPATH="+strings.Join(o.Runpath, ":"))
				}
				if len(o.Rpath) > 0 {
					got = append(got, "RPATH="+strings.Join(o.Rpath, ":"))
				}
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("dynamic section:\n got %q\nwant %q", got, want)
				}
			})
		}
	}
}

// TestFixtureDynamicSymbols compares every dynamic symbol with readelf
// --dyn-syms -W: versioned name, type, binding, visibility, defined or not.
func TestFixtureDynamicSymbols(t *testing.T) {
	for _, arch := range arches {
		for _, name := range []string{"libversioned.so.1", "librpath.so", "prog"} {
			t.Run(arch+"/"+name, func(t *testing.T) {
				o, err := OpenFile(filepath.Join("..", "testdata", "elf", arch, name), "", Options{})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, line := range strings.Split(readExpect(t, arch, name+".dyn-syms.txt"), "\n") {
					f := strings.Fields(line)
					if len(f) < 8 || !symIndex.MatchString(f[0]) || f[0] == "0:" {
						continue
					}
					sym := f[7]
					if f[3] == "SECTION" {
						sym = "" // readelf prints the section's name; the symbol has none
					}
					if f[3] == "OBJECT" && f[6] == "ABS" && f[1] == strings.Repeat("0", len(f[1])) && !strings.Contains(sym, "@") {
						continue // a version definition, not a symbol
					}
					want = append(want, strings.Join([]string{sym, f[3], f[4], f[5], defined(f[6] != "UND")}, " "))
				}
				var got []string
				for i := range o.Symbols {
					s := &o.Symbols[i]
					got = append(got, strings.Join([]string{s.Versioned(), s.TypeName(), s.BindingName(), s.VisibilityName(), defined(s.Defined())}, " "))
				}
				sort.Strings(want)
				sort.Strings(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("dynamic symbols:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
				}
			})
		}
	}
}

func defined(d bool) string {
	if d {
		return "defined"
	}
	return "undefined"
}

// TestFixtureExports checks the Exported predicate on the symbols built to
// test it: hidden is not exported, protected, weak, unique, TLS and IFUNC are.
func TestFixtureExports(t *testing.T) {
	for _, arch := range arches {
		o, err := OpenFile(filepath.Join("..", "testdata", "elf", arch, "libversioned.so.1"), "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		exported := map[string]bool{}
		for i := range o.Symbols {
			if o.Symbols[i].Exported() {
				exported[o.Symbols[i].Versioned()] = true
			}
		}
		for _, s := range []string{"foo@V1", "foo@@V2", "protected_fn", "weak_fn", "_ZN8RegistryIiE5countE", "tls_counter", "ifunc_fn", "_Z5twiceIiET_S0_"} {
			if !exported[s] {
				t.Errorf("%s: %s not exported (exports: %v)", arch, s, exported)
			}
		}
		for _, s := range []string{"hidden_fn", "memcpy@GLIBC_2.14", "memcpy@GLIBC_2.17", "V1", "V2"} {
			if exported[s] {
				t.Errorf("%s: %s counted as exported", arch, s)
			}
		}
	}
}

// TestFixtureArchives compares archive members with ar t, and each member's
// global symbols with nm.
func TestFixtureArchives(t *testing.T) {
	for _, arch := range arches {
		for _, name := range []string{"libreg.a", "libthin.a"} {
			t.Run(arch+"/"+name, func(t *testing.T) {
				objs, errs := Open([]string{filepath.Join("..", "testdata", "elf", arch, name)}, Options{})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				var members []string
				got := map[string][]string{}
				for _, o := range objs {
					members = append(members, o.Member)
					for i := range o.Symbols {
						got[o.Member] = append(got[o.Member], o.Symbols[i].Name)
					}
				}
				if want := strings.Fields(readExpect(t, arch, name+".ar-t.txt")); strings.Join(members, " ") != strings.Join(want, " ") {
					t.Errorf("members %v, ar t says %v", members, want)
				}
				want := map[string][]string{}
				member := ""
				for _, line := range strings.Split(readExpect(t, arch, name+".nm.txt"), "\n") {
					f := strings.Fields(line)
					switch {
					case len(f) == 1 && strings.HasSuffix(f[0], ":"):
						member = strings.TrimSuffix(f[0], ":")
					case len(f) >= 2 && isGlobalLetter(f[len(f)-2]):
						want[member] = append(want[member], f[len(f)-1])
					}
				}
				for _, m := range members {
					sort.Strings(got[m])
					sort.Strings(want[m])
					if strings.Join(got[m], " ") != strings.Join(want[m], " ") {
						t.Errorf("%s: symbols %v, nm says %v", m, got[m], want[m])
					}
				}
			})
		}
	}
}

// isGlobalLetter: nm's upper-case letters, plus u/v/w, are non-local symbols.
func isGlobalLetter(l string) bool {
	return len(l) == 1 && (l[0] >= 'A' && l[0] <= 'Z' || l == "u" || l == "v" || l == "w")
}

package policy

import (
	"debug/elf"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/policy/internal/auditwheel"
)

func TestFor(t *testing.T) {
	ps := For(Glibc, "x86_64")
	if len(ps) < 10 || ps[0].Name != "manylinux_2_5_x86_64" || ps[0].Aliases[0] != "manylinux1_x86_64" {
		t.Fatalf("%d policies, first %+v", len(ps), ps[0].Name)
	}
	for i := 1; i < len(ps); i++ {
		if ps[i].Priority >= ps[i-1].Priority {
			t.Errorf("%s after %s: not the most compatible first", ps[i].Name, ps[i-1].Name)
		}
	}
	p217, ok := Claimed(Tag{Libc: Glibc, Major: 2, Minor: 17}, ps)
	if !ok || p217.Name != "manylinux_2_17_x86_64" || !p217.Versions["GLIBC"]["GLIBC_2.17"] || p217.Versions["GLIBC"]["GLIBC_2.18"] || !p217.Libraries["libc.so.6"] {
		t.Errorf("manylinux_2_17: %+v", p217.Name)
	}
	// A PEP 600 tag between two listed policies is held to the older.
	if p, ok := Claimed(Tag{Libc: Glibc, Major: 2, Minor: 30}, ps); !ok || p.Name != "manylinux_2_28_x86_64" {
		t.Errorf("manylinux_2_30 held to %s", p.Name)
	}
	if _, ok := Claimed(Tag{Libc: Glibc, Major: 2, Minor: 3}, ps); ok {
		t.Error("manylinux_2_3 is older than any policy")
	}
	musl := For(Musl, "aarch64")
	if len(musl) == 0 || !musl[0].Libraries["libc.musl-aarch64.so.1"] {
		t.Errorf("musllinux aarch64: %+v", musl)
	}
}

func TestParseTag(t *testing.T) {
	for in, want := range map[string]Tag{
		"manylinux_2_28_aarch64": {Libc: Glibc, Major: 2, Minor: 28, Arch: "aarch64"},
		"manylinux2014_x86_64":   {Libc: Glibc, Major: 2, Minor: 17, Arch: "x86_64"},
		"manylinux1_i686":        {Libc: Glibc, Major: 2, Minor: 5, Arch: "i686"},
		"musllinux_1_2_x86_64":   {Libc: Musl, Major: 1, Minor: 2, Arch: "x86_64"},
		"linux_armv7l":           {Arch: "armv7l"},
	} {
		got, ok := ParseTag(in)
		want.Text = in
		if !ok || got != want {
			t.Errorf("ParseTag(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"any", "win_amd64", "manylinux_2_x86_64", "manylinux_x_17_x86_64", "linux_"} {
		if _, ok := ParseTag(bad); ok {
			t.Errorf("ParseTag(%q) accepted", bad)
		}
	}
}

func TestArch(t *testing.T) {
	for _, tc := range []struct {
		m    elf.Machine
		c    elf.Class
		d    elf.Data
		want string
	}{
		{elf.EM_X86_64, elf.ELFCLASS64, elf.ELFDATA2LSB, "x86_64"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2LSB, "ppc64le"},
		{elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2MSB, "ppc64"},
		{elf.EM_S390, elf.ELFCLASS64, elf.ELFDATA2MSB, "s390x"},
		{elf.EM_ARM, elf.ELFCLASS32, elf.ELFDATA2LSB, "armv7l"},
		{elf.EM_386, elf.ELFCLASS32, elf.ELFDATA2LSB, "i686"},
		{elf.EM_MIPS, elf.ELFCLASS32, elf.ELFDATA2LSB, ""},
	} {
		if got := Arch(tc.m, tc.c, tc.d); got != tc.want {
			t.Errorf("Arch(%v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}

func TestVersionLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"GLIBC_2.9", "GLIBC_2.17", true}, {"GLIBC_2.17", "GLIBC_2.9", false}, {"GLIBC_2.2", "GLIBC_2.2.5", true}, {"GLIBCXX_3.4.30", "GLIBCXX_3.4.30", false},
		{"DM_1_02_97", "DM_1_02_100", true}, {"DM_1_02_100", "DM_1_02_97", false}, {"ALSA_0.9.0", "ALSA_0.9.0rc4", true}, {"ALSA_0.9.0rc4", "ALSA_0.9.0rc8", true},
		{"GLIBC_2.2.5", "GLIBC_PRIVATE", true}, {"GLIBC_PRIVATE", "GLIBC_2.2.5", false}, {"LIBFOO_1.010", "LIBFOO_1.9", false}, {"LIBFOO_1.09", "LIBFOO_1.9", false}} {
		if got := versionLess(tc.a, tc.b); got != tc.want {
			t.Errorf("versionLess(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// TestVersionLessOnTheSystemsVersions: versionLess orders every pair of the
// version names of one namespace the system's libraries define or need
// whose versions are numbers and dots (GLIBC_2.2.5, GLIBCXX_3.4.30, ...) as
// the comparison it replaced did (fmt.Sscan of each component, allocating
// each time); TestVersionLess holds the other spellings.
func TestVersionLessOnTheSystemsVersions(t *testing.T) {
	sscanLess := func(a, b string) bool {
		_, av, _ := strings.Cut(a, "_")
		_, bv, _ := strings.Cut(b, "_")
		as, bs := strings.Split(av, "."), strings.Split(bv, ".")
		for i := 0; i < len(as) && i < len(bs); i++ {
			if as[i] == bs[i] {
				continue
			}
			var x, y int
			_, errx := fmt.Sscan(as[i], &x)
			_, erry := fmt.Sscan(bs[i], &y)
			if errx != nil || erry != nil {
				return as[i] < bs[i]
			}
			return x < y
		}
		return len(as) < len(bs)
	}
	dotted := func(name string) bool {
		_, v, _ := strings.Cut(name, "_")
		return v != "" && strings.Trim(v, "0123456789.") == ""
	}
	libs, _ := filepath.Glob("/usr/lib/x86_64-linux-gnu/*.so*")
	seen := map[string]bool{}
	for _, p := range libs {
		f, err := elf.Open(p)
		if err != nil {
			continue
		}
		defs, _ := f.DynamicVersions()
		for _, d := range defs {
			seen[d.Name] = true
		}
		needs, _ := f.DynamicVersionNeeds()
		for _, n := range needs {
			for _, d := range n.Needs {
				seen[d.Dep] = true
			}
		}
		f.Close()
	}
	if len(seen) < 100 {
		testenv.Missing(t, "%d version names in /usr/lib/x86_64-linux-gnu, want 100 or more", len(seen))
	}
	names := slices.Sorted(maps.Keys(seen))
	for _, a := range names {
		for _, b := range names {
			if na, _, _ := strings.Cut(a, "_"); !strings.HasPrefix(b, na+"_") || !dotted(a) || !dotted(b) {
				continue // within a namespace (compareVersions), numbers and dots (what Sscan reads alike)
			}
			if got, want := versionLess(a, b), sscanLess(a, b); got != want {
				t.Errorf("versionLess(%s, %s) = %v, the Sscan comparison %v", a, b, got, want)
			}
		}
	}
	t.Logf("%d version names; each pair of one namespace in numbers and dots compared", len(names))
}

// TestTablesAreAuditwheels: tables.go holds what auditwheel's files say,
// every policy, alias, version, library and forbidden symbol, in their
// order (maps by key): go generate wrote it from them, and nobody edited
// either since without the other.
func TestTablesAreAuditwheels(t *testing.T) {
	libcs := map[Libc]string{Glibc: "manylinux-policy.json", Musl: "musllinux-policy.json"}
	if len(tables) != len(libcs) {
		t.Fatalf("tables for %d libcs, want %d", len(tables), len(libcs))
	}
	for _, lt := range tables {
		data, err := os.ReadFile(libcs[lt.libc])
		if err != nil {
			t.Fatal(err)
		}
		want, err := auditwheel.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		var got []auditwheel.Policy
		for _, p := range lt.policies {
			r := auditwheel.Policy{Name: p.name, Aliases: p.aliases, Priority: p.priority, Whitelist: p.whitelist,
				Versions: map[string]map[string][]string{}, Blacklist: map[string][]string{}}
			for _, v := range p.versions {
				r.Versions[v.arch] = map[string][]string{}
				for _, ns := range v.namespaces {
					bare := []string{}
					for _, name := range ns.versions {
						bare = append(bare, strings.TrimPrefix(name, ns.name+"_"))
					}
					r.Versions[v.arch][ns.name] = bare
				}
			}
			for _, b := range p.blacklist {
				r.Blacklist[b.library] = b.symbols
			}
			got = append(got, r)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: tables.go differs from %s: run go generate in policy/", lt.libc, libcs[lt.libc])
		}
	}
}

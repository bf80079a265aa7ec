package main

import (
	"debug/elf"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/policy"
)

// TestExternalLibrariesAgreeWithLoader builds the wheels of
// testdata/auditwheel (extensions needing Debian's libXNNPACK, which needs
// libcpuinfo and libpthreadpool; a library found through LD_LIBRARY_PATH
// that needs another through its $ORIGIN RUNPATH, needed directly, by a
// library the wheel ships, or through an absolute RUNPATH of the build
// machine, without LD_LIBRARY_PATH; a library that is nowhere) and holds etlink
// check's external libraries to glibc's loader: each library ldd maps for
// the extension, with LD_LIBRARY_PATH as --library-path gives it, that no
// manylinux policy allows and the wheel does not ship is listed, at the
// file ldd maps (or not found where ldd finds none), with the versions
// readelf -V says it needs, reached from the extension's own DT_NEEDED or
// through another listed library that needs it, breaking every policy.
func TestExternalLibrariesAgreeWithLoader(t *testing.T) {
	testenv.NeedTools(t, "bash", "gcc", "g++", "python3", "ldd", "readelf")
	testenv.NeedFiles(t, "/usr/include/xnnpack.h")
	dir := t.TempDir()
	sh(t, "../../testdata/auditwheel/build.sh", dir)
	libDir := filepath.Join(dir, "lib")
	policies := policy.For(policy.Glibc, "x86_64")
	allowed := policies[0].Libraries // the most compatible policy allows the fewest
	want := map[string]int{"xnnpack": 3, "chain": 2, "shipped": 2, "rpath": 2, "gone": 1, "clean": 0}
	for name, n := range want {
		t.Run(name, func(t *testing.T) {
			wheel := filepath.Join(dir, name+"-1.0-cp311-cp311-manylinux_2_17_x86_64.whl")
			ext := filepath.Join(dir, "build", name+".so")
			libDir := libDir
			if name == "rpath" {
				libDir = "" // its RUNPATH finds it
			}
			_, out, errs := runCLI(t, "check", wheel, "--library-path", libDir, "--format", "json", "-q", "--fail-on", "none")
			r := decodeReport(t, out)
			if len(r.Platforms) != 1 {
				t.Fatalf("platforms %+v (stderr %s)", r.Platforms, errs)
			}
			got := map[string]finding.ExternalLibrary{}
			for _, e := range r.Platforms[0].External {
				got[e.Soname] = e
			}
			mapped := lddMap(t, ext, libDir)
			var loader []string
			for soname := range mapped {
				if !allowed[soname] && soname != "libshipped.so" {
					loader = append(loader, soname)
				}
			}
			if len(loader) != n {
				t.Fatalf("ldd maps %d libraries no policy allows, %v; the build is not what the test expects", len(loader), loader)
			}
			for _, soname := range loader {
				e, ok := got[soname]
				if !ok {
					t.Errorf("ldd maps %s (%s); etlink lists %v", soname, mapped[soname], slices.Sorted(maps.Keys(got)))
					continue
				}
				checkExternal(t, e, mapped[soname], got, ext, len(policies))
			}
			for soname := range got {
				if _, ok := mapped[soname]; !ok {
					t.Errorf("etlink lists %s, which ldd does not map", soname)
				}
			}
		})
	}
	// A relative LD_LIBRARY_PATH is read from the current directory, and
	// $ORIGIN of a library found there with it (ldd maps libinner.so.1 as
	// lib/../inner/libinner.so.1; auditwheel does not find it).
	t.Chdir(dir)
	chain := "chain-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
	_, out, _ := runCLI(t, "check", chain, "--library-path", "lib", "--format", "json", "-q", "--fail-on", "none")
	var found []string
	for _, e := range decodeReport(t, out).Platforms[0].External {
		if e.Path != "" {
			found = append(found, e.Soname)
		}
	}
	if want := []string{"libinner.so.1", "libouter.so.1"}; !slices.Equal(found, want) {
		t.Errorf("--library-path lib: found %v; ldd maps %v", found, want)
	}
	_, text, _ := runCLI(t, "check", chain, "--library-path", "lib", "-q", "--fail-on", "none")
	if !strings.Contains(text, "external: libinner.so.1, libouter.so.1") {
		t.Errorf("the platform line does not name the external libraries:\n%s", text)
	}
	// tree reads --library-path as check does.
	_, tree, _ := runCLI(t, "tree", chain, "--library-path", "lib")
	for _, soname := range []string{"libouter.so.1", "libinner.so.1"} {
		if !strings.Contains(tree, soname+" => ") || strings.Contains(tree, soname+" => not found") {
			t.Errorf("tree --library-path lib does not find %s as ldd does:\n%s", soname, tree)
		}
	}
}

// checkExternal holds one external library to the file the loader maps
// (path, "" for not found) and to readelf.
func checkExternal(t *testing.T, e finding.ExternalLibrary, path string, all map[string]finding.ExternalLibrary, ext string, policies int) {
	t.Helper()
	if path == "" || e.Path == "" {
		if path != e.Path {
			t.Errorf("%s: etlink finds %q, ldd %q", e.Soname, e.Path, path)
		}
	} else if a, errA := os.Stat(e.Path); errA != nil {
		t.Errorf("%s: etlink finds %s: %v", e.Soname, e.Path, errA)
	} else if b, errB := os.Stat(path); errB != nil || !os.SameFile(a, b) {
		t.Errorf("%s: etlink finds %s, ldd maps %s", e.Soname, e.Path, path)
	}
	if len(e.Breaks) != policies || e.AllowedFrom != "" {
		t.Errorf("%s: breaks %v, allowed from %q; no policy allows it", e.Soname, e.Breaks, e.AllowedFrom)
	}
	needer := ext
	if e.Through != "" {
		through, ok := all[e.Through]
		if !ok {
			t.Errorf("%s: through %s, which is not listed", e.Soname, e.Through)
			return
		}
		needer = through.Path
	} else if !strings.HasSuffix(e.NeededBy, ".so") || !strings.Contains(e.NeededBy, "!") {
		t.Errorf("%s: needed by %s, not a wheel entry", e.Soname, e.NeededBy)
	}
	if e.Through != "" || !strings.HasSuffix(e.NeededBy, "libshipped.so") {
		if !slices.Contains(dtNeeded(t, needer), e.Soname) {
			t.Errorf("%s: reached through %s, whose DT_NEEDED does not name it", e.Soname, needer)
		}
	}
	if path == "" {
		return
	}
	if w := readelfNeeds(t, path); !equalNeeds(w, e.Versioned) {
		t.Errorf("%s: versions %v; readelf -V: %v", e.Soname, e.Versioned, w)
	}
}

// lddMap is what ldd maps for lib with LD_LIBRARY_PATH=libDir: soname ->
// path ("" for not found), the loader itself and the vDSO left out.
func lddMap(t *testing.T, lib, libDir string) map[string]string {
	t.Helper()
	cmd := exec.Command("ldd", lib)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+libDir) // "": none
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ldd %s: %v", lib, err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		soname, rest, ok := strings.Cut(strings.TrimSpace(line), " => ")
		if !ok || strings.HasPrefix(soname, "linux-vdso") || strings.HasPrefix(soname, "ld-linux") {
			continue
		}
		if path, _, _ := strings.Cut(rest, " ("); path != "not found" {
			m[soname] = path
		} else {
			m[soname] = ""
		}
	}
	return m
}

func dtNeeded(t *testing.T, path string) []string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	return libs
}

var (
	readelfFile = regexp.MustCompile(`File: (\S+)\s+Cnt:`)
	readelfName = regexp.MustCompile(`Name: (\S+)\s+Flags:`)
)

// readelfNeeds is the version needs section readelf -V prints for lib:
// library -> versions, the loader's left out.
func readelfNeeds(t *testing.T, lib string) map[string][]string {
	t.Helper()
	out, err := exec.Command("readelf", "-V", "-W", lib).Output()
	if err != nil {
		t.Fatalf("readelf -V %s: %v", lib, err)
	}
	_, needs, _ := strings.Cut(string(out), "Version needs section")
	m := map[string][]string{}
	file := ""
	for _, line := range strings.Split(needs, "\n") {
		if f := readelfFile.FindStringSubmatch(line); f != nil {
			file = f[1]
		} else if n := readelfName.FindStringSubmatch(line); n != nil && !strings.HasPrefix(file, "ld-linux") {
			m[file] = append(m[file], n[1])
		}
	}
	return m
}

// equalNeeds compares version needs whatever their order.
func equalNeeds(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for lib, vs := range a {
		if !slices.Equal(slices.Sorted(slices.Values(vs)), slices.Sorted(slices.Values(b[lib]))) {
			return false
		}
	}
	return true
}

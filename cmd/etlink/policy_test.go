package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestPlatformAgreesWithAuditwheel builds the wheels of testdata/policy
// (libraries needing GLIBC_2.17, 2.28 and 2.34, and libcrypt, for x86_64
// and aarch64, tagged right and wrong) and holds etlink check to
// auditwheel show's verdict on each, pinned in AUDITWHEEL.txt with the
// symbol versions readelf saw: the platform each is consistent with, and
// an ET406 error for exactly the manylinux tags that claim an older glibc
// than that.
func TestPlatformAgreesWithAuditwheel(t *testing.T) {
	testenv.NeedTools(t, "bash", "gcc", "aarch64-linux-gnu-gcc", "python3", "readelf")
	dir := t.TempDir()
	sh(t, "../../testdata/policy/build.sh", dir)
	data, err := os.ReadFile("../../testdata/policy/AUDITWHEEL.txt")
	if err != nil {
		t.Fatal(err)
	}
	wheels := map[string]string{} // wheel -> source, from WHEELS
	list, err := os.ReadFile("../../testdata/policy/WHEELS")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(list), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			wheels[f[0]] = f[1]
		}
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		n++
		wheel, want, versions := f[0], f[1], f[2]
		t.Run(wheel, func(t *testing.T) {
			arch := "x86_64"
			if strings.HasSuffix(wheel, "_aarch64.whl") {
				arch = "aarch64"
			}
			lib := filepath.Join(dir, "lib-"+wheels[wheel]+"-"+arch+".so")
			recorded := strings.Split(versions, ",")
			slices.Sort(recorded)
			if got := readelfVersions(t, lib); got != strings.Join(recorded, ",") {
				t.Fatalf("%s needs %s, but auditwheel judged a build needing %s: the toolchain builds something else; rerun testdata/policy/auditwheel.sh", lib, got, versions)
			}
			_, out, errs := runCLI(t, "check", filepath.Join(dir, wheel), "--format", "json", "-q")
			r := decodeReport(t, out)
			if len(r.Platforms) != 1 || r.Platforms[0].ConsistentWith != want {
				t.Fatalf("etlink: platforms %+v; auditwheel show: consistent with %s (stderr %s)", r.Platforms, want, errs)
			}
			var errors, wantErrors []string
			for _, f := range r.Findings {
				if f.Rule == "ET406" && f.Severity.String() == "error" {
					errors = append(errors, f.Subject.Target)
				}
			}
			tags := strings.Split(wheel[strings.LastIndexByte(wheel[:len(wheel)-4], '-')+1:len(wheel)-4], ".")
			for _, tag := range tags {
				if older(tag, want) {
					wantErrors = append(wantErrors, tag)
				}
			}
			slices.Sort(errors)
			slices.Sort(wantErrors)
			if !slices.Equal(errors, wantErrors) {
				t.Errorf("ET406 errors on %v; want them on exactly %v (consistent with %s)", errors, wantErrors, want)
			}
		})
	}
	if n != len(wheels) {
		t.Errorf("AUDITWHEEL.txt judges %d wheels, WHEELS lists %d: rerun testdata/policy/auditwheel.sh", n, len(wheels))
	}
}

var glibcTag = regexp.MustCompile(`^(?:manylinux_(\d+)_(\d+)|(manylinux1|manylinux2010|manylinux2014))_`)

// older reports whether manylinux tag claims an older glibc than the tag
// the wheel is consistent with (linux_ARCH: none is old enough).
func older(tag, consistent string) bool {
	glibc := func(s string) (int, bool) {
		m := glibcTag.FindStringSubmatch(s)
		if m == nil {
			return 0, false
		}
		if m[3] != "" {
			return map[string]int{"manylinux1": 5, "manylinux2010": 12, "manylinux2014": 17}[m[3]], true
		}
		minor, _ := strconv.Atoi(m[2])
		return minor, true
	}
	claimed, ok := glibc(tag)
	if !ok {
		return false // linux_ARCH claims no policy (a note)
	}
	needs, ok := glibc(consistent)
	return !ok || claimed < needs
}

// readelfVersions lists the versions lib needs, as readelf -V shows them,
// sorted.
func readelfVersions(t *testing.T, lib string) string {
	t.Helper()
	out, err := exec.Command("readelf", "-V", lib).Output()
	if err != nil {
		t.Fatalf("readelf -V %s: %v", lib, err)
	}
	var vers []string
	for _, m := range regexp.MustCompile(`Name: ([A-Z]+_[0-9.]+)`).FindAllStringSubmatch(string(out), -1) {
		vers = append(vers, m[1])
	}
	slices.Sort(vers)
	return strings.Join(slices.Compact(vers), ",")
}

package linkline

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// debianSpecs is `gcc -dumpspecs` of Debian 12's gcc 12.2 (testdata), whose
// *link: spec holds %{!fsanitize=*:--as-needed}.
func debianSpecs(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/gcc-12-debian.specs")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// upstreamSpecs are Debian's without the --as-needed patch, as a plain GCC
// build (Fedora, a self-built gcc) prints them.
func upstreamSpecs(t testing.TB) string {
	s := debianSpecs(t)
	out := strings.ReplaceAll(s, "%{!fsanitize=*:--as-needed}", "")
	if out == s {
		t.Fatal("testdata specs lost their --as-needed")
	}
	return out
}

// elfHeader is the start of a little-endian ELF64 file of type typ.
func elfHeader(typ uint16) []byte {
	b := make([]byte, 64)
	copy(b, "\x7fELF\x02\x01\x01")
	binary.LittleEndian.PutUint16(b[16:], typ)
	return b
}

// fakeLibDir writes a library dir: each name gets contents by its kind
// (.so ELF shared, .a archive, .o ELF relocatable, "script:" prefix text).
func fakeLibDir(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		var data []byte
		switch {
		case strings.HasPrefix(n, "script:"):
			n = n[len("script:"):]
			data = []byte("/* GNU ld script */\nGROUP ( /lib/libc.so.6 )\n")
		case strings.HasSuffix(n, ".a"):
			data = []byte("!<arch>\n")
		case strings.HasSuffix(n, ".o"):
			data = elfHeader(1)
		default:
			data = elfHeader(3)
		}
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// systemLibs is a stand-in for the driver's library dirs.
var systemLibs = []string{
	"libstdc++.so", "libstdc++.a", "script:libm.so", "libm.a", "script:libc.so", "libc.a",
	"script:libgcc_s.so", "libgcc.a", "libgcc_eh.a", "libasan.so", "libubsan.so", "libgomp.so",
}

// testOptions inject Debian's specs for every driver and a fake system
// library dir, so results do not depend on the machine.
func testOptions(t testing.TB, specs string) (Options, string) {
	sys := fakeLibDir(t, systemLibs...)
	return Options{
		Dir:        t.TempDir(),
		Specs:      func(string) (string, error) { return specs, nil },
		SearchDirs: func(string) []string { return []string{sys} },
	}, sys
}

// render writes inputs as "ARG kind state" lines, implicit ones with a
// leading "+", for compact table comparisons.
func render(in []Input, implicit bool) []string {
	var out []string
	for _, i := range in {
		if i.Implicit && !implicit {
			continue
		}
		s := fmt.Sprintf("%s %s %s", i.Arg, i.Kind, i.State)
		if i.Implicit {
			s = "+" + s
		}
		out = append(out, s)
	}
	return out
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

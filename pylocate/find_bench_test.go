package pylocate

import (
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// BenchmarkFind locates torch as a conflicts run does, with a cache: both
// default interpreters (python3 on PATH, then /usr/bin/python3), and the
// system interpreter alone.
func BenchmarkFind(b *testing.B) {
	testenv.NeedFiles(b, "/usr/bin/python3")
	for _, c := range []struct {
		name    string
		pythons []string
	}{{"default", nil}, {"system", []string{"/usr/bin/python3"}}} {
		b.Run(c.name, func(b *testing.B) {
			if _, err := Find("torch", c.pythons...); err != nil {
				b.Skip(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Find("torch", c.pythons...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPackageFilesTorch lists Debian's torch as a cold run does: the
// walk, and each directory's witness (nothing remembered: no CacheDir).
func BenchmarkPackageFilesTorch(b *testing.B) {
	const dir = "/usr/lib/python3/dist-packages/torch"
	testenv.NeedFiles(b, dir)
	saved := CacheDir
	CacheDir = ""
	defer func() { CacheDir = saved }()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PackageFiles(dir); err != nil {
			b.Fatal(err)
		}
	}
}

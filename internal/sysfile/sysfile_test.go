//go:build linux

package sysfile

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// tree makes a directory of every kind of entry: files, a directory, links
// to each and a dangling one, a FIFO, a socket, an unreadable directory,
// and enough long names that a read takes several calls.
func tree(t *testing.T) string {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "file.py"), []byte("x = 1\n"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.Symlink("file.py", filepath.Join(dir, "link-file")))
	must(os.Symlink("sub", filepath.Join(dir, "link-dir")))
	must(os.Symlink("gone", filepath.Join(dir, "link-dangling")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "closed"), 0o000))
	must(os.Mkdir(filepath.Join(dir, "sticky"), 0o755))
	must(os.Chmod(filepath.Join(dir, "sticky"), 0o775|os.ModeSticky|os.ModeSetgid))
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	many := filepath.Join(dir, "many")
	must(os.Mkdir(many, 0o755))
	for i := range 3 * Buffer / 200 {
		must(os.WriteFile(filepath.Join(many, fmt.Sprintf("%04d%s", i, strings.Repeat("n", 180))), nil, 0o644))
	}
	return dir
}

// TestAppendIsReadFile: Append reads what os.ReadFile reads, up to the
// limit, after what the buffer holds, and fails as os.Open fails.
func TestAppendIsReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 4095, 4096, 70000} {
		p := filepath.Join(dir, fmt.Sprint(size))
		data := bytes.Repeat([]byte("abcdefg\n"), size/8+1)[:size]
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{0, 10, 8192} {
			for _, limit := range []int{size + 1, size, size / 2} {
				got, err := Append(p, append(make([]byte, 0, c), "pre"...), 3+limit)
				if want := "pre" + string(data[:min(size, limit)]); err != nil || string(got) != want {
					t.Errorf("size %d, cap %d, limit %d: %d bytes, %v", size, c, limit, len(got), err)
				}
			}
		}
	}
	_, err := Append(filepath.Join(dir, "absent"), nil, 10)
	_, want := os.Open(filepath.Join(dir, "absent"))
	if err == nil || err.Error() != want.Error() {
		t.Errorf("absent: %v, want %v", err, want)
	}
}

// TestScanIsOsReadDir: Scan names os.ReadDir's entries with their types,
// and fails as it fails, on every kind of entry and on real directories.
func TestScanIsOsReadDir(t *testing.T) {
	dir := tree(t)
	dirs := []string{dir, filepath.Join(dir, "sub"), filepath.Join(dir, "many"), filepath.Join(dir, "closed"), filepath.Join(dir, "sticky"),
		filepath.Join(dir, "absent"), filepath.Join(dir, "file.py"), filepath.Join(dir, "link-dir"), filepath.Join(dir, "fifo"),
		"/dev", "/usr/lib/python3/dist-packages/torch"}
	for _, d := range dirs {
		var got []string
		info, _, err := Scan(d, nil, func(name []byte, typ fs.FileMode) { got = append(got, fmt.Sprintf("%s %v", name, typ)) })
		slices.Sort(got)
		if fi, err2 := os.Stat(d); err == nil && (err2 != nil || describeInfo(info) != describeInfo(fi)) {
			t.Errorf("%s: info %s, os.Stat %s", d, describeInfo(info), describeInfo(fi))
		}
		entries, wantErr := os.ReadDir(d)
		var want []string
		for _, e := range entries {
			want = append(want, fmt.Sprintf("%s %v", e.Name(), e.Type()))
		}
		if fmt.Sprint(got, err) != fmt.Sprint(want, wantErr) {
			t.Errorf("%s:\n%v %v\nos.ReadDir:\n%v %v", d, got, err, want, wantErr)
		}
		if d == filepath.Join(dir, "many") && len(got) < 3*Buffer/200 {
			t.Errorf("many: %d entries", len(got))
		}
	}
}

func describeInfo(fi fs.FileInfo) string {
	st := fi.Sys().(*syscall.Stat_t)
	return fmt.Sprintf("%s %d %v %v %v ino=%d ctime=%d", fi.Name(), fi.Size(), fi.Mode(), fi.ModTime(), fi.IsDir(), st.Ino, st.Ctim.Nano())
}

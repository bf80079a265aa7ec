package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHostileMaps runs etlink retention on linker maps a stranger's pull
// request can hold, beside a good build directory: a table repeating one
// line for hundreds of megabytes (a parser that kept each line ran out of
// memory), the same cut before its memory map, a table of distinct
// members (every one kept), and one line of a gigabyte. Each ends within 5 s under 1 GB; an error names the map; the
// good directory is still reported; the map is left as it was.
func TestHostileMaps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds etlink and runs it on maps of hundreds of megabytes")
	}
	fixture, err := os.ReadFile("../../linkmap/testdata/x86_64-bfd.map")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	good := filepath.Join(root, "good")
	writeTree(t, good, map[string]string{"CMakeFiles/ok.dir/link.txt": "/usr/bin/c++ -shared -o libok.so CMakeFiles/ok.dir/ok.o\n"})

	// The fixture's archive table repeats its first entry to 300 MB.
	i := bytes.Index(fixture, []byte("thin/thin_member.o"))
	j := bytes.Index(fixture, []byte("./libstatic.a(used.o)"))
	if i < 0 || j < 0 || j > i {
		t.Fatal("fixture map lacks its archive-member table")
	}
	head, entry, tail := fixture[:i], fixture[j:i], fixture[i:]
	cut := tail[:bytes.Index(tail, []byte("\nMerging"))+1]

	for _, c := range []struct {
		name string
		// write makes the map at p.
		write func(t *testing.T, p string)
		bad   string // what the error naming the map must say; "" for no error
	}{
		{"300 MB table of one entry", func(t *testing.T, p string) {
			writeRepeated(t, p, head, entry, tail, 300<<20)
		}, ""},
		{"300 MB table of one entry, cut", func(t *testing.T, p string) {
			writeRepeated(t, p, head, entry, cut, 300<<20)
		}, "truncated: the map ends before its memory map"},
		{"100 MB table of distinct members", func(t *testing.T, p string) {
			writeDistinct(t, p, head, tail, 100<<20)
		}, "more than 32 MiB of inputs"},
		{"one line of 1 GiB", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("Archive member included to satisfy reference by file (symbol)\n\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// A sparse file: the line is a gigabyte of NUL bytes on no disk.
			if err := os.Truncate(p, 1<<30); err != nil {
				t.Fatal(err)
			}
		}, "hostile.map:3: line longer than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "hostile.map")
			c.write(t, p)
			before, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			r := runHostile(t, "retention", p, good, "-q", "--format", "json")
			if r.elapsed > 5*time.Second {
				t.Errorf("took %v", r.elapsed)
			}
			if r.maxRSS > 1<<30 {
				t.Errorf("peak RSS %d MB", r.maxRSS>>20)
			}
			if c.bad != "" && (r.code != exitError || !strings.Contains(r.stderr, p) || !strings.Contains(r.stderr, c.bad)) {
				t.Errorf("exit %d, stderr %q; want exit 2 and an error naming %s and saying %q", r.code, r.stderr, p, c.bad)
			}
			if c.bad == "" && r.code == exitError {
				t.Errorf("exit 2 on a map that is no error: %s", r.stderr)
			}
			if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "fatal error") {
				t.Errorf("crashed: %s", r.stderr)
			}
			var report struct {
				Inputs []struct{ Path, Error string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
				t.Fatalf("no JSON report on stdout (%v): %q", err, r.stdout)
			}
			// The good input beside the map is still reported, and so is a
			// map that is no error.
			reported := func(path string) bool {
				for _, in := range report.Inputs {
					if in.Path == path && in.Error == "" {
						return true
					}
				}
				return false
			}
			if !reported(good) {
				t.Errorf("the good input %s beside the map is not reported: %+v", good, report.Inputs)
			}
			if c.bad == "" && !reported(p) {
				t.Errorf("the map is not reported as read: %+v", report.Inputs)
			}
			// Hashing the map would cost more than the run: its size and
			// time say it was not written.
			if after, err := os.Stat(p); err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("the map changed: %v", err)
			}
		})
	}
}

// writeRepeated writes head, body repeated to size bytes, then tail.
func writeRepeated(t *testing.T, p string, head, body, tail []byte, size int64) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 4<<20)
	w.Write(head)
	block := bytes.Repeat(body, 1<<20/len(body))
	for n := int64(0); n < size; n += int64(len(block)) {
		w.Write(block)
	}
	w.Write(tail)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeDistinct writes head, archive-table entries of distinct members to
// size bytes, then tail.
func writeDistinct(t *testing.T, p string, head, tail []byte, size int) {
	t.Helper()
	var b bytes.Buffer
	b.Grow(size + len(head) + len(tail) + 100)
	b.Write(head)
	for k := 0; b.Len() < size; k++ {
		b.WriteString("./libstatic.a(m")
		b.WriteString(strconv.Itoa(k))
		b.WriteString(".o)       main.o (used_fn(int))\n")
	}
	b.Write(tail)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

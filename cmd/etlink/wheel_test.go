package main

import (
	"archive/zip"
	"os"
	"sort"
	"testing"
)

// writeWheel assembles a wheel from files on disk: entry name -> (source, mode).
func writeWheel(t *testing.T, path string, entries map[string]wheelFile) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		e := entries[name]
		data, err := os.ReadFile(e.src)
		if err != nil {
			t.Fatal(err)
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type wheelFile struct {
	src  string
	mode os.FileMode
}

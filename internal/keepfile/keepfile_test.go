package keepfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: the file is made with its directory, replaced whole, and
// no temporary file is left beside it.
func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	p := filepath.Join(dir, "f")
	for _, data := range []string{"first, longer", "second"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != data {
			t.Fatalf("read back %q, %v; want %q", got, err, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries beside the file, want only it", len(entries)-1)
	}
	if err := Write(filepath.Join(p, "under-a-file"), nil); err == nil {
		t.Error("no error writing under a regular file")
	}
}

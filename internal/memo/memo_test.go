package memo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRememberedWhileWitnessesHold(t *testing.T) {
	dir := t.TempDir()
	in, absent := filepath.Join(dir, "in.py"), filepath.Join(dir, "later.py")
	write(t, in, "x = 1")
	s := Open(filepath.Join(t.TempDir(), "store"), 2)
	var got []string
	s.Put("k", []string{"a", "b"}, []string{in, absent, dir})
	if s.Get("k", &got) {
		t.Fatal("a value whose witnesses changed within the racy window was kept")
	}
	time.Sleep(2100 * time.Millisecond) // past keepfile.Racy: the change times too
	s.Put("k", []string{"a", "b"}, []string{in, absent, dir})
	if !s.Get("k", &got) || len(got) != 2 || got[1] != "b" {
		t.Fatalf("Get = %v, want the value put", got)
	}
	if s.Get("other", &got) {
		t.Error("answered another key")
	}
	write(t, absent, "") // a name looked for and not found appears
	if s.Get("k", &got) {
		t.Error("answered after a witness that was absent appeared")
	}
	os.Remove(absent)
	s.Put("k", []string{"c"}, []string{in})
	if !s.Get("k", &got) || got[0] != "c" {
		t.Fatalf("Get = %v after a second Put, want [c]", got)
	}
	if err := os.WriteFile(in, []byte("x = 2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Get("k", &got) {
		t.Error("answered after the file it was read from changed")
	}
}

func TestOffAndBroken(t *testing.T) {
	var got int
	off := Open("", 1)
	off.Put("k", 1, nil)
	if off.Get("k", &got) {
		t.Error("the store with no directory remembered")
	}
	s := Open(t.TempDir(), 1)
	if err := os.WriteFile(s.file("k"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Get("k", &got) {
		t.Error("a broken record answered")
	}
	s.Put("k", 7, nil)
	s.Put("j", 8, nil)
	if entries, _ := os.ReadDir(s.dir); len(entries) != 1 {
		t.Errorf("%d records kept, want the newest 1", len(entries))
	}
}

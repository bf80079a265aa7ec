package memo

import (
	"os"
	"path/filepath"
	"slices"
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
	t.Parallel() // its wait for keepfile.Racy overlaps TestLinkWitness's
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

// TestAbsentLeftToTheirDirectory: a name looked for and not found in a
// directory that is itself a witness is not stat'd again: the directory's
// times say whether anything was added to it (and nothing appears under
// what is absent).
func TestAbsentLeftToTheirDirectory(t *testing.T) {
	t.Parallel()
	type tree struct{ dir, sub, gone, nodir, deeper, elsewhere string }
	setup := func() tree {
		dir := t.TempDir()
		tr := tree{dir: dir, sub: filepath.Join(dir, "sub"), nodir: filepath.Join(dir, "nodir"),
			elsewhere: filepath.Join(t.TempDir(), "z", "w.py")}
		tr.gone, tr.deeper = filepath.Join(tr.sub, "x.py"), filepath.Join(tr.nodir, "y.py")
		if err := os.Mkdir(tr.sub, 0o755); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	trees := []tree{setup(), setup()}
	time.Sleep(2100 * time.Millisecond) // the trees' times past keepfile.Racy
	for i, appear := range []func(tr tree) string{
		func(tr tree) string { return tr.gone },  // a name in a directory listed
		func(tr tree) string { return tr.nodir }, // a directory looked for
	} {
		tr := trees[i]
		s := Open(filepath.Join(t.TempDir(), "store"), 2)
		s.Put("k", 1, []string{tr.dir, tr.sub, tr.gone, tr.nodir, tr.deeper, tr.elsewhere})
		data, err := os.ReadFile(s.file("k"))
		if err != nil {
			t.Fatal(err)
		}
		r, ok := decodeRecord(data, "k")
		if !ok {
			t.Fatal("the record put does not decode")
		}
		var kept []string
		for _, w := range r.Witnesses {
			kept = append(kept, w.Path)
		}
		if want := []string{tr.dir, tr.sub, tr.elsewhere}; !slices.Equal(kept, want) {
			t.Fatalf("witnesses %q, want %q", kept, want)
		}
		var got int
		if !s.Get("k", &got) {
			t.Fatal("not remembered")
		}
		p := appear(tr)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if s.Get("k", &got) {
			t.Errorf("answered after %s appeared", p)
		}
	}
}

// TestLinkWitness: a link retargeted is a change, though both targets are
// one file (hard links), which a witness that follows the link cannot
// tell apart.
func TestLinkWitness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, link := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "link")
	write(t, a, "x")
	if err := os.Link(a, b); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	s := Open(t.TempDir(), 4)
	time.Sleep(2100 * time.Millisecond) // past keepfile.Racy
	s.PutLinks("followed", "a", []string{link}, nil)
	s.PutLinks("link", "a", []string{link}, []string{link})
	var got string
	if !s.Get("followed", &got) || !s.Get("link", &got) || got != "a" {
		t.Fatal("values put were not remembered")
	}
	if err := os.Symlink(b, link+".new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(link+".new", link); err != nil {
		t.Fatal(err)
	}
	if !s.Get("followed", &got) {
		t.Error("the followed witness saw the retargeted link: the test tests nothing")
	}
	if s.Get("link", &got) {
		t.Error("answered after the link was retargeted")
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
	// An older etlink's record (JSON), valid in its format: no answer.
	if err := os.WriteFile(s.file("k"), []byte(`{"key":"k","value":5,"witnesses":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.Get("k", &got) {
		t.Error("a record of the JSON format answered")
	}
	s.Put("k", 7, nil)
	s.Put("j", 8, nil)
	if entries, _ := os.ReadDir(s.dir); len(entries) != 1 {
		t.Errorf("%d records kept, want the newest 1", len(entries))
	}
}

// TestRecordRoundTrip: a record decodes to what was encoded, for its key
// only, and no part of one (a file cut short) decodes.
func TestRecordRoundTrip(t *testing.T) {
	r := &record{Key: "read\x00k", Value: []byte(`{"a":[1,2]}`), Witnesses: []Witness{
		{Path: "/usr/lib/python3/x.py", Exists: true, Ino: 1 << 40, Size: 123, Mtime: 1764950000123456789, Changed: -1},
		{Path: "/l", Link: true},
		{Path: ""},
	}}
	data := r.encode()
	got, ok := decodeRecord(data, r.Key)
	if !ok || got.Key != r.Key || string(got.Value) != string(r.Value) || !slices.Equal(got.Witnesses, r.Witnesses) {
		t.Fatalf("decoded %+v, %v; want %+v", got, ok, r)
	}
	if _, ok := decodeRecord(data, "read"); ok {
		t.Error("decoded for another key")
	}
	for n := range len(data) - len(r.Value) {
		if _, ok := decodeRecord(data[:n], r.Key); ok {
			t.Errorf("the first %d of %d bytes decoded", n, len(data))
		}
	}
}

// FuzzDecodeRecord: a cache file is input like any other (damaged, cut
// short, another program's). Whatever its bytes, decoding returns, and
// a record it accepts encodes to a file that decodes to the same record.
func FuzzDecodeRecord(f *testing.F) {
	r := &record{Key: "k", Value: []byte(`{"a":1}`), Witnesses: []Witness{
		{Path: "/x", Exists: true, Ino: 5, Size: -1, Mtime: 3, Changed: 4}, {Path: "/l", Link: true}}}
	f.Add(r.encode(), "k")
	f.Add([]byte(recordMagic+"\x01k\xff\xff\xff\xff\x0f"), "k")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		got, ok := decodeRecord(data, key)
		if !ok {
			return
		}
		again, ok := decodeRecord(got.encode(), key)
		if !ok || again.Key != got.Key || string(again.Value) != string(got.Value) || !slices.Equal(again.Witnesses, got.Witnesses) {
			t.Fatalf("re-encoded %+v decoded as %+v, %v", got, again, ok)
		}
	})
}

// TestWitnessAsStatSaysIt: a witness taken by path is the one WitnessOfInfo
// makes of the FileInfo os.Stat (os.Lstat for a link) gives.
func TestWitnessAsStatSaysIt(t *testing.T) {
	dir := t.TempDir()
	f, link := filepath.Join(dir, "f"), filepath.Join(dir, "l")
	write(t, f, "some bytes")
	if err := os.Symlink(f, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, link, dir} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := WitnessOf(p), WitnessOfInfo(p, fi); got != want {
			t.Errorf("WitnessOf(%s) = %+v, want %+v", p, got, want)
		}
		if fi, err = os.Lstat(p); err != nil {
			t.Fatal(err)
		}
		want := WitnessOfInfo(p, fi)
		want.Link = true
		if got := LinkWitnessOf(p); got != want {
			t.Errorf("LinkWitnessOf(%s) = %+v, want %+v", p, got, want)
		}
	}
	if w := WitnessOf(filepath.Join(dir, "none")); w.Exists || w.Ino != 0 {
		t.Errorf("a path not there: %+v", w)
	}
}

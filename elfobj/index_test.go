package elfobj

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// libm is the system's libm.so.6, a library without hashLib's names.
func libm(t *testing.T) string {
	t.Helper()
	m, err := filepath.EvalSymlinks(filepath.Join(systemLibDir, "libm.so.6"))
	if err != nil {
		testenv.Missing(t, "libm.so.6") // fails in CI, skips elsewhere
	}
	return m
}

// ageIndexClock makes the racy rule see every file as old: the fixtures
// are made by the test itself, moments ago.
func ageIndexClock(t *testing.T) {
	indexNow = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { indexNow = time.Now })
}

// TestIndexAnswersAsTheRead holds the index to the read it stands for: for
// hashLib linked by every linker (64 and 32 bits) and every library of the
// system's library directory, a read with the index, once it has learnt
// the file, gives the same Object as a read without it (through OpenFile,
// as the loader's search reads, and Open, as inputs are), for names the
// library holds (defined and undefined: it is read), names it does not
// (answered from the index), definitions of a name it defines (read) and
// of one it only refers to (answered), and a PyInit_ name; and each case
// occurred for most libraries.
func TestIndexAnswersAsTheRead(t *testing.T) {
	ageIndexClock(t)
	files := tableFiles(t)
	absent := &symset.Set{}
	absent.Add("etlink_no_such_symbol")
	absent.Add("_ZN10executorch7runtime16register_backendERKNS0_7BackendE")
	x := OpenIndex("")
	answered, read, answeredRefs, fromPicks := 0, 0, 0, 0
	for _, path := range files {
		full, err := OpenFile(path, "", Options{})
		if err != nil || full.Type != elf.ET_DYN {
			continue
		}
		held := &symset.Set{}
		for i, s := range full.Symbols {
			if i%7 == 0 {
				held.Add(s.Name)
			}
		}
		// Definitions asked for: one the library has, and one name it only
		// refers to (answered from the index: it defines none).
		defined, referred := &symset.Set{}, &symset.Set{}
		for _, s := range full.Symbols {
			if s.Defined() && defined.Len() == 0 {
				defined.Add(s.Name)
			}
			if !s.Defined() && s.Name != "" && referred.Len() == 0 {
				referred.Add(s.Name)
			}
		}
		for _, opt := range []Options{
			{Only: absent},
			{Only: held},
			{Only: absent, OnlyDefs: defined},
			{Only: absent, OnlyDefs: referred},
			{Only: absent, ModuleInit: true},
		} {
			want, werr := OpenFile(path, "", opt)
			wantOpen, _ := Open([]string{path}, opt)
			opt.Index = x
			OpenFile(path, "", Options{Only: absent, Index: x}) // learns the file (or knows it)
			o, picks, known := x.lookup(path, realPath(path), fileIDOf(t, path), opt)
			switch {
			case !known:
				t.Errorf("%s: not learnt", path)
			case o != nil && len(o.Symbols) > 0:
				fromPicks++ // picked by an earlier read
			case o != nil:
				answered++
				if opt.OnlyDefs == referred && referred.Len() > 0 {
					answeredRefs++
				}
			case picks != nil && opt.Only == held && len(want.Symbols) > 0:
				read++ // it holds names asked for: read at the picks, which the index then holds
			}
			// The read the index answers, or reads at its picks; then the
			// one it answers from the symbols it picked, as it now holds them.
			for range 2 {
				got, gerr := OpenFile(path, "", opt)
				if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %+v: with the index %+v, %v; read %+v, %v", path, opt, got, gerr, want, werr)
				}
			}
			if picks != nil {
				if o, _, _ := x.lookup(path, realPath(path), fileIDOf(t, path), opt); o == nil {
					t.Errorf("%s, %+v: the symbols picked were read, and picked again", path, opt)
				} else if len(o.Symbols) > 0 {
					fromPicks++
				}
			}
			// Open (an input named, not a library searched for) asks it too.
			if gotOpen, _ := Open([]string{path}, opt); !reflect.DeepEqual(gotOpen, wantOpen) {
				t.Fatalf("%s, %+v: Open with the index %+v; read %+v", path, opt, gotOpen, wantOpen)
			}
		}
	}
	if answered < 100 || read < 100 || answeredRefs < 100 || fromPicks < 100 {
		t.Errorf("the index answered %d reads (%d asking definitions of names only referred to), passed %d on and answered %d from the symbols they picked: each must be tested",
			answered, answeredRefs, read, fromPicks)
	}
	t.Logf("%d reads answered from the index, %d passed on to the file, %d answered from the symbols they picked", answered, read, fromPicks)
}

func fileIDOf(t *testing.T, path string) fileID {
	t.Helper()
	f, _, id, err := openRegular(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	return id
}

// TestIndexSeesChanges: a library replaced (another inode), rewritten in
// place (another change time) or changed too recently to tell (racy) is
// read, not answered for from what the index knew: after each change the
// library defines the name asked for, and the read must find it.
func TestIndexSeesChanges(t *testing.T) {
	libs := linkHashLib(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.so")
	other := libs[0] // defines fn10
	for _, l := range libs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("fn10")) {
			t.Fatalf("%s: no fn10", l)
		}
	}
	plain, err := os.ReadFile(libm(t)) // a library without fn10
	if err != nil {
		t.Fatal(err)
	}
	names := &symset.Set{}
	names.Add("fn10")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(lib, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	has := func(x *Index) bool {
		t.Helper()
		o, err := OpenFile(lib, "", Options{Only: names, Index: x})
		if err != nil {
			t.Fatal(err)
		}
		return len(o.Symbols) > 0
	}
	withFn10, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}

	// Racy: learnt moments after a change, the file is not remembered.
	write(plain)
	x := OpenIndex("")
	has(x)
	if _, _, known := x.lookup(lib, realPath(lib), fileIDOf(t, lib), Options{Only: names}); known {
		t.Error("a file changed a moment ago was remembered")
	}

	ageIndexClock(t)
	for _, change := range []struct {
		name string
		do   func()
	}{
		{"rewritten in place", func() { write(withFn10) }},
		{"replaced by another file", func() {
			tmp := lib + ".new"
			if err := os.WriteFile(tmp, withFn10, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, lib); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		write(plain)
		x := OpenIndex("")
		if has(x) || has(x) {
			t.Fatalf("%s: libm holds fn10", change.name)
		}
		if _, _, known := x.lookup(lib, realPath(lib), fileIDOf(t, lib), Options{Only: names}); !known {
			t.Fatalf("%s: not learnt", change.name)
		}
		change.do()
		if !has(x) {
			t.Errorf("%s: the index answered for the old file", change.name)
		}
	}
}

// savedLibm reads libm for a name it does not hold, with an index saved
// to path: libm's path, the read's options, and what it read.
func savedLibm(t *testing.T, path string) (string, Options, *Object) {
	ageIndexClock(t)
	m := libm(t)
	names := &symset.Set{}
	names.Add("etlink_no_such_symbol")
	opt := Options{Only: names}
	x := OpenIndex(path)
	opt.Index = x
	want, err := OpenFile(m, "", opt)
	if err != nil {
		t.Fatal(err)
	}
	x.Save()
	return m, opt, want
}

// TestIndexFile: what Save writes, OpenIndex reads back, and answers from
// it; a file cut short, with a flipped bit, of another format or absent is
// an empty index (libraries are read), and Save writes it anew.
func TestIndexFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "symindex")
	m, opt, want := savedLibm(t, path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	known := func(x *Index) bool {
		_, _, k := x.lookup(m, realPath(m), fileIDOf(t, m), opt)
		return k
	}
	y := OpenIndex(path)
	if !known(y) {
		t.Fatal("the saved index does not know libm")
	}
	opt.Index = y
	if got, err := OpenFile(m, "", opt); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("from the saved index: %+v, %v; want %+v", got, err, want)
	}
	flipped := bytes.Clone(good)
	flipped[len(indexMagic)+6] ^= 0x10 // in libm's entry, not in its hashes
	for name, data := range map[string][]byte{
		"cut short":      good[:len(good)-9],
		"a bit flipped":  flipped,
		"another format": append([]byte("etlink symbol index 0\n"), good[len(indexMagic):]...),
		"empty":          {},
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		z := OpenIndex(path)
		if known(z) {
			t.Errorf("%s: the damaged index was used", name)
		}
		opt.Index = z
		if got, err := OpenFile(m, "", opt); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, want)
		}
		z.Save()
		if again, err := os.ReadFile(path); err != nil || !bytes.Equal(again, good) {
			t.Errorf("%s: not written anew (%v)", name, err)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if z := OpenIndex(path); known(z) {
		t.Error("an absent index knows libm")
	}
	damagedHashes(t, path, good, m, opt)
}

// damagedHashes: a bit flipped in a library's hashes (checked when first
// scanned, not when the file is read) leaves the answers the entry holds
// to a question asked before, which do not read them, and makes a new
// question read the library, and the index be written anew.
func damagedHashes(t *testing.T, path string, good []byte, m string, opt Options) {
	entries, ok := decodeWhole(good)
	e := entries[realPath(m)]
	if !ok || e == nil || len(e.hashes) == 0 {
		t.Fatal("no hashes of libm in the saved index")
	}
	flipped := bytes.Clone(good)
	flipped[bytes.Index(good, e.hashes)+len(e.hashes)/2] ^= 0x10
	if err := os.WriteFile(path, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	z := OpenIndex(path)
	if _, _, known := z.lookup(m, realPath(m), fileIDOf(t, m), opt); !known {
		t.Error("the question asked before is not answered (it reads no hash)")
	}
	other := opt
	other.Only = &symset.Set{}
	other.Only.Add("etlink_another_name")
	if _, _, known := z.lookup(m, realPath(m), fileIDOf(t, m), other); known {
		t.Error("a new question was answered from damaged hashes")
	}
	wantOther, err := OpenFile(m, "", other)
	if err != nil {
		t.Fatal(err)
	}
	other.Index = z
	if got, err := OpenFile(m, "", other); err != nil || !reflect.DeepEqual(got, wantOther) {
		t.Errorf("read with damaged hashes: %+v, %v; want %+v", got, err, wantOther)
	}
	z.Save()
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, ok = decodeWhole(again)
	if !ok || entries[realPath(m)] == nil || !bytes.Equal(entries[realPath(m)].hashes, e.hashes) || !entries[realPath(m)].hashesIntact() {
		t.Error("the index was not written anew with libm's hashes as read")
	}
}

// TestIndexFileCutShortWhileMapped: the index file is mapped; cut short
// in place after it was read (by a hand: Save replaces it), a lookup that
// reads it is a miss, not a crash: the library is read, and learnt again.
func TestIndexFileCutShortWhileMapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "symindex")
	m, opt, _ := savedLibm(t, path)
	var want *Object
	var err error
	y := OpenIndex(path)
	if _, _, known := y.lookup(m, realPath(m), fileIDOf(t, m), opt); !known {
		t.Fatal("the saved index does not know libm")
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	// Asked with other names: their picks are not known (recentPicks), so
	// the lookup scans the mapped hashes.
	other := opt
	other.Only = &symset.Set{}
	other.Only.Add("etlink_another_name")
	if _, _, known := y.lookup(m, realPath(m), fileIDOf(t, m), other); known {
		t.Error("answered from a file cut short")
	}
	if want, err = OpenFile(m, "", other); err != nil {
		t.Fatal(err)
	}
	other.Index = y
	if got, err := OpenFile(m, "", other); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("read with the index cut short: %+v, %v; want %+v", got, err, want)
	}
	y.Save() // libm, read again, is learnt again
	if _, _, known := OpenIndex(path).lookup(m, realPath(m), fileIDOf(t, m), other); !known {
		t.Error("the index saved after the read does not know libm")
	}
}

// FuzzDecodeIndex: no input makes decoding panic, allocate past the
// input's size, or accept bytes that are not a written index.
func FuzzDecodeIndex(f *testing.F) {
	e := &indexEntry{soname: "libx.so.1", needed: []string{"libc.so.6"}, runpath: []string{"$ORIGIN"}, hashes: []byte{2, 0, 0, 0, 4, 0, 0, 0},
		picked: appendPicked(nil, []pickedSymbol{{index: 0, Symbol: Symbol{Name: "f", SymVersion: &SymVersion{Version: "V1", Library: "libc.so.6"}, section: 12, bind: 1, typ: 2, Value: 16, Size: 8}, hasVersion: true},
			{index: 1, Symbol: Symbol{Name: "g", SymVersion: hiddenUnversioned}, hasVersion: true}, {index: 7, Symbol: Symbol{Name: "V1", section: uint16(elf.SHN_ABS)}}}),
		recent: []recentPicks{{query: [2]uint64{1, 2}, init: 5, picks: []int{0, 1}}, {query: [2]uint64{3, 4}}}}
	f.Add(encodeIndex(map[string]*indexEntry{"/lib/libx.so.1": e}, []string{"/lib/libx.so.1"},
		map[string]string{"/usr/lib/libx.so.1": "/lib/libx.so.1", "/lib/libgone.so": "/lib/libgone.so.2"}))
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, links, ok := decodeIndex(data)
		if !ok {
			return
		}
		// Entries are decoded when first asked about: one that decodes is
		// one written so; so is a block of the symbols it holds whole.
		for k, e := range entries {
			raw := e.raw
			var strs []byte
			if !decodeEntry(e, &strs) {
				continue
			}
			if again := entryFields(nil, k, e); !bytes.Equal(again, raw) {
				t.Errorf("entry %q decodes, and is written back as %q", raw, again)
			}
			if picked, ok := decodePicked(e.picked); ok {
				if again, ok := decodePicked(appendPicked(nil, picked)); !ok || !reflect.DeepEqual(again, picked) {
					t.Errorf("picked symbols %q decode as %+v, which are written back as %+v", e.picked, picked, again)
				}
			}
		}
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		if len(keys) > 1 {
			return // the order of a re-encoding is the map's
		}
		if again := encodeIndex(entries, keys, links); !bytes.Equal(again, data) {
			t.Errorf("decoded %q, which encodes as %q", data, again)
		}
	})
}

// TestPicksReadOfAFileCutShort: the index's picks of a large library are
// read where they lie (sparsePicks), and give what a whole read gives; cut
// short under a reader that opened it whole, the library is an error
// naming it, not a crash.
func TestPicksReadOfAFileCutShort(t *testing.T) {
	ageIndexClock(t)
	std, err := filepath.EvalSymlinks(filepath.Join(systemLibDir, "libstdc++.so.6"))
	if err != nil {
		testenv.Missing(t, "libstdc++.so.6")
		return
	}
	data, err := os.ReadFile(std)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(t.TempDir(), "libstdc++.so.6")
	if err := os.WriteFile(lib, data, 0o644); err != nil {
		t.Fatal(err)
	}
	names := &symset.Set{}
	names.Add("_ZNSt8ios_base4InitC1Ev")
	want, err := OpenFile(lib, "", Options{Only: names})
	if err != nil || len(want.Symbols) == 0 {
		t.Fatalf("a whole read: %v, %v", want, err)
	}
	// Learnt for other names: the index picks these, and holds none of them.
	x, other := OpenIndex(""), &symset.Set{}
	other.Add("etlink_no_such_symbol")
	if _, err := OpenFile(lib, "", Options{Only: other, Index: x}); err != nil {
		t.Fatal(err)
	}
	_, picks, known := x.lookup(lib, realPath(lib), fileIDOf(t, lib), Options{Only: names})
	if !known || len(picks) == 0 {
		t.Fatalf("the index: known %v, picks %v", known, picks)
	}
	ef, err := elf.Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	if !sparsePicks(ef, picks) {
		t.Fatalf("%d picks of libstdc++ are not read where they lie", len(picks))
	}
	parsePicks := func() (*Object, error) {
		file, size, _, err := openRegular(lib)
		if err != nil {
			t.Fatal(err)
		}
		h, size, err := readHead(lib, file, size)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if err := os.Truncate(lib, size/2); err != nil {
			t.Fatal(err)
		}
		return Parse(lib, filepath.Dir(lib), h.headReader, size, Options{Only: names, picks: picks})
	}
	got, err := OpenFile(lib, "", Options{Only: names, Index: x})
	if err != nil || !reflect.DeepEqual(got.Symbols, want.Symbols) {
		t.Errorf("the picks read: %+v, %v; want %+v", got, err, want.Symbols)
	}
	if o, err := parsePicks(); err == nil || !strings.Contains(err.Error(), lib) {
		t.Errorf("cut short while read: %+v, %v; want an error naming %s", o, err, lib)
	}
}

// TestIndexForgetsWhatIsGone: a save keeps the entries this run used and
// those of files still as they were, and drops those of files removed or
// changed since (else the index would grow with every upgrade).
func TestIndexForgetsWhatIsGone(t *testing.T) {
	ageIndexClock(t)
	m := libm(t)
	lib, err := os.ReadFile(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	names := &symset.Set{}
	names.Add("etlink_no_such_symbol")
	path := filepath.Join(dir, "symindex")
	libs := map[string]string{}
	for _, n := range []string{"kept", "removed", "changed", "new"} {
		libs[n] = filepath.Join(dir, "lib"+n+".so")
		if n != "new" {
			if err := os.WriteFile(libs[n], lib, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	x := OpenIndex(path)
	for _, n := range []string{"kept", "removed", "changed"} {
		if _, err := OpenFile(libs[n], "", Options{Only: names, Index: x}); err != nil {
			t.Fatal(err)
		}
	}
	x.Save()
	if err := os.Remove(libs["removed"]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(libs["changed"], append(lib, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(libs["new"], lib, 0o644); err != nil {
		t.Fatal(err)
	}
	y := OpenIndex(path)
	if _, err := OpenFile(libs["new"], "", Options{Only: names, Index: y}); err != nil {
		t.Fatal(err)
	}
	y.Save()
	z := OpenIndex(path)
	<-z.loaded
	var got []string
	for k := range z.entries {
		got = append(got, filepath.Base(k))
	}
	slices.Sort(got)
	if want := []string{"libkept.so", "libnew.so"}; !slices.Equal(got, want) {
		t.Errorf("entries after the second save: %q, want %q", got, want)
	}
}

// TestIndexCapped: entries past indexMax are left out of the file, those
// first in the order given (the run's own) kept, each with every link to
// it or not at all (a link left out alone would be found, and the file
// written, again by every run), and the file stays one that decodes.
func TestIndexCapped(t *testing.T) {
	big := func() *indexEntry { return &indexEntry{hashes: make([]byte, indexMax/4)} }
	entries := map[string]*indexEntry{"/a": big(), "/b": big(), "/c": big(), "/d": {hashes: []byte{1, 0, 0, 0}}}
	links := map[string]string{"/l/a": "/a", "/l/c": "/c", "/l/d": "/d"}
	for range 5000 { // 2.5 MB of links to /b: with it, past the cap
		links[strings.Repeat("/long", 100)+strconv.Itoa(len(links))] = "/b"
	}
	data := encodeIndex(entries, []string{"/a", "/b", "/c", "/d"}, links)
	if len(data) > indexMax {
		t.Errorf("%d bytes, over indexMax", len(data))
	}
	got, gotLinks, ok := decodeIndex(data)
	if !ok || len(got) != 1 || got["/a"] == nil {
		t.Errorf("decoded %d entries (ok %v), want /a alone: /b with its links does not fit, nor what comes after it", len(got), ok)
	}
	if len(gotLinks) != 1 || gotLinks["/l/a"] != "/a" {
		t.Errorf("decoded the links %d links, want /l/a alone", len(gotLinks))
	}
	delete(entries, "/b")
	got, gotLinks, ok = decodeIndex(encodeIndex(entries, []string{"/a", "/c", "/d"}, links))
	if !ok || len(got) != 3 || len(gotLinks) != 3 {
		t.Errorf("without /b: %d entries, %d links (ok %v), want all three with their links", len(got), len(gotLinks), ok)
	}
}

// TestResolveThroughLinks: a symlink the search followed to a file the
// index knows is resolved, in a later run, by one stat, to that file; not
// once the link leads to another file, or the file changed.
func TestResolveThroughLinks(t *testing.T) {
	ageIndexClock(t)
	fx := compiled(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "libfix.so.1.2")
	other := filepath.Join(dir, "libother.so.1.2")
	link := filepath.Join(dir, "libfix.so.1")
	for _, p := range []string{real, other} {
		if err := os.WriteFile(p, fx.soData, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("libfix.so.1.2", link); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index")
	only := &symset.Set{}
	only.Add("etlink_no_such_symbol")
	x := OpenIndex(path)
	x.Link(filepath.Join(dir, "libnone.so"), other) // no entry for it: not saved
	if _, err := OpenFile(link, real, Options{Only: only, Index: x}); err != nil {
		t.Fatal(err)
	}
	x.Link(link, real)
	x.Save()

	resolve := func() (string, bool) {
		real, fi, ok := OpenIndex(path).Resolve(link)
		if ok && (fi == nil || !fi.Mode().IsRegular()) {
			t.Errorf("resolved to %s with %v", real, fi)
		}
		return real, ok
	}
	if got, ok := resolve(); !ok || got != real {
		t.Fatalf("Resolve(%s) = %q, %v; want %s", link, got, ok, real)
	}
	if _, _, ok := OpenIndex(path).Resolve(filepath.Join(dir, "libnone.so")); ok {
		t.Error("a link to a file the index holds no entry for was saved")
	}
	// Another file behind the link (a new inode), then the link as it was
	// and the file's contents rewritten in place.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libother.so.1.2", link); err != nil {
		t.Fatal(err)
	}
	if got, ok := resolve(); ok {
		t.Errorf("a link to another file resolved to %s", got)
	}
	os.Remove(link)
	if err := os.Symlink("libfix.so.1.2", link); err != nil {
		t.Fatal(err)
	}
	if _, ok := resolve(); !ok {
		t.Error("the link as it was is not resolved")
	}
	if err := os.WriteFile(real, fx.soData, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, ok := resolve(); ok {
		t.Errorf("a link to a file written since resolved to %s", got)
	}
}

// TestPickedSymbolsSaved: the symbols a read picked are saved with the
// index, and a later run's index answers the same read from them, as the
// file would.
func TestPickedSymbolsSaved(t *testing.T) {
	ageIndexClock(t)
	m := libm(t)
	full, err := OpenFile(m, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	only, defs := &symset.Set{}, &symset.Set{}
	for i, s := range full.Symbols {
		switch {
		case i%5 == 0:
			only.Add(s.Name)
		case i%5 == 1:
			defs.Add(s.Name)
		}
	}
	opt := Options{Only: only, OnlyDefs: defs}
	want, err := OpenFile(m, "", opt)
	if err != nil || len(want.Symbols) == 0 {
		t.Fatalf("%s read for %d names: %d symbols, %v", m, only.Len()+defs.Len(), len(want.Symbols), err)
	}
	path := filepath.Join(t.TempDir(), "index")
	opt.Index = OpenIndex(path)
	for range 2 { // learnt, then read at the picks
		if _, err := OpenFile(m, "", opt); err != nil {
			t.Fatal(err)
		}
	}
	opt.Index.Save()
	opt.Index = OpenIndex(path)
	if o, _, _ := opt.Index.lookup(m, realPath(m), fileIDOf(t, m), opt); o == nil {
		t.Fatal("the saved index does not answer from the symbols picked")
	}
	if got, err := OpenFile(m, "", opt); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("answered from the saved picks: %+v, %v; the file gives %+v", got, err, want)
	}
}

// FuzzDecodePicked: no block of picked symbols makes decoding panic or
// allocate past its size, and what one decodes to is written back as a
// block that decodes to it (a count may have been written longer than
// binary.AppendUvarint writes it).
func FuzzDecodePicked(f *testing.F) {
	f.Add(appendPicked(nil, []pickedSymbol{{index: 3, Symbol: Symbol{Name: "f", SymVersion: &SymVersion{Version: "V1", Hidden: true, Library: "libc.so.6"}, Value: 1, Size: 2}, hasVersion: true},
		{index: 9, Symbol: Symbol{Name: "g", SymVersion: hiddenUnversioned, section: 5, bind: 1, typ: 2, vis: 3}}}))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		picked, ok := decodePicked(data)
		if !ok {
			return
		}
		again, ok := decodePicked(appendPicked(nil, picked))
		if !ok || !reflect.DeepEqual(again, picked) {
			t.Errorf("%q decodes as %+v, which is written back as %+v (%v)", data, picked, again, ok)
		}
		// A read finds each in the table, decoding it alone.
		// So does a read of some of them in order, each found past the
		// last: every one, every other one, every third one.
		tab, _ := readPickedTable(data)
		for _, p := range picked {
			if got, _, ok := tab.find(p.index, 0, &sharedVersions{}); !ok || !reflect.DeepEqual(got, p) {
				t.Errorf("%q: found %+v (%v) for %d, decoded with the others as %+v", data, got, ok, p.index, p)
			}
		}
		for every := 1; every <= 3; every++ {
			at := 0
			for j := 0; j < len(picked); j += every {
				p := picked[j]
				got, k, ok := tab.find(p.index, at, &sharedVersions{})
				if !ok || !reflect.DeepEqual(got, p) {
					t.Errorf("%q: found %+v (%v) for %d from record %d, decoded with the others as %+v", data, got, ok, p.index, at, p)
				}
				at = k + 1
			}
		}
	})
}

// TestNameHashesAreTheNames: the hashes the index keeps are each symbol's
// GNU hash (what ld.so computes for a name), low bit for defined, whether
// taken from the library's hash table or from the name: held to debug/elf's
// reading of the symbols of libm and libstdc++.
func TestNameHashesAreTheNames(t *testing.T) {
	for _, lib := range []string{libm(t), filepath.Join(systemLibDir, "libstdc++.so.6")} {
		f, err := elf.Open(lib)
		if err != nil {
			testenv.Missing(t, "%s: %v", lib, err)
		}
		syms, err := f.DynamicSymbols()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		only := &symset.Set{}
		only.Add("etlink_no_such_symbol")
		ageIndexClock(t)
		x := OpenIndex("")
		if _, err := OpenFile(lib, "", Options{Only: only, Index: x}); err != nil {
			t.Fatal(err)
		}
		e := x.entries[realPath(lib)]
		if e == nil || len(e.hashes) != 4*len(syms) {
			t.Fatalf("%s: not learnt, or not a hash for each of its %d symbols", lib, len(syms))
		}
		for i, s := range syms {
			want := symset.GNUHash(s.Name) &^ 1
			if s.Section != elf.SHN_UNDEF {
				want |= 1
			}
			if got := binary.LittleEndian.Uint32(e.hashes[4*i:]); got != want {
				t.Fatalf("%s: symbol %d %q: hash %#x, want %#x", lib, i+1, s.Name, got, want)
			}
		}
	}
}

// decodeWhole decodes an index file and all its entries; ok is false when
// the file or an entry does not decode.
func decodeWhole(data []byte) (map[string]*indexEntry, bool) {
	entries, _, ok := decodeIndex(data)
	var strs []byte
	for _, e := range entries {
		ok = ok && decodeEntry(e, &strs)
	}
	return entries, ok
}

// TestLearningReadIsTheRead: the read that teaches the index a library,
// which reads only the names of the symbols it picks (learnSymbols), gives
// the Object a read without the index gives, for hashLib linked by every
// linker and an eighth of the libraries of the system's library directory:
// a few of its names asked (looked up in its hash table), all of them
// (every symbol tested), and definitions with a PyInit_ name; and the
// index learnt it.
func TestLearningReadIsTheRead(t *testing.T) {
	ageIndexClock(t)
	learnt, kept := 0, 0
	for i, path := range tableFiles(t) {
		if strings.HasPrefix(path, systemLibDir) && i%8 != 0 {
			continue
		}
		full, err := OpenFile(path, "", Options{})
		if err != nil || full.Type != elf.ET_DYN {
			continue
		}
		few, all, defs := &symset.Set{}, &symset.Set{}, &symset.Set{}
		for i, s := range full.Symbols {
			all.Add(s.Name)
			if i%97 == 0 {
				few.Add(s.Name)
			}
			if i%5 == 0 {
				defs.Add(s.Name)
			}
		}
		for _, opt := range []Options{{Only: few}, {Only: all}, {Only: few, OnlyDefs: defs, ModuleInit: true}} {
			want, werr := OpenFile(path, "", opt)
			opt.Index = OpenIndex("")
			got, gerr := OpenFile(path, "", opt)
			if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, %+v: learning, %+v, %v; read without the index %+v, %v", path, opt, got, gerr, want, werr)
			}
			if opt.Index.entries[realPath(path)] != nil {
				learnt++
			}
			if want != nil && len(want.Symbols) > 0 {
				kept++
			}
		}
	}
	if learnt < 100 || kept < 100 {
		t.Errorf("%d reads learnt their library, %d kept symbols: too few to tell", learnt, kept)
	}
	t.Logf("%d reads learnt their library, %d kept symbols", learnt, kept)
}

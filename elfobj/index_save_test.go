package elfobj

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/etlink/etlink/symset"
)

// libmCopies copies libm into dir under each name: each copy is another
// file to the index, with libm's symbols.
func libmCopies(t *testing.T, dir string, names ...string) []string {
	t.Helper()
	lib, err := os.ReadFile(libm(t))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, lib, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// pickingOptions ask for names libm defines and refers to, and one it
// lacks: a read picks symbols, which the index keeps whole.
func pickingOptions() Options {
	only, defs := &symset.Set{}, &symset.Set{}
	for _, n := range []string{"cos", "sinf", "__errno_location", "etlink_no_such_symbol"} {
		only.Add(n)
	}
	defs.Add("exp")
	return Options{Only: only, OnlyDefs: defs}
}

// untouched is a modification time no write gives the index file:
// indexRun sets it before a run, and a file that still has it after was
// not written.
var untouched = time.Unix(1e9, 0)

// indexRun is one etlink run's use of the index kept at path: opened,
// asked for files with opt (each also reached by a link, as the loader
// reaches a library by its soname), saved. It returns the objects read,
// how many of the files the index did not answer, and whether Save wrote
// the file.
func indexRun(t *testing.T, path string, opt Options, files []string) (objs []*Object, reads int64, wrote bool) {
	t.Helper()
	if err := os.Chtimes(path, untouched, untouched); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	x := OpenIndex(path)
	opt.Index = x
	for _, f := range files {
		x.Link(f+".link", f)
		o, err := OpenFile(f, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	x.Save()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return objs, x.Reads(), !fi.ModTime().Equal(untouched)
}

// indexed returns the files the index at path holds, by base name.
func indexed(t *testing.T, path string) map[string]bool {
	t.Helper()
	x := OpenIndex(path)
	<-x.loaded
	out := map[string]bool{}
	for k := range x.entries {
		out[filepath.Base(k)] = true
	}
	return out
}

// TestIndexSettlesInOneRun: the first run learns all the next asks of the
// index (each file's hashes, the symbols they pick kept whole, the picks
// themselves), so that the second run of the same inputs reads no file and
// leaves the index file as it was, as does every run after it.
func TestIndexSettlesInOneRun(t *testing.T) {
	ageIndexClock(t)
	dir := t.TempDir()
	files := libmCopies(t, dir, "liba.so", "libb.so", "mod.cpython-311-x86_64-linux-gnu.so")
	path := filepath.Join(dir, "cache", "symindex")
	opt := pickingOptions()
	opt.ModuleInit = true // the module's PyInit_ name picked too
	if _, reads, wrote := indexRun(t, path, opt, files); reads != 3 || !wrote {
		t.Fatalf("the cold run read %d files and wrote the index: %v; want 3, true", reads, wrote)
	}
	for run := 2; run <= 3; run++ {
		if _, reads, wrote := indexRun(t, path, opt, files); reads != 0 || wrote {
			t.Errorf("run %d read %d files and wrote the index: %v; want 0, false", run, reads, wrote)
		}
	}
}

// TestIndexNotRewrittenAtTheCap: when a run's files do not all fit under
// indexMax, the file keeps those that fit, each with its links; the next
// runs of the same inputs read the others again but write nothing (the
// file would come out as it is), where each used to write the same file
// again.
func TestIndexNotRewrittenAtTheCap(t *testing.T) {
	ageIndexClock(t)
	dir := t.TempDir()
	files := libmCopies(t, dir, "liba.so", "libb.so", "libc.so")
	opt := pickingOptions()
	whole := filepath.Join(dir, "whole")
	indexRun(t, whole, opt, files)
	fi, err := os.Stat(whole)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { indexMax = n }(indexMax)
	indexMax = int(fi.Size()) - 1 // one link short of all three
	path := filepath.Join(dir, "capped")
	if _, reads, wrote := indexRun(t, path, opt, files); reads != 3 || !wrote {
		t.Fatalf("the cold run read %d files and wrote the index: %v; want 3, true", reads, wrote)
	}
	if got := indexed(t, path); len(got) != 2 {
		t.Errorf("the capped index holds %v, want two of the three files", got)
	}
	for run := 2; run <= 4; run++ {
		if _, reads, wrote := indexRun(t, path, opt, files); reads != 1 || wrote {
			t.Errorf("run %d read %d files and wrote the index: %v; want the one left out read, nothing written", run, reads, wrote)
		}
	}
}

// TestIndexStableEviction: two working sets that each fit under indexMax,
// but not together, run in turn (a a b b a a b): each change of the set
// writes the index once, keeping the files that run used (the others go
// first), and the run after it, of the same set, reads nothing and writes
// nothing.
func TestIndexStableEviction(t *testing.T) {
	ageIndexClock(t)
	dir := t.TempDir()
	sets := map[string][]string{
		"a": libmCopies(t, dir, "liba1.so", "liba2.so", "liba3.so"),
		"b": libmCopies(t, dir, "libb1.so", "libb2.so", "libb3.so"),
	}
	opt := pickingOptions()
	one := filepath.Join(dir, "one")
	indexRun(t, one, opt, sets["a"])
	fi, err := os.Stat(one)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { indexMax = n }(indexMax)
	indexMax = int(fi.Size()) * 3 / 2
	path := filepath.Join(dir, "symindex")
	prev := ""
	for i, set := range []string{"a", "a", "b", "b", "a", "a", "b"} {
		_, reads, wrote := indexRun(t, path, opt, sets[set])
		if changed := set != prev; wrote != changed || (reads == 0) == changed {
			t.Errorf("run %d (%s after %q): read %d files, wrote the index: %v; want reads and a write only when the set changed", i+1, set, prev, reads, wrote)
		}
		got := indexed(t, path)
		for _, f := range sets[set] {
			if !got[filepath.Base(f)] {
				t.Errorf("run %d (%s): %s, which it used, is not kept (the index holds %v)", i+1, set, filepath.Base(f), got)
			}
		}
		if len(got) >= 6 {
			t.Errorf("run %d: the index holds %d files, past its cap", i+1, len(got))
		}
		prev = set
	}
}

// TestIndexAnswersAlikeInEveryState: the objects a run reads are the same
// whatever the index holds: none (no index), nothing yet (cold), this
// run's files (warm), or other files up to its cap, this run's own not
// all fitting (full).
func TestIndexAnswersAlikeInEveryState(t *testing.T) {
	ageIndexClock(t)
	dir := t.TempDir()
	files := append(libmCopies(t, dir, "liba.so", "libb.so", "mod.cpython-311-x86_64-linux-gnu.so"), libm(t))
	others := libmCopies(t, dir, "libx1.so", "libx2.so", "libx3.so")
	opt := pickingOptions()
	opt.ModuleInit = true
	var want []*Object
	for _, f := range files {
		o, err := OpenFile(f, "", opt)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, o)
	}
	check := func(state string, got []*Object) {
		t.Helper()
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s: %s reads as %+v, without the index as %+v", state, files[i], got[i], want[i])
			}
		}
	}
	warm := filepath.Join(dir, "warm")
	got, _, _ := indexRun(t, warm, opt, files)
	check("cold", got)
	got, reads, _ := indexRun(t, warm, opt, files)
	check("warm", got)
	if reads != 0 {
		t.Errorf("warm: %d files read, want none", reads)
	}
	fi, err := os.Stat(warm)
	if err != nil {
		t.Fatal(err)
	}
	defer func(n int) { indexMax = n }(indexMax)
	indexMax = int(fi.Size()) * 3 / 4
	full := filepath.Join(dir, "full")
	indexRun(t, full, opt, others)
	got, _, _ = indexRun(t, full, opt, files)
	check("full of other files", got)
	got, reads, _ = indexRun(t, full, opt, files)
	check("full", got)
	if reads == 0 || reads == int64(len(files)) {
		t.Errorf("full: %d of %d files read, want those past the cap alone", reads, len(files))
	}
}

// TestIndexSavedConcurrently: runs saving one index at once (processes
// sharing the default cache) leave a file that decodes and answers as the
// files read; each save replaces the file whole, the last one's staying.
func TestIndexSavedConcurrently(t *testing.T) {
	ageIndexClock(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "symindex")
	opt := pickingOptions()
	var runs [][]string
	for i := range 4 {
		runs = append(runs, libmCopies(t, dir, "liba"+strconv.Itoa(i)+".so", "libb"+strconv.Itoa(i)+".so"))
	}
	var wg sync.WaitGroup
	for _, files := range runs {
		wg.Go(func() {
			x := OpenIndex(path)
			o := opt
			o.Index = x
			for _, f := range files {
				if _, err := OpenFile(f, "", o); err != nil {
					t.Error(err)
				}
			}
			x.Save()
		})
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, ok := decodeIndex(data)
	if !ok || len(entries) < 2 {
		t.Fatalf("after concurrent saves the index decodes: %v, with %d entries; want a good file of one run at least", ok, len(entries))
	}
	y := OpenIndex(path)
	for _, files := range runs {
		for _, f := range files {
			want, err := OpenFile(f, "", opt)
			if err != nil {
				t.Fatal(err)
			}
			o := opt
			o.Index = y
			got, err := OpenFile(f, "", o)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s from the index saved concurrently: %+v, %v; want %+v", f, got, err, want)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".symindex.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

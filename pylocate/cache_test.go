package pylocate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/memo"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pylocate-cache")
	if err != nil {
		panic(err)
	}
	CacheDir = filepath.Join(dir, "pylocate") // never the user's
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// countingPython is an interpreter that answers the locating script as
// Python does (directory, program, sys.path, NUL-separated; the first two
// empty when it cannot import the package) and counts how often it ran.
func countingPython(t *testing.T, site string, finds bool) (python, count string) {
	t.Helper()
	count = filepath.Join(t.TempDir(), "count")
	answer := `printf '\000\000%s\n' "$SITE"; echo "ModuleNotFoundError: No module named 'torch'" >&2; exit 1`
	if finds {
		answer = `printf '%s/torch\000/usr/bin/python3.11\000%s\n' "$SITE" "$SITE"`
	}
	version := `case "$2" in *metadata*) echo 2.1.0; exit;; esac` // the version question is not counted
	return fakePython(t, version+"\nSITE="+site+"\necho run >> "+count+"\n"+answer), count
}

// cacheIn points CacheDir at a directory of the test's own until it ends,
// so that no later test writes into one already removed.
func cacheIn(t *testing.T) {
	prev := CacheDir
	CacheDir = t.TempDir()
	t.Cleanup(func() { CacheDir = prev })
}

func runs(t *testing.T, count string) int {
	t.Helper()
	data, _ := os.ReadFile(count)
	return strings.Count(string(data), "run")
}

// TestFindRemembers: an answer is reused while its witnesses stand (the
// interpreter is not started again, failures included), and asked again
// once a sys.path directory changes or the environment does.
func TestFindRemembers(t *testing.T) {
	cacheIn(t)
	site := t.TempDir()
	shim, shimRuns := countingPython(t, t.TempDir(), false)
	good, goodRuns := countingPython(t, site, true)

	first, err := Find("torch", shim, good)
	if err != nil {
		t.Fatal(err)
	}
	if first.Remembered || first.Dir != site+"/torch" || len(first.Skipped) != 1 {
		t.Fatalf("first Find = %+v", first)
	}
	second, err := Find("torch", shim, good)
	if err != nil {
		t.Fatal(err)
	}
	if !second.Remembered || second.Dir != first.Dir || second.Executable != first.Executable || second.Version != "2.1.0" ||
		len(second.Skipped) != 1 || second.Skipped[0].Err != first.Skipped[0].Err {
		t.Errorf("second Find = %+v, want the first's answer, remembered", second)
	}
	if runs(t, shimRuns) != 1 || runs(t, goodRuns) != 1 {
		t.Errorf("interpreters ran %d and %d times, want once each", runs(t, shimRuns), runs(t, goodRuns))
	}

	// A file no import of torch could take leaves the answer standing.
	if err := os.WriteFile(filepath.Join(site, "unrelated.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if again, err := Find("torch", shim, good); err != nil || !again.Remembered {
		t.Errorf("after an unrelated file: %+v, %v, want the answer remembered", again, err)
	}
	// An install into the site directory changes it: the interpreter of that
	// site is asked again (the shim's answer stands).
	if err := os.WriteFile(filepath.Join(site, "new.pth"), []byte("/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if third, err := Find("torch", shim, good); err != nil || third.Remembered || runs(t, goodRuns) != 2 {
		t.Errorf("after a change to sys.path: %+v, %v, %d runs", third, err, runs(t, goodRuns))
	}
	// So does another environment.
	t.Setenv("PYTHONPATH", "/elsewhere")
	if fourth, err := Find("torch", shim, good); err != nil || fourth.Remembered || runs(t, goodRuns) != 3 || runs(t, shimRuns) != 2 {
		t.Errorf("with PYTHONPATH set: %+v, %v, %d and %d runs", fourth, err, runs(t, shimRuns), runs(t, goodRuns))
	}
}

// TestCacheBrokenOrOff: a cache file that is not etlink's is an empty
// cache; with no cache file nothing is remembered.
func TestCacheBrokenOrOff(t *testing.T) {
	cacheIn(t)
	good, goodRuns := countingPython(t, t.TempDir(), true)
	if err := os.WriteFile(recordFile(cacheKey("torch", good)), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := Find("torch", good); err != nil {
			t.Fatal(err)
		}
	}
	if runs(t, goodRuns) != 1 {
		t.Errorf("ran %d times over a broken cache, want 1 (then remembered)", runs(t, goodRuns))
	}
	CacheDir = ""
	for range 2 {
		if res, err := Find("torch", good); err != nil || res.Remembered {
			t.Fatalf("no cache: %+v, %v", res, err)
		}
	}
	if runs(t, goodRuns) != 3 {
		t.Errorf("ran %d times, want 3", runs(t, goodRuns))
	}
}

// TestFindStopsAtTheRememberedAnswer: behind a remembered answer no
// interpreter is started, and one after it is never remembered with a
// version it was not asked for.
func TestFindStopsAtTheRememberedAnswer(t *testing.T) {
	cacheIn(t)
	first, firstRuns := countingPython(t, t.TempDir(), true)
	second, secondRuns := countingPython(t, t.TempDir(), true)
	for range 3 {
		res, err := Find("torch", first, second)
		if err != nil || res.Python != first || res.Version != "2.1.0" {
			t.Fatalf("Find = %+v, %v", res, err)
		}
	}
	if runs(t, firstRuns) != 1 || runs(t, secondRuns) != 1 {
		t.Errorf("interpreters ran %d and %d times over three Finds, want once each", runs(t, firstRuns), runs(t, secondRuns))
	}
	// Alone, the second is asked, and answers with its own version.
	res, err := Find("torch", second)
	if err != nil || res.Remembered || res.Version != "2.1.0" || runs(t, secondRuns) != 2 {
		t.Errorf("the second alone: %+v, %v, %d runs", res, err, runs(t, secondRuns))
	}
}

// TestPackageFilesRemembered: a listing is remembered with the directories
// walked as witnesses, used while none of them changed (shown by a file
// added behind a directory time stamp set back), and walked again when one
// did; a directory changed within keepfile.Racy keeps it from being stored.
func TestPackageFilesRemembered(t *testing.T) {
	cacheIn(t)
	dir := t.TempDir()
	touch := func(rel string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := func() string {
		t.Helper()
		files, err := PackageFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range files {
			files[i] = strings.TrimPrefix(f, dir+"/")
		}
		return strings.Join(files, " ")
	}
	touch("a/_x.abi3.so")
	if got := list(); got != "a/_x.abi3.so" {
		t.Fatalf("listing %q", got)
	}
	remembered := func() bool {
		var files []string
		return memo.Open(CacheDir, maxRecords).Get(filesKey(dir), &files)
	}
	if remembered() {
		t.Fatal("a listing of directories changed just now was remembered")
	}
	clock = func() time.Time { return time.Now().Add(time.Hour) } // the directories are old now
	t.Cleanup(func() { clock = time.Now })
	list() // remembered now
	if !remembered() {
		t.Fatal("a listing of settled directories was not remembered")
	}
	if got := list(); got != "a/_x.abi3.so" {
		t.Errorf("with every witness as it was: %q, want the remembered listing", got)
	}
	touch("a/_y.abi3.so")
	// Setting the time stamp back does not hide the change: the change
	// time moved.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a"), old, old); err != nil {
		t.Fatal(err)
	}
	if got := list(); got != "a/_x.abi3.so a/_y.abi3.so" {
		t.Errorf("after a change hidden by its modification time: %q, want a new walk", got)
	}
	touch("b/_z.abi3.so") // dir's own time stamp moves
	if got := list(); got != "a/_x.abi3.so a/_y.abi3.so b/_z.abi3.so" {
		t.Errorf("after a change: %q, want a new walk", got)
	}
}

// TestWitnessOfAnUnchangedDirectory: a sys.path directory whose change time
// is as it was is not listed again (a witness whose names were tampered
// with still stands); one changed is, and stands while the names an import
// of the package could take are the same; one changed within keepfile.Racy
// of being listed is listed every time.
func TestWitnessOfAnUnchangedDirectory(t *testing.T) {
	site := t.TempDir()
	if w := witnessEntries(site, "torch"); w.Changed != 0 {
		t.Errorf("a directory changed a moment ago: %+v, want no change time kept", w)
	}
	clock = func() time.Time { return time.Now().Add(time.Hour) }
	t.Cleanup(func() { clock = time.Now })
	w := witnessEntries(site, "torch")
	if w.Changed == 0 {
		t.Fatalf("%+v: no change time kept", w)
	}
	tampered := w
	tampered.Names = "not the names"
	if tampered.now() != tampered {
		t.Error("an unchanged directory was listed again")
	}
	if err := os.WriteFile(filepath.Join(site, "unrelated.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if w.now() != w {
		t.Errorf("after an unrelated file: %+v, want %+v", w.now(), w)
	}
	if tampered.now() == tampered {
		t.Error("a changed directory was not listed again")
	}
	if err := os.Mkdir(filepath.Join(site, "torch"), 0o755); err != nil {
		t.Fatal(err)
	}
	if w.now() == w {
		t.Error("a new torch directory left the witness standing")
	}
}

// TestRecordsTrimmed: past maxRecords answers, the ones written longest ago
// are dropped, the others kept.
func TestRecordsTrimmed(t *testing.T) {
	cacheIn(t)
	for i := range maxRecords + 3 {
		remember(&record{Key: fmt.Sprintf("k%03d", i), Dir: "/x"})
		at := time.Now().Add(time.Duration(i-maxRecords-3) * time.Minute)
		if err := os.Chtimes(recordFile(fmt.Sprintf("k%03d", i)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	remember(&record{Key: "last", Dir: "/x"})
	for _, key := range []string{"k000", "k001", "k002", "k003"} {
		if _, err := os.Stat(recordFile(key)); err == nil {
			t.Errorf("%s, among the oldest, was kept", key)
		}
	}
	for _, key := range []string{"k004", "last"} {
		if findRecord(key) == nil {
			t.Errorf("%s was dropped", key)
		}
	}
}

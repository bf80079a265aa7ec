package analyze

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/memo"
)

// TestPlanRememberedUntilItsSourcesChange: a package's import plan is read
// once, answered from the store while every file the reading consulted is
// unchanged, and read again when one changes or a module it looked for
// appears.
func TestPlanRememberedUntilItsSourcesChange(t *testing.T) {
	dir := t.TempDir()
	saved := planStore
	planStore = memo.Open(dir, 8)
	t.Cleanup(func() { planStore = saved })

	root := t.TempDir()
	pkg := filepath.Join(root, "pkg")
	write := func(rel, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(pkg, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("__init__.py", "import ctypes\nctypes.CDLL('libfirst.so', mode=ctypes.RTLD_GLOBAL)\nfrom . import _native\n")
	write("_native.so", "")
	objs := []*elfobj.Object{{Path: filepath.Join(pkg, "_native.so")}}
	time.Sleep(2100 * time.Millisecond) // older than keepfile.Racy: rememberable

	first := ReadPythonPlan([]string{pkg}, objs)
	if len(first.Roots) == 0 {
		t.Fatalf("plan %+v: want the CDLL and the extension", first)
	}
	records, _ := os.ReadDir(dir)
	if len(records) != 1 {
		t.Fatalf("%d records after a read, want 1", len(records))
	}
	before, _ := records[0].Info()
	if second := ReadPythonPlan([]string{pkg}, objs); !reflect.DeepEqual(first, second) {
		t.Errorf("remembered plan %+v differs from the plan read %+v", second, first)
	}
	// Answered, not read again: the record is not rewritten (a rename
	// would give it another file).
	if after, err := os.Stat(filepath.Join(dir, records[0].Name())); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the record was rewritten by a run that learnt nothing")
	}
	write("__init__.py", "from . import _native\n")
	changed := ReadPythonPlan([]string{pkg}, objs)
	if reflect.DeepEqual(first, changed) {
		t.Errorf("the plan was answered from the store after __init__.py changed: %+v", changed)
	}
}

package analyze

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/memo"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/pyload"
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

// openRecorder notes every name opened, as recordingFS did before it read
// into buffers: the names a reading consults through fs.File.
type openRecorder struct {
	fs.FS
	names map[string]bool
}

func (o *openRecorder) Open(name string) (fs.File, error) {
	o.names[name] = true
	return o.FS.Open(name)
}

// TestRecordingFSNotesWhatFSFileReads: reading through recordingFS (into
// buffers, listings by os.ReadDir) gives the plans of a reading through
// fs.File and notes the same names, the plan's witnesses: Debian's torch.
func TestRecordingFSNotesWhatFSFileReads(t *testing.T) {
	const dist = "/usr/lib/python3/dist-packages"
	testenv.NeedFiles(t, filepath.Join(dist, "torch", "__init__.py"))
	natives := []string{"torch/lib/libtorch_global_deps.so", "torch/_C.cpython-311-x86_64-linux-gnu.so"}
	rec := &recordingFS{dirFS: dirFS(dist)}
	got := pyload.Read(rec, "torch", natives)
	open := &openRecorder{FS: os.DirFS(dist), names: map[string]bool{}}
	want := pyload.Read(open, "torch", natives)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("plans through recordingFS %+v, through fs.File %+v", got, want)
	}
	if !maps.Equal(rec.names, open.names) || len(rec.names) < 100 {
		t.Errorf("recordingFS noted %d names, fs.File read %d", len(rec.names), len(open.names))
	}
}

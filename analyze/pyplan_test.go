package analyze

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/memo"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/pyload"
	"github.com/etlink/etlink/pylocate"
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

// TestPlanAheadIsReadPythonPlan: a package's plan read beside its files
// (from the paths listed) is the plan read for the objects afterwards: on
// Debian's torch, every listed file an object, the plan read ahead; on a
// package with a listed extension module that is not ELF (which makes a
// module matter that reaches a CDLL: pyload reads more with it than
// without), the plan read again for the objects.
func TestPlanAheadIsReadPythonPlan(t *testing.T) {
	saved := planStore
	planStore = memo.Open("", 8) // each plan read, none answered
	t.Cleanup(func() { planStore = saved })

	pkg := filepath.Join(t.TempDir(), "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	lib, err := os.ReadFile(filepath.Join(demo, "torch/lib/libtorch_cpu.so"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"__init__.py":                          "from . import helper\n",
		"helper.py":                            "from . import _ext\nfrom . import deeper\n",
		"deeper.py":                            "import ctypes, os\nctypes.CDLL(os.path.join(os.path.dirname(__file__), 'lib', 'libdeps.so'), mode=ctypes.RTLD_GLOBAL)\n",
		"lib/libdeps.so":                       string(lib),
		"_ext.cpython-311-x86_64-linux-gnu.so": "not ELF\n",
	} {
		if err := os.WriteFile(filepath.Join(pkg, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		dir         string
		readForObjs bool // a listed file is no object: the plan is read again
	}{{"/usr/lib/python3/dist-packages/torch", false}, {pkg, true}} {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			if !c.readForObjs {
				testenv.NeedFiles(t, filepath.Join(c.dir, "__init__.py"))
			}
			files, err := pylocate.PackageFiles(c.dir)
			if err != nil {
				t.Fatal(err)
			}
			var ahead *planAhead
			objs, _ := NewLoader(nil, nil).OpenInputs(files, nil, func(paths []string) { ahead = readPlanAhead(c.dir, paths) })
			if ahead == nil {
				t.Fatal("no plan read ahead")
			}
			tree, _ := openPlanTree(c.dir)
			if same := slices.Equal(ahead.natives, nativesOf(tree.objects(objs))); same == c.readForObjs {
				t.Errorf("natives listed %v, of the objects read %v", ahead.natives, nativesOf(tree.objects(objs)))
			}
			got, want := ahead.plan(objs), ReadPythonPlan([]string{c.dir}, objs)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("plan read ahead %+v, read for the objects %+v", got, want)
			}
			if !c.readForObjs && len(want.Roots) == 0 {
				t.Errorf("torch's plan has no roots: %+v", want)
			}
		})
	}
}

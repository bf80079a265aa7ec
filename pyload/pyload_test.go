package pyload

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/etlink/etlink/internal/ldoracle"
	"github.com/etlink/etlink/internal/testenv"
)

func steps(p Plan) []string {
	var out []string
	for _, s := range p.Steps {
		mode := "local"
		if s.Global {
			mode = "global"
		}
		out = append(out, strings.TrimSpace(s.Path+s.Name+" "+mode+" "+s.Cond))
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot  %q\nwant %q", what, got, want)
	}
}

// graph-tool's dl_import (Debian's python3-graph-tool 2.45): a helper sets
// RTLD_GLOBAL around exec() of an import statement its caller hands it.
func TestDlImportHelper(t *testing.T) {
	fsys := fstest.MapFS{
		"gt/__init__.py": {Data: []byte(`
import numpy
from .dl_import import *
dl_import("from . import libgraph_tool_core as libcore")
__version__ = libcore.mod_info().version
from . import stats
`)},
		"gt/dl_import.py": {Data: []byte(`
import sys
import os.path

try:
    from DLFCN import RTLD_LAZY, RTLD_GLOBAL
    dl_flags = RTLD_LAZY | RTLD_GLOBAL
except ImportError:
    from ctypes import RTLD_GLOBAL
    dl_flags = RTLD_GLOBAL

__all__ = ["dl_import"]

def dl_import(import_expr):
    """Import module according to import_expr, but with RTLD_GLOBAL enabled."""
    call_frame = sys._getframe(1)
    local_dict = call_frame.f_locals
    global_dict = call_frame.f_globals
    orig_dlopen_flags = sys.getdlopenflags()
    sys.setdlopenflags(dl_flags)

    try:
        exec(import_expr, local_dict, global_dict)
    finally:
        sys.setdlopenflags(orig_dlopen_flags)  # reset
`)},
		"gt/libgraph_tool_core.so": {Data: []byte{}},
		"gt/stats/__init__.py":     {Data: []byte("from .. import _degree, _prop\nfrom gt.dl_import import dl_import\ndl_import(\"from . import libgraph_tool_stats\")\nfrom . import _unused as x\n")},
		"gt/stats/libgraph_tool_stats.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
		"gt/plain.cpython-311-x86_64-linux-gnu.so":                     {Data: []byte{}},
	}
	plans := Read(fsys, "gt", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{
		"gt/libgraph_tool_core.so global",
		"gt/stats/libgraph_tool_stats.cpython-311-x86_64-linux-gnu.so global",
	})
	s := plans[0].Steps[0]
	if s.Module != "gt.libgraph_tool_core" || s.Flags != "gt/dl_import.py:20 (called from gt/__init__.py:4)" || s.At != "gt/__init__.py:4" {
		t.Errorf("evidence: %+v", s)
	}
}

// torch 1.13's __init__.py: _load_global_deps() opens lib/libtorch_global_deps.so
// RTLD_GLOBAL (a path computed from __file__, a flag from another module),
// and TORCH_USE_RTLD_GLOBAL would import torch._C RTLD_GLOBAL instead.
func TestTorchGlobalDeps(t *testing.T) {
	fsys := fstest.MapFS{
		"torch/__init__.py": {Data: []byte(`
import os
import sys
import platform
import ctypes
from ._utils_internal import get_file_path, prepare_multiprocessing_environment, \
    USE_RTLD_GLOBAL_WITH_LIBTORCH, USE_GLOBAL_DEPS
if sys.executable == 'torch_deploy':
    __version__ = "torch-deploy-1.8"

def _load_global_deps():
    if platform.system() == 'Windows' or sys.executable == 'torch_deploy':
        return

    lib_name = 'libtorch_global_deps' + ('.dylib' if platform.system() == 'Darwin' else '.so')
    here = os.path.abspath(__file__)
    lib_path = os.path.join(os.path.dirname(here), 'lib', lib_name)

    try:
        ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        if 'libcublas.so.11' not in err.args[0]:
            raise err
        ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)


if (USE_RTLD_GLOBAL_WITH_LIBTORCH or os.getenv('TORCH_USE_RTLD_GLOBAL')) and \
        platform.system() != 'Windows':
    old_flags = sys.getdlopenflags()
    sys.setdlopenflags(os.RTLD_GLOBAL | os.RTLD_LAZY)
    from torch._C import *  # noqa: F403
    sys.setdlopenflags(old_flags)
    del old_flags

else:
    if USE_GLOBAL_DEPS:
        _load_global_deps()
    from torch._C import *  # noqa: F403

if TYPE_CHECKING:
    import torch._C as _C
from torch import _other
`)},
		"torch/_utils_internal.py":                     {Data: []byte("USE_GLOBAL_DEPS = True\nUSE_RTLD_GLOBAL_WITH_LIBTORCH = False\n")},
		"torch/lib/libtorch_global_deps.so":            {Data: []byte{}},
		"torch/_C.cpython-311-x86_64-linux-gnu.so":     {Data: []byte{}},
		"torch/_other.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
	}
	plans := Read(fsys, ".", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{
		"torch/_C.cpython-311-x86_64-linux-gnu.so global when TORCH_USE_RTLD_GLOBAL is set",
		"torch/lib/libtorch_global_deps.so global",
		"torch/_C.cpython-311-x86_64-linux-gnu.so local",
		"torch/_other.cpython-311-x86_64-linux-gnu.so local",
	})
}

// msgpack 1.0's __init__.py (Debian's python3-msgpack): the extension is
// imported in the else of a condition that cannot be decided; its step is
// conditional on that condition not holding, said as such (an else has no
// condition text of its own), subscripts and calls written without spaces.
func TestElseOfAnUndecidedCondition(t *testing.T) {
	fsys := fstest.MapFS{
		"msgpack/__init__.py": {Data: []byte(`
import os
import sys


if os.environ.get("MSGPACK_PUREPYTHON") or sys.version_info[0] == 2:
    from .fallback import Packer, unpackb, Unpacker
else:
    try:
        from ._cmsgpack import Packer, unpackb, Unpacker
    except ImportError:
        from .fallback import Packer, unpackb, Unpacker
`)},
		"msgpack/fallback.py":                               {Data: []byte("Packer = unpackb = Unpacker = None\n")},
		"msgpack/_cmsgpack.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
	}
	plans := Read(fsys, ".", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{
		"msgpack/_cmsgpack.cpython-311-x86_64-linux-gnu.so local unless os.environ.get('MSGPACK_PUREPYTHON') or sys.version_info[0] == 2 (msgpack/__init__.py:6)",
	})
}

// A parenthesized import list (pyzmq's backend: "from . import (\n
// _device,\n ...)"; pandas' "from typing import (\n TYPE_CHECKING, ...)")
// binds each name: the extensions are imported there, and a TYPE_CHECKING
// taken from such a list is False, as at run time.
func TestParenthesizedImportList(t *testing.T) {
	fsys := fstest.MapFS{
		"p/__init__.py": {Data: []byte(`
from typing import (
    TYPE_CHECKING,
    Any,
)
from . import (
    _device,
    _poll,
)
if TYPE_CHECKING:
    from . import _typed
from . import (_late)
`)},
		"p/_device.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
		"p/_poll.cpython-311-x86_64-linux-gnu.so":   {Data: []byte{}},
		"p/_typed.cpython-311-x86_64-linux-gnu.so":  {Data: []byte{}},
		"p/_late.cpython-311-x86_64-linux-gnu.so":   {Data: []byte{}},
	}
	plans := Read(fsys, ".", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{
		"p/_device.cpython-311-x86_64-linux-gnu.so local",
		"p/_poll.cpython-311-x86_64-linux-gnu.so local",
		"p/_late.cpython-311-x86_64-linux-gnu.so local",
	})
}

// The real torch of this machine (Debian's python3-torch), when present:
// its own __init__.py names libtorch_global_deps.so, opened RTLD_GLOBAL
// before torch._C.
func TestDebianTorch(t *testing.T) {
	const dist = "/usr/lib/python3/dist-packages"
	if _, err := os.Stat(filepath.Join(dist, "torch", "__init__.py")); err != nil {
		t.Skip("no Debian torch here (the field test requires it in CI)")
	}
	plans := Read(os.DirFS(dist), "torch", []string{"torch/lib/libtorch_global_deps.so", "torch/_C.cpython-311-x86_64-linux-gnu.so"})
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	var def []string
	for _, s := range plans[0].Steps {
		if s.Cond == "" {
			def = append(def, steps(Plan{Steps: []Step{s}})...)
		}
	}
	if len(def) < 2 || def[0] != "torch/lib/libtorch_global_deps.so global" || !strings.HasPrefix(def[1], "torch/_C.") {
		t.Errorf("torch's default import: %q (undecided %q)", def, plans[0].Undecided)
	}
}

// natives lists a test tree's .so files.
func natives(fsys fstest.MapFS) []string {
	var out []string
	for name := range fsys {
		if strings.HasSuffix(name, ".so") {
			out = append(out, name)
		}
	}
	return out
}

// FuzzRead: whatever a package's __init__.py holds, Read returns (no panic,
// no unbounded recursion), within its bounds.
func FuzzRead(f *testing.F) {
	f.Add("from . import _core\nimport sys, os\nsys.setdlopenflags(os.RTLD_GLOBAL)\n")
	f.Add("def f(x):\n    exec(x)\nf('from . import _core')\nif os.getenv('X'): import pkg._core\n")
	f.Add(strings.Repeat("(", 5000) + "\n" + strings.Repeat("not ", 5000) + "x\n" + strings.Repeat("-", 5000) + "1\n")
	f.Add("try:\n  import pkg._core as c\nexcept ImportError:\n  c = None\nfor n in ['a.so', 'b.so']:\n  ctypes.CDLL(n, mode=ctypes.RTLD_GLOBAL)\n")
	f.Fuzz(func(t *testing.T, src string) {
		fsys := fstest.MapFS{
			"pkg/__init__.py": {Data: []byte(src)},
			"pkg/sub.py":      {Data: []byte(src)},
			"pkg/_core.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
		}
		Read(fsys, "pkg", []string{"pkg/_core.cpython-311-x86_64-linux-gnu.so"})
	})
}

// TestDeepNesting: a million brackets or operators read within the bound.
func TestDeepNesting(t *testing.T) {
	for _, src := range []string{strings.Repeat("(", 1<<20), strings.Repeat("not ", 1<<18) + "x", strings.Repeat("-", 1<<20) + "1",
		strings.Repeat("[", 1<<20), "x = " + strings.Repeat("a if b else ", 1<<16) + "c", deepBlocks(2000)} {
		Read(fstest.MapFS{"pkg/__init__.py": {Data: []byte(src + "\nfrom . import _c\n")}, "pkg/_c.so": {Data: []byte{}}}, "pkg", nil)
	}
}

// deepBlocks is n if statements, each nested in the one before.
func deepBlocks(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	return b.String() + strings.Repeat(" ", n) + "pass"
}

// BenchmarkReadTorch: Read of Debian's torch, as conflicts --with torch
// reads it on a cold run.
func BenchmarkReadTorch(b *testing.B) {
	const dist = "/usr/lib/python3/dist-packages"
	if _, err := os.Stat(filepath.Join(dist, "torch", "__init__.py")); err != nil {
		b.Skip("no Debian torch here")
	}
	fsys := os.DirFS(dist)
	natives := []string{"torch/lib/libtorch_global_deps.so", "torch/_C.cpython-311-x86_64-linux-gnu.so", "torch/_dl.cpython-311-x86_64-linux-gnu.so"}
	b.ReportAllocs()
	for b.Loop() {
		if plans := Read(fsys, "torch", natives); len(plans) != 1 {
			b.Fatalf("plans: %+v", plans)
		}
	}
}

// BenchmarkReadTorchBuffers: the same read into buffers (BufferFS) with
// every name noted, as analyze reads a directory tree.
func BenchmarkReadTorchBuffers(b *testing.B) {
	if _, err := os.Stat(filepath.Join(distPackages, "torch", "__init__.py")); err != nil {
		b.Skip("no Debian torch here")
	}
	natives := []string{"torch/lib/libtorch_global_deps.so", "torch/_C.cpython-311-x86_64-linux-gnu.so", "torch/_dl.cpython-311-x86_64-linux-gnu.so"}
	b.ReportAllocs()
	for b.Loop() {
		rec := &recordFS{FS: os.DirFS(distPackages), names: map[string]bool{}}
		if plans := Read(bufferFS{rec}, "torch", natives); len(plans) != 1 {
			b.Fatalf("plans: %+v", plans)
		}
	}
}

// TestLargeSources: sources longer than the reader's buffer are read
// whole, when run at once or when run later for a name asked of them;
// one over maxFileBytes is not read, and says so.
func TestLargeSources(t *testing.T) {
	pad := strings.Repeat("# "+strings.Repeat("x", 77)+"\n", 300<<10/80) // 300 KB of comment
	fsys := fstest.MapFS{
		"pkg/__init__.py": {Data: []byte("from . import big\nfrom .later import X\nif X:\n    from . import _d\nfrom . import huge\n")},
		"pkg/big.py":      {Data: []byte(pad + "from . import _c\n")},
		"pkg/later.py":    {Data: []byte(pad + "X = 1\n")},
		"pkg/huge.py":     {Data: []byte(strings.Repeat("#\n", maxFileBytes/2+1))},
		"pkg/_c.so":       {Data: []byte{}},
		"pkg/_d.so":       {Data: []byte{}},
	}
	if len(pad) <= minBuffer {
		t.Fatalf("the padding (%d bytes) fits the buffer", len(pad))
	}
	plans := Read(fsys, "pkg", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{"pkg/_c.so local", "pkg/_d.so local"})
	equal(t, "undecided", plans[0].Undecided, []string{"pkg/__init__.py:5: pkg/huge.py is over 4194304 bytes: not read"})
}

// TestDefaultImportIsWhatTheLoaderOpens holds the default path of Read on
// Debian packages of the field to the real import: every extension module
// it says `import PKG` opens, the loader maps (LD_DEBUG=files), and it
// finds at least the number pinned of those the loader maps (pandas'
// window.aggregations and tslibs.base are imported where the reader does
// not follow; before parenthesized import lists were read, pyproj had 8
// and pandas 37).
func TestDefaultImportIsWhatTheLoaderOpens(t *testing.T) {
	const dist = "/usr/lib/python3/dist-packages"
	for _, c := range []struct {
		pkg   string
		found int
	}{{"zmq", 9}, {"pyproj", 9}, {"pandas", 39}} {
		t.Run(c.pkg, func(t *testing.T) {
			testenv.NeedFiles(t, "/usr/bin/python3", filepath.Join(dist, c.pkg, "__init__.py"))
			opened, err := ldoracle.Opened("/usr/bin/python3", c.pkg)
			if err != nil {
				t.Fatal(err)
			}
			mapped := map[string]bool{}
			for _, f := range opened {
				if rel, ok := strings.CutPrefix(f, dist+"/"); ok && strings.HasPrefix(rel, c.pkg+"/") {
					mapped[rel] = true
				}
			}
			var natives []string
			err = fs.WalkDir(os.DirFS(dist), c.pkg, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".so") {
					natives = append(natives, p)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			plans := Read(os.DirFS(dist), c.pkg, natives)
			found := map[string]bool{}
			for _, p := range plans {
				for _, s := range p.Steps {
					switch {
					case s.Cond != "" || s.Module == "":
					case !mapped[s.Path]:
						t.Errorf("%s (%s): the reader says the import opens it; the loader did not map it", s.Path, s.At)
					default:
						found[s.Path] = true
					}
				}
			}
			var missed []string
			for f := range mapped {
				if !found[f] {
					missed = append(missed, f)
				}
			}
			if len(found) < c.found {
				t.Errorf("the reader finds %d of the %d extension modules the loader maps, want at least %d; missed %q", len(found), len(mapped), c.found, missed)
			}
			t.Logf("%d of %d mapped extension modules found on the default path; missed %q", len(found), len(mapped), missed)
		})
	}
}

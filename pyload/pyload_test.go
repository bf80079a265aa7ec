package pyload

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

// An else after a condition that cannot be decided: its step is
// conditional on that condition not holding, said as such (an else has no
// condition text of its own), subscripts and calls written without spaces.
func TestElseOfAnUndecidedCondition(t *testing.T) {
	fsys := fstest.MapFS{
		"p/__init__.py": {Data: []byte(`
import os
import sys

if os.environ.get("P_PUREPYTHON") or sys.flags[0]:
    from .fallback import Packer
else:
    from ._cp import Packer
`)},
		"p/fallback.py":                         {Data: []byte("Packer = None\n")},
		"p/_cp.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
	}
	plans := Read(fsys, ".", natives(fsys))
	if len(plans) != 1 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "steps", steps(plans[0]), []string{
		"p/_cp.cpython-311-x86_64-linux-gnu.so local unless os.environ.get('P_PUREPYTHON') or sys.flags[0] (p/__init__.py:5)",
	})
}

// The interpreter is a CPython 3: the conditions real packages of the field
// put their extension imports under are decided as an import decides them
// (each confirmed by LD_DEBUG=files on Debian's packages).
func TestConditionsOfTheInterpreter(t *testing.T) {
	for _, c := range []struct {
		what string
		fsys fstest.MapFS
		want []string
	}{{
		"msgpack 1.0: sys.version_info[0] == 2",
		fstest.MapFS{"msgpack/__init__.py": {Data: []byte(`
import os
import sys
if os.environ.get("MSGPACK_PUREPYTHON") or sys.version_info[0] == 2:
    from .fallback import Packer
else:
    try:
        from ._cmsgpack import Packer
    except ImportError:
        from .fallback import Packer
`)}, "msgpack/fallback.py": {Data: []byte("Packer = None\n")}, "msgpack/_cmsgpack.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"msgpack/_cmsgpack.cpython-311-x86_64-linux-gnu.so local"},
	}, {
		"openbabel (SWIG 3.0): the platform found in sys.platform, version_info >= (2, 7, 0), the module named from __name__",
		fstest.MapFS{"openbabel/__init__.py": {Data: []byte("from . import openbabel\n")}, "openbabel/openbabel.py": {Data: []byte(`
import sys
if sys.platform.find("linux") != -1:
    dlflags = sys.getdlopenflags()
    import ctypes
    sys.setdlopenflags(dlflags | ctypes.RTLD_GLOBAL)
from sys import version_info as _swig_python_version_info
if _swig_python_version_info >= (2, 7, 0):
    def swig_import_helper():
        import importlib
        pkg = __name__.rpartition('.')[0]
        mname = '.'.join((pkg, '_openbabel')).lstrip('.')
        try:
            return importlib.import_module(mname)
        except ImportError:
            return importlib.import_module('_openbabel')
    _openbabel = swig_import_helper()
    del swig_import_helper
elif _swig_python_version_info >= (2, 6, 0):
    import _openbabel_old
`)}, "openbabel/_openbabel.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"openbabel/_openbabel.cpython-311-x86_64-linux-gnu.so global"},
	}, {
		"faiss, sentencepiece, selinux, swiglpk (SWIG 4): __package__",
		fstest.MapFS{"faiss/__init__.py": {Data: []byte("from .swigfaiss import *\n")}, "faiss/swigfaiss.py": {Data: []byte(`
from sys import version_info as _swig_python_version_info
if _swig_python_version_info < (2, 7, 0):
    raise RuntimeError("Python 2.7 or later required")
if __package__ or "." in __name__:
    from . import _swigfaiss
else:
    import _swigfaiss
`)}, "faiss/_swigfaiss.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"faiss/_swigfaiss.cpython-311-x86_64-linux-gnu.so local"},
	}, {
		"sys.version_info against (3,) and against (3, 8): a longer tuple of the same start is greater; the minor is not known",
		fstest.MapFS{"p/__init__.py": {Data: []byte(`
import sys
if sys.version_info >= (3,):
    from . import _three
if sys.version_info < (3,):
    from . import _two
if sys.version_info >= (3, 8):
    from . import _minor
`)}, "p/_three.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}, "p/_two.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}, "p/_minor.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"p/_three.cpython-311-x86_64-linux-gnu.so local", "p/_minor.cpython-311-x86_64-linux-gnu.so local if sys.version_info >= (3, 8) (p/__init__.py:7)"},
	}, {
		"zstandard 0.19: platform.python_implementation()",
		fstest.MapFS{"zstandard/__init__.py": {Data: []byte(`
import os
import platform
_module_policy = os.environ.get("PYTHON_ZSTANDARD_IMPORT_POLICY", "default")
if _module_policy == "default":
    if platform.python_implementation() in ("CPython",):
        from .backend_c import *
    elif platform.python_implementation() in ("PyPy",):
        from .backend_cffi import *
`)}, "zstandard/backend_c.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"zstandard/backend_c.cpython-311-x86_64-linux-gnu.so local"},
	}, {
		"gevent 22: import_c_accel names the module with str.replace",
		fstest.MapFS{"gevent/__init__.py": {Data: []byte("from gevent._hub_local import get_hub\n_hub = get_hub\n")}, "gevent/_hub_local.py": {Data: []byte(`
def get_hub():
    pass
from gevent._util import import_c_accel
import_c_accel(globals(), 'gevent.__hub_local')
`)}, "gevent/_util.py": {Data: []byte(`
def import_c_accel(globs, cname):
    if not cname.startswith('gevent._gevent_c'):
        cname = cname.replace('gevent._', 'gevent._gevent_c')
    import importlib
    mod = importlib.import_module(cname)
`)}, "gevent/_gevent_c_hub_local.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}}},
		[]string{"gevent/_gevent_c_hub_local.cpython-311-x86_64-linux-gnu.so local"},
	}} {
		plans := Read(c.fsys, ".", natives(c.fsys))
		if len(plans) != 1 {
			t.Errorf("%s: plans %+v", c.what, plans)
			continue
		}
		equal(t, c.what, steps(plans[0]), c.want)
	}
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

// An extension module is imported before a source file of the same name
// (lxml 4.9 ships builder.py beside the builder extension the import
// system loads), and a package may be an extension itself (apsw 3.40:
// apsw/__init__.cpython-311-x86_64-linux-gnu.so), as the import system's
// FileFinder looks.
func TestExtensionBeforeSource(t *testing.T) {
	fsys := fstest.MapFS{
		"lxml/__init__.py": {Data: []byte("from . import builder\n")},
		"lxml/builder.py":  {Data: []byte("import ctypes\nctypes.CDLL('libpure.so')\n")},
		"lxml/builder.cpython-311-x86_64-linux-gnu.so":  {Data: []byte{}},
		"apsw/__init__.cpython-311-x86_64-linux-gnu.so": {Data: []byte{}},
		"apsw/shell.py": {Data: []byte("import ctypes\nctypes.CDLL('libshell.so')\n")},
	}
	plans := Read(fsys, ".", natives(fsys))
	if len(plans) != 2 {
		t.Fatalf("plans: %+v", plans)
	}
	equal(t, "apsw", steps(plans[0]), []string{"apsw/__init__.cpython-311-x86_64-linux-gnu.so local"})
	equal(t, "lxml", steps(plans[1]), []string{"lxml/builder.cpython-311-x86_64-linux-gnu.so local"})
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

// TestDefaultImportIsWhatTheLoaderOpens holds the default path of Read to
// the real import on every package of the field (testdata/field: Debian's
// Python packages with compiled extensions): each extension module of the
// package it says `import PKG` opens, the loader maps (LD_DEBUG=files;
// none may be claimed that it does not), and of those the loader maps it
// finds at least the number pinned. The misses are where an import is made
// from native code (a Cython module's own imports: h5py, gssapi), through
// modules the reader leaves unread because nothing in them names native
// code (numba, pandas' window), or by means it does not follow
// (torchvision's torch.ops.load_library).
func TestDefaultImportIsWhatTheLoaderOpens(t *testing.T) {
	const dist = "/usr/lib/python3/dist-packages"
	const wantFound = 245 // at ba34e3c, before parenthesized lists, the interpreter's conditions and extensions before source: 229
	data, err := os.ReadFile("../testdata/field/packages.txt")
	if err != nil {
		t.Fatal(err)
	}
	testenv.NeedFiles(t, "/usr/bin/python3")
	var mu sync.Mutex
	mapped, found, packages := 0, 0, 0
	t.Run("packages", func(t *testing.T) {
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 || strings.HasPrefix(f[0], "#") || strings.HasSuffix(f[1], ".so") {
				continue // a comment, or a module that is one extension
			}
			pkg := f[1]
			t.Run(pkg, func(t *testing.T) {
				t.Parallel()
				testenv.NeedFiles(t, filepath.Join(dist, pkg))
				opened, err := ldoracle.Opened("/usr/bin/python3", strings.ReplaceAll(pkg, "/", "."))
				if err != nil {
					t.Fatal(err)
				}
				maps := map[string]bool{} // the package's extension modules the loader mapped
				for _, f := range opened {
					if rel, ok := strings.CutPrefix(f, dist+"/"); ok && strings.HasPrefix(rel, pkg+"/") && strings.HasSuffix(rel, ".so") {
						maps[rel] = true
					}
				}
				var natives []string
				err = fs.WalkDir(os.DirFS(dist), pkg, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && strings.HasSuffix(p, ".so") {
						natives = append(natives, p)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				seen := map[string]bool{}
				for _, p := range Read(os.DirFS(dist), pkg, natives) {
					for _, s := range p.Steps {
						switch {
						case s.Cond != "" || s.Module == "" || !strings.HasPrefix(s.Path, pkg+"/"):
						case !maps[s.Path]:
							t.Errorf("%s (%s): the reader says the import opens it; the loader did not map it", s.Path, s.At)
						default:
							seen[s.Path] = true
						}
					}
				}
				var missed []string
				for m := range maps {
					if !seen[m] {
						missed = append(missed, path.Base(m))
					}
				}
				slices.Sort(missed)
				t.Logf("%d of the %d extension modules the loader maps found; missed %q", len(seen), len(maps), missed)
				mu.Lock()
				mapped, found, packages = mapped+len(maps), found+len(seen), packages+1
				mu.Unlock()
			})
		}
	})
	if found < wantFound {
		t.Errorf("the reader finds %d of the %d extension modules the loader maps on importing %d packages, want at least %d", found, mapped, packages, wantFound)
	}
	t.Logf("%d of the %d extension modules the loader maps on importing %d packages found", found, mapped, packages)
}

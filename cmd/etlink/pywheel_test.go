package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
)

// trixieRoot is where .ci/run unpacks Debian 13's nanobind-dev and
// robin-map-dev (header-only; Debian 12 has no nanobind, and its robin-map
// is older than nanobind needs).
const trixieRoot = "/opt/etlink-trixie/root"

// TestBindingDefaultsAgainstTorch builds testdata/pywheel with
// pybind11_add_module's defaults (Release: -flto) and nanobind_add_module's,
// shows that Python imports each beside torch, and requires check and
// conflicts --with torch to find nothing at warning or above: the libstdc++
// template instances LTO exports are code, read-only data, RTTI compared by
// name and STB_GNU_UNIQUE objects the loader makes one (pybind11's, before:
// 4 ET301 errors and 9 warnings).
func TestBindingDefaultsAgainstTorch(t *testing.T) {
	testenv.NeedTools(t, "cmake", "ninja", "g++")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/lib/cmake/pybind11/pybind11Config.cmake", filepath.Join(debianTorch, "lib", "libtorch_cpu.so"),
		filepath.Join(trixieRoot, "usr/share/nanobind/cmake/nanobind-config.cmake"), filepath.Join(trixieRoot, "usr/include/tsl/robin_map.h"))
	for _, binding := range []string{"pybind11", "nanobind"} {
		t.Run(binding, func(t *testing.T) { bindingDefaults(t, binding) })
	}
}

func bindingDefaults(t *testing.T, binding string) {
	src, err := filepath.Abs("../../testdata/pywheel")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	build, pkg := filepath.Join(dir, "build"), filepath.Join(dir, "pkg")
	for _, args := range [][]string{
		{"cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release", "-DBINDING=" + binding,
			"-DPYTHON_EXECUTABLE=/usr/bin/python3", "-DPython_EXECUTABLE=/usr/bin/python3",
			"-Dnanobind_DIR=" + filepath.Join(trixieRoot, "usr/share/nanobind/cmake"), "-DCMAKE_CXX_FLAGS=-I" + filepath.Join(trixieRoot, "usr/include")},
		{"ninja", "-C", build},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(build, "build.ninja")); binding == "pybind11" && !strings.Contains(string(data), "-flto") {
		t.Fatal("pybind11_add_module did not compile with -flto: the test is about LTO's exports")
	}
	sos, _ := filepath.Glob(filepath.Join(build, "*.so"))
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, so := range sos {
		data, err := os.ReadFile(so)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, filepath.Base(so)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	imp := exec.Command("/usr/bin/python3", "-c", "import torch, _ext; assert _ext.alpha('k') == 1 and _ext.beta(2) == 4")
	imp.Dir, imp.Env = pkg, append(os.Environ(), "PYTHONPATH="+pkg, "LD_BIND_NOW=1")
	if out, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("the module does not import beside torch: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"check", pkg}, {"conflicts", pkg, "--with", "torch"}} {
		_, out, errs := runCLI(t, append(args, "--format", "json", "--fail-on", "none")...)
		r := decodeReport(t, out)
		notes := 0
		for _, f := range r.Findings {
			if f.Severity >= finding.Warning {
				t.Errorf("%s: %s %s %s: %s", args[0], f.Severity, f.Rule, f.Subject.Symbol, f.Message)
			} else {
				notes++
			}
		}
		if args[0] == "conflicts" && notes == 0 {
			t.Errorf("conflicts: no note at all: the libstdc++ instances torch also exports went unseen (stderr %s)", errs)
		}
	}
}

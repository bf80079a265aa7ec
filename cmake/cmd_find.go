package cmake

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultCMakeVersion is the CMake whose behaviour a lint takes when the
// build directory does not say (Options.CMakeVersion): Debian 12's. A
// project's cmake_minimum_required above it raises it, since no older
// CMake configures the project.
const DefaultCMakeVersion = "3.25.1"

// pythonTargets are the imported targets FindPython (Python, Python3,
// Python2) defines per component, and the CMake release that added each.
var pythonTargets = []struct{ component, target, since string }{
	{"Interpreter", "Interpreter", "3.12"},
	{"Development", "Python", "3.12"},
	{"Development", "Module", "3.15"},
	{"Development.Module", "Module", "3.18"},
	{"Development.Embed", "Python", "3.18"},
	{"NumPy", "NumPy", "3.14"},
}

// pybind11Targets are those pybind11's package configuration defines, in
// both its classic and its FindPython mode.
var pybind11Targets = []string{"pybind11::pybind11", "pybind11::headers", "pybind11::module", "pybind11::embed",
	"pybind11::lto", "pybind11::thin_lto", "pybind11::opt_size", "pybind11::python_link_helper", "pybind11::windows_extras"}

// cmdFindPackage models the packages whose imported targets decide a
// Python extension's link: FindPython's targets per component and CMake
// release, and pybind11's. A lint judges the configuration in which the
// package is found (an extension is built only then), so they are defined
// whether or not REQUIRED was given; if(TARGET Python::Module) is then
// decided, and the reason names the find_package() line. Other packages
// are not read (their variables stay unknown).
func (e *evaluator) cmdFindPackage(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 || hasUnknown(args[0].val) {
		return
	}
	pkg := stripMarks(args[0].val)
	where := fmt.Sprintf("find_package(%s) at %s", pkg, e.cmdLoc(cmd))
	if !e.readPackageFile(c, cmd, pkg, args) {
		e.packageResults(c, pkg)
	}
	switch pkg {
	case "Python", "Python3", "Python2":
		comps := map[string]bool{}
		in := false
		for _, a := range args[1:] {
			switch v := stripMarks(a.val); v {
			case "COMPONENTS", "OPTIONAL_COMPONENTS", "REQUIRED":
				in = true
			case "EXACT", "QUIET", "MODULE", "CONFIG", "NO_MODULE", "GLOBAL", "NO_POLICY_SCOPE", "BYPASS_PROVIDER":
				in = false
			default:
				if in {
					comps[v] = true
				}
			}
		}
		ver := e.cmakeVersion(c)
		e.modelledNS[pkg] = true
		for _, t := range pythonTargets {
			if comps[t.component] && compareVersions(ver, t.since) >= 0 {
				e.imported[pkg+"::"+t.target] = where
			}
		}
	case "pybind11":
		e.modelledNS["pybind11"] = true
		for _, t := range pybind11Targets {
			e.imported[t] = where
		}
	}
}

// readPackageFile reads the file find_package() would, when the tree
// holds it: a find module FindPkg.cmake on CMAKE_MODULE_PATH (unless CONFIG
// or NO_MODULE), else the package configuration in Pkg_DIR (PkgConfig.cmake
// or pkg-config.cmake). The packages etlink models are not read: the model
// says what they define. It reports whether it read one.
func (e *evaluator) readPackageFile(c *ctx, cmd *Command, pkg string, args []xarg) bool {
	switch pkg {
	case "Python", "Python3", "Python2", "pybind11":
		return false
	}
	configOnly := false
	for _, a := range args[1:] {
		if a.val == "CONFIG" || a.val == "NO_MODULE" {
			configOnly = true
		}
	}
	var cands []string
	if !configOnly {
		if mp, st := e.variable(c.sc, "CMAKE_MODULE_PATH"); st == varSet {
			for _, d := range splitList(mp) {
				if !hasUnknown(d) {
					cands = append(cands, filepath.Join(e.absDir(c, stripMarks(d)), "Find"+pkg+".cmake"))
				}
			}
		}
	}
	if dir, st := e.variable(c.sc, pkg+"_DIR"); st == varSet && !hasUnknown(dir) {
		d := e.absDir(c, stripMarks(dir))
		cands = append(cands, filepath.Join(d, pkg+"Config.cmake"), filepath.Join(d, strings.ToLower(pkg)+"-config.cmake"))
	}
	for _, p := range cands {
		if within(e.readRoot, p) && isFile(p) {
			e.cmdInclude(c, cmd, []xarg{{val: p}})
			return true
		}
	}
	return false
}

// absDir makes a directory a command names absolute, from the current
// source directory.
func (e *evaluator) absDir(c *ctx, d string) string {
	if filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return filepath.Join(c.dir.src, d)
}

// resultSuffixes are the result variables a find module or package
// configuration sets, after its prefix (PYTHON_LIBRARIES, Python3_LIBRARY).
var resultSuffixes = []string{"LIBRARIES", "LIBRARY", "LIBRARY_RELEASE", "LIBRARY_DEBUG", "LIBS", "INCLUDE_DIRS",
	"INCLUDE_DIR", "INCLUDE_PATH", "FOUND", "VERSION", "VERSION_STRING", "DEFINITIONS"}

// packageResults makes a package's result variables unknown, whatever the
// tree set them to before (unset(PYTHON_LIBRARY) then
// find_package(PythonLibs): the module sets it again, from the build
// machine). A value given with -D stays: the module takes the cache's.
func (e *evaluator) packageResults(c *ctx, pkg string) {
	prefixes := []string{pkg, strings.ToUpper(pkg)}
	switch pkg {
	case "PythonLibs":
		prefixes = append(prefixes, "PYTHON")
	case "PythonInterp":
		prefixes = append(prefixes, "PYTHON", "PYTHONINTERP")
	}
	for _, p := range prefixes {
		for _, s := range resultSuffixes {
			if name := p + "_" + s; e.opt.Vars[name] == "" {
				e.setUnknown(c, name)
			}
		}
	}
}

// cmakeVersion is CMAKE_VERSION as the evaluation has it.
func (e *evaluator) cmakeVersion(c *ctx) string {
	if v, st := e.variable(c.sc, "CMAKE_VERSION"); st == varSet && !undecided(v) {
		return v
	}
	return DefaultCMakeVersion
}

// setCMakeVersion sets CMAKE_VERSION and its parts.
func setCMakeVersion(sc *scope, v string) {
	sc.set("CMAKE_VERSION", v)
	parts := strings.SplitN(v, ".", 3)
	for len(parts) < 3 {
		parts = append(parts, "0")
	}
	sc.set("CMAKE_MAJOR_VERSION", parts[0])
	sc.set("CMAKE_MINOR_VERSION", parts[1])
	sc.set("CMAKE_PATCH_VERSION", parts[2])
}

// cmdMinimumRequired raises the CMake version the lint takes to the
// project's minimum: no older CMake configures the project. The version
// given as a build directory's (Options.CMakeVersion with a known origin)
// is what configured it and stays.
func (e *evaluator) cmdMinimumRequired(c *ctx, args []xarg) {
	for i := 0; i+1 < len(args); i++ {
		if args[i].val != "VERSION" || undecided(args[i+1].val) {
			continue
		}
		min, _, _ := strings.Cut(stripMarks(args[i+1].val), "...")
		if e.policyVersion == "" {
			e.policyVersion = min
		}
		if !e.opt.CMakeVersionFixed && compareVersions(min, e.cmakeVersion(c)) > 0 {
			setCMakeVersion(c.sc, min)
		}
	}
}

// cmdSubdirs is subdirs(dir... [EXCLUDE_FROM_ALL dir...] [PREORDER]), the
// old form of add_subdirectory: each directory is read as add_subdirectory
// reads it, at the call (CMake reads them after the calling file, which
// matters only to a file that uses what another defines).
func (e *evaluator) cmdSubdirs(c *ctx, cmd *Command, args []xarg) {
	for _, a := range args {
		if a.val != "EXCLUDE_FROM_ALL" && a.val != "PREORDER" {
			e.cmdAddSubdirectory(c, cmd, []xarg{a})
		}
	}
}

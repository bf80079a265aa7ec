package analyze

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etlink/etlink/cmake"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/reporoot"
	"github.com/etlink/etlink/linkline"
)

// LintOptions say what a lint session reads.
type LintOptions struct {
	// Vars are cache variables as cmake -D sets them.
	Vars map[string]string
	// Links and Patterns read a configured build's links (OpenLinks).
	Links    linkline.Options
	Patterns *Patterns
	// Verbose logs every note of the CMake evaluation; else one line
	// counting them by kind.
	Verbose bool
	// CMakeVersion is the CMake release the evaluation takes, as the user
	// named it; "" takes a build directory's (its CMakeCache.txt), else
	// cmake.DefaultCMakeVersion raised to the project's minimum.
	CMakeVersion string
	// Root is the directory whose files the CMake reading may include from
	// outside a source directory; "" takes the repository that holds it.
	Root string
}

// LintSession is what lint reads: the CMake project of every source
// directory named (directly, or as a build directory's
// CMAKE_HOME_DIRECTORY), and the links of the build directories.
type LintSession struct {
	// Project holds the targets and list files of every source read; nil
	// when none could be.
	Project *cmake.Project
	// Sources are the source directories read, in order.
	Sources []string
	// Retention is one LinkFacts per link of the build directories; nil
	// when no build directory was named.
	Retention []*LinkFacts
	Inputs    []finding.Input
}

// OpenLint reads paths: build directories (CMakeCache.txt), source
// directories (CMakeLists.txt) or CMakeLists.txt files. A path that is none
// of these is an input error; the others are still read.
func OpenLint(paths []string, opt LintOptions, log Log) *LintSession {
	s := &LintSession{}
	var builds []string
	versions := map[string]string{} // source -> the CMake that configured a build of it
	for _, p := range paths {
		src, build := classifyLintPath(p)
		if src == "" && build == "" {
			err := &datafile.Error{Path: p, Err: errors.New("neither a CMake source directory, a build directory nor a CMakeLists.txt")}
			log.InputError(err)
			s.Inputs = append(s.Inputs, InputFailed(err))
			continue
		}
		if src != "" && !slices.Contains(s.Sources, src) {
			s.Sources = append(s.Sources, src)
		}
		if build != "" {
			builds = append(builds, build)
			if v := cacheVersion(build); v != "" && versions[src] == "" {
				versions[src] = v
			}
		}
	}
	for _, src := range s.Sources {
		copt := cmake.Options{Vars: opt.Vars, CMakeVersion: opt.CMakeVersion, CMakeVersionFixed: opt.CMakeVersion != "", ReadRoot: opt.Root}
		if copt.ReadRoot == "" {
			copt.ReadRoot = reporoot.Find(src)
		}
		if copt.CMakeVersion == "" && versions[src] != "" {
			copt.CMakeVersion, copt.CMakeVersionFixed = versions[src], true
		}
		log.Notef("%s: read as CMake %s reads it (%s)", src, orDefault(copt.CMakeVersion), versionOrigin(opt.CMakeVersion, versions[src]))
		proj, errs := cmake.Load(src, copt)
		s.Inputs = append(s.Inputs, finding.Input{Path: filepath.Join(src, "CMakeLists.txt")})
		for _, err := range errs {
			log.InputError(err)
			s.Inputs = append(s.Inputs, InputFailed(err))
		}
		if proj == nil {
			continue
		}
		logCMakeNotes(proj.Notes, opt.Verbose, log)
		if s.Project == nil {
			s.Project = proj
		} else {
			s.Project.Targets = append(s.Project.Targets, proj.Targets...)
			s.Project.Files = append(s.Project.Files, proj.Files...)
		}
	}
	if len(builds) > 0 {
		facts, inputs := OpenLinks(builds, opt.Links, opt.Patterns, log)
		s.Retention = facts
		s.Inputs = append(s.Inputs, inputs...)
	}
	return s
}

// logCMakeNotes says what the evaluation could not know: every note when
// verbose, else one line counting them by kind (a real project has
// hundreds, mostly conditions on options a build sets).
func logCMakeNotes(notes []cmake.Note, verbose bool, log Log) {
	if verbose {
		for _, n := range notes {
			log.Notef("%s", n)
		}
		return
	}
	if len(notes) == 0 {
		return
	}
	count := map[string]int{}
	for _, n := range notes {
		count[n.Kind]++
	}
	var parts []string
	for _, k := range []struct{ kind, what string }{
		{cmake.NoteUndecided, "conditions or arguments not evaluated (all branches read)"},
		{cmake.NoteMissing, "directories or files absent (submodules not checked out?)"},
		{cmake.NoteModule, "CMake modules or files outside the tree"},
		{cmake.NoteRedefined, "targets defined in more than one branch"},
		{cmake.NoteTarget, "commands on targets not defined in the tree"},
		{cmake.NoteLimit, "evaluation bounds reached"},
		{cmake.NoteCommand, "commands no file read defines"},
		{cmake.NoteGuessed, "conditions decided on a value taken without knowing it"},
	} {
		if n := count[k.kind]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k.what))
		}
	}
	log.Notef("CMake evaluation: %d notes: %s (-v lists them)", len(notes), strings.Join(parts, "; "))
}

// classifyLintPath finds the source and build directory a path names: a
// build directory (CMakeCache.txt: the source is its CMAKE_HOME_DIRECTORY),
// a source directory (CMakeLists.txt), or a CMakeLists.txt file.
func classifyLintPath(p string) (source, build string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", ""
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", ""
	}
	if !fi.IsDir() {
		if filepath.Base(abs) == "CMakeLists.txt" {
			return filepath.Dir(abs), ""
		}
		return "", ""
	}
	if home := cacheValues(filepath.Join(abs, "CMakeCache.txt"), "CMAKE_HOME_DIRECTORY")["CMAKE_HOME_DIRECTORY"]; home != "" {
		return home, abs
	}
	if _, err := os.Stat(filepath.Join(abs, "CMakeLists.txt")); err == nil {
		return abs, ""
	}
	return "", ""
}

// cacheVersion is the CMake release that wrote a build directory's cache.
func cacheVersion(build string) string {
	file := filepath.Join(build, "CMakeCache.txt")
	v := cacheValues(file, "CMAKE_CACHE_MAJOR_VERSION", "CMAKE_CACHE_MINOR_VERSION", "CMAKE_CACHE_PATCH_VERSION")
	major, minor, patch := v["CMAKE_CACHE_MAJOR_VERSION"], v["CMAKE_CACHE_MINOR_VERSION"], v["CMAKE_CACHE_PATCH_VERSION"]
	if major == "" || minor == "" {
		return ""
	}
	if patch == "" {
		patch = "0"
	}
	return major + "." + minor + "." + patch
}

// orDefault names the CMake release a Load takes.
func orDefault(v string) string {
	if v == "" {
		return cmake.DefaultCMakeVersion + ", or the project's cmake_minimum_required if higher,"
	}
	return v
}

// versionOrigin says where the CMake release a lint takes came from.
func versionOrigin(flag, cache string) string {
	switch {
	case flag != "":
		return "--cmake-version"
	case cache != "":
		return "the build directory's CMakeCache.txt"
	}
	return "etlink's default; --cmake-version sets another"
}

// cacheValues reads entries of a CMakeCache.txt (NAME:TYPE=VALUE), in one
// pass; a name the cache lacks maps to "".
func cacheValues(file string, names ...string) map[string]string {
	out := map[string]string{}
	f, _, err := datafile.Open(file)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < len(names) {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if name, _, typed := strings.Cut(k, ":"); ok && typed && slices.Contains(names, name) {
			if _, seen := out[name]; !seen {
				out[name] = v
			}
		}
	}
	return out
}

// DefaultCMakeVersion is the CMake release OpenLint takes when neither a
// build directory nor the project names one (LintOptions.CMakeVersion).
const DefaultCMakeVersion = cmake.DefaultCMakeVersion

package linkline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/budget"
)

// ErrFileAPI is wrapped by errors in a CMake File API reply.
var ErrFileAPI = errors.New("cmake file api")

// ParseFileAPI reads the CMake File API reply of a build directory
// (.cmake/api/v1/reply: the newest index-*.json, its codemodel-v2 and each
// target-*.json) and returns the link of every executable, shared library
// and module. The line is rebuilt as CMake's Makefile and Ninja generators
// write it: the driver, the "flags" fragments, -shared for libraries, the
// target's objects, -o, the "libraryPath" and "libraries" fragments. Every
// input from a fragment carries the CMakeLists.txt location that added it
// (CMakeFile, CMakeLine, CMakeCommand). The driver is the compiler of the
// link language from the toolchains-v1 reply, else CMAKE_<LANG>_COMPILER
// from cache-v2. Objects are named as those generators name them
// (CMakeFiles/<target>.dir/<source>.o). Each link's Dir is its target's
// build directory, from the reply; opt.Dir is not used.
func ParseFileAPI(buildDir string, opt Options) ([]*Link, []error) {
	top, err := filepath.Abs(buildDir)
	if err != nil {
		return nil, []error{err}
	}
	reply := filepath.Join(top, ".cmake", "api", "v1", "reply")
	idx, err := filepath.Glob(filepath.Join(reply, "index-*.json"))
	if err != nil || len(idx) == 0 {
		return nil, []error{fileError(reply, fmt.Errorf("%w: no index-*.json reply (write .cmake/api/v1/query/codemodel-v2 and run cmake)", ErrFileAPI))}
	}
	sort.Strings(idx)
	var index struct {
		CMake struct {
			Version struct {
				String string `json:"string"`
			} `json:"version"`
			Generator struct {
				MultiConfig bool `json:"multiConfig"`
			} `json:"generator"`
		} `json:"cmake"`
		Objects []faObject `json:"objects"`
	}
	if err := readJSON(opt.Budget, idx[len(idx)-1], &index); err != nil {
		return nil, []error{err}
	}
	var cmPath, tcPath, cachePath string
	for _, o := range index.Objects {
		switch {
		case o.Kind == "codemodel" && o.Version.Major == 2:
			cmPath = o.JSONFile
		case o.Kind == "toolchains" && o.Version.Major == 1:
			tcPath = o.JSONFile
		case o.Kind == "cache" && o.Version.Major == 2:
			cachePath = o.JSONFile
		}
	}
	if cmPath == "" {
		return nil, []error{fileError(idx[len(idx)-1], fmt.Errorf("%w: no codemodel-v2 in the reply", ErrFileAPI))}
	}
	var cm faCodemodel
	if err := readReply(opt.Budget, reply, cmPath, &cm); err != nil {
		return nil, []error{err}
	}
	var errs []error
	ctx := faContext{top: top, source: cm.Paths.Source, compilers: compilers{}, multiConfig: index.CMake.Generator.MultiConfig}
	if ctx.source == "" {
		ctx.source = top
	}
	// The compilers, from the best source there is: the toolchains-v1
	// reply; what CMake recorded when it found them (the only record of
	// a toolchain file's cross compiler); the cache-v2 reply; the cache.
	if tcPath != "" {
		var tc faToolchains
		if err := readReply(opt.Budget, reply, tcPath, &tc); err != nil {
			errs = append(errs, err)
		}
		for _, t := range tc.Toolchains {
			ctx.compilers.add(t.Language, t.Compiler.Path, "the toolchains-v1 reply")
		}
	}
	recordedCompilers(top, index.CMake.Version.String, ctx.compilers)
	if cachePath != "" {
		var cache faCache
		if err := readReply(opt.Budget, reply, cachePath, &cache); err != nil {
			errs = append(errs, err)
		}
		for _, e := range cache.Entries {
			ctx.compilers.addCacheEntry(e.Name, e.Value, "the cache-v2 reply")
		}
	}
	cacheCompilers(top, ctx.compilers)
	s := newSession(opt)
	s.rspRoot = top
	var links []*Link
	artifacts := map[string]string{} // built file -> the target that builds it
	// CMake names each target reply once (per configuration, a file of
	// its own); a codemodel naming one large file a thousand times is
	// read once.
	read := map[string]bool{}
	for _, cfg := range cm.Configurations {
		ctx.config = cfg.Name
		for _, t := range cfg.Targets {
			path, real, err := replyFile(reply, t.JSONFile)
			if err == nil && read[real] {
				err = fileError(filepath.Join(reply, cmPath), fmt.Errorf("%w: the codemodel names target reply %s more than once: read once", ErrFileAPI, t.JSONFile))
			}
			var data []byte
			if err == nil {
				read[real] = true
				data, err = readBuildFile(opt.Budget, path, datafile.LargeText)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			var built faArtifacts
			if json.Unmarshal(data, &built) == nil {
				for _, a := range built.Artifacts {
					if !filepath.IsAbs(a.Path) {
						a.Path = filepath.Join(top, a.Path)
					}
					artifacts[filepath.Clean(a.Path)] = built.Name
				}
			}
			l, err := s.fileAPITarget(data, path, ctx)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if l != nil {
				links = append(links, l)
			}
		}
	}
	for _, l := range links {
		for i := range l.Inputs {
			in := &l.Inputs[i]
			if p := in.Path; p != "" {
				if !filepath.IsAbs(p) {
					p = filepath.Join(l.Dir, p)
				}
				in.Target = artifacts[filepath.Clean(p)]
			}
		}
	}
	return links, errs
}

// faArtifacts is the part of a target reply that names what it builds.
type faArtifacts struct {
	Name      string `json:"name"`
	Artifacts []struct {
		Path string `json:"path"`
	} `json:"artifacts"`
}

type faObject struct {
	Kind    string `json:"kind"`
	Version struct {
		Major int `json:"major"`
	} `json:"version"`
	JSONFile string `json:"jsonFile"`
}

type faCodemodel struct {
	Paths struct {
		Source string `json:"source"`
		Build  string `json:"build"`
	} `json:"paths"`
	Configurations []struct {
		Name    string `json:"name"`
		Targets []struct {
			Name     string `json:"name"`
			JSONFile string `json:"jsonFile"`
		} `json:"targets"`
	} `json:"configurations"`
}

type faToolchains struct {
	Toolchains []struct {
		Language string `json:"language"`
		Compiler struct {
			Path string `json:"path"`
		} `json:"compiler"`
	} `json:"toolchains"`
}

type faCache struct {
	Entries []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"entries"`
}

type faTarget struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	NameOnDisk string `json:"nameOnDisk"`
	Artifacts  []struct {
		Path string `json:"path"`
	} `json:"artifacts"`
	Backtrace      *int    `json:"backtrace"`
	BacktraceGraph faGraph `json:"backtraceGraph"`
	Paths          struct {
		Source string `json:"source"`
		Build  string `json:"build"`
	} `json:"paths"`
	Link *struct {
		Language         string `json:"language"`
		CommandFragments []struct {
			Fragment  string `json:"fragment"`
			Role      string `json:"role"`
			Backtrace *int   `json:"backtrace"`
		} `json:"commandFragments"`
	} `json:"link"`
	Sources []struct {
		Path              string `json:"path"`
		CompileGroupIndex *int   `json:"compileGroupIndex"`
		Backtrace         *int   `json:"backtrace"`
	} `json:"sources"`
}

type faGraph struct {
	Nodes []struct {
		File    int  `json:"file"`
		Line    int  `json:"line"`
		Command *int `json:"command"`
		Parent  *int `json:"parent"`
	} `json:"nodes"`
	Commands []string `json:"commands"`
	Files    []string `json:"files"`
}

// faContext is what a target reply is read against.
type faContext struct {
	top       string    // the top build directory
	source    string    // the top source directory
	compilers compilers // by link language
	// multiConfig is set for a multi-configuration generator (Ninja
	// Multi-Config), which puts objects in a directory per configuration.
	multiConfig bool
	config      string // the configuration being read
}

// replyFile is the file a reply names (jsonFile), which must lie in the
// reply directory: a reply is part of an untrusted build tree, and
// "../../../etc/passwd" or a symbolic link out of the directory would make
// etlink read any file of the machine.
//
// real is the file after symbolic links.
func replyFile(reply, name string) (p, real string, err error) {
	p = filepath.Join(reply, name)
	real, inside, err := realWithin(p, reply)
	if err != nil {
		return "", "", err
	}
	if filepath.IsAbs(name) || !inside {
		return "", "", fileError(reply, fmt.Errorf("the File API reply names %q, which is not in the reply directory: not read: %w", name, ErrFileAPI))
	}
	return p, real, nil
}

// readReply reads the reply file name as JSON into v.
func readReply(b *budget.Budget, reply, name string, v any) error {
	p, _, err := replyFile(reply, name)
	if err != nil {
		return err
	}
	return readJSON(b, p, v)
}

func readJSON(b *budget.Budget, path string, v any) error {
	data, err := readBuildFile(b, path, datafile.LargeText)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fileError(path, fmt.Errorf("%w: %w", ErrFileAPI, err))
	}
	return nil
}

// source maps a backtrace index to the CMakeLists.txt location.
func (g *faGraph) source(file string, bt *int, top string) Source {
	src := Source{File: file}
	if bt == nil || *bt < 0 || *bt >= len(g.Nodes) {
		return src
	}
	// A link added inside a module outside the project (pybind11's or
	// FindPython's functions) is reported at the project's own call of it:
	// follow the parents to the innermost frame in the source tree.
	i := *bt
	for {
		n := g.Nodes[i]
		if n.File >= 0 && n.File < len(g.Files) && g.inTree(g.Files[n.File], top) {
			break
		}
		if n.Parent == nil || *n.Parent < 0 || *n.Parent >= len(g.Nodes) || *n.Parent == i {
			i = *bt // nothing of the project's on the stack: keep the innermost
			break
		}
		i = *n.Parent
	}
	n := g.Nodes[i]
	if n.File >= 0 && n.File < len(g.Files) {
		f := g.Files[n.File]
		if !filepath.IsAbs(f) && top != "" {
			f = filepath.Join(top, f)
		}
		src.CMakeFile = f
	}
	src.CMakeLine = n.Line
	if n.Command != nil && *n.Command >= 0 && *n.Command < len(g.Commands) {
		src.CMakeCommand = g.Commands[*n.Command]
	}
	return src
}

// inTree reports whether a backtrace file lies in the project's source
// tree: relative paths are (the File API writes them relative to it).
func (g *faGraph) inTree(f, top string) bool {
	if !filepath.IsAbs(f) {
		return true
	}
	rel, err := filepath.Rel(top, f)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// fileAPITarget rebuilds and parses the link line of one target reply; nil
// for a target that does not link.
func (s *session) fileAPITarget(data []byte, file string, ctx faContext) (*Link, error) {
	var t faTarget
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fileError(file, fmt.Errorf("%w: %w", ErrFileAPI, err))
	}
	if t.Link == nil {
		return nil, nil
	}
	switch t.Type {
	case "EXECUTABLE", "SHARED_LIBRARY", "MODULE_LIBRARY":
	default:
		return nil, nil
	}
	dir := filepath.Join(ctx.top, t.Paths.Build)
	cc, ok := ctx.compilers[t.Link.Language]
	if !ok {
		return nil, fmt.Errorf("%s: %w: target %s: no compiler for link language %q in the toolchains-v1 or cache-v2 reply, CMakeFiles/<version>/CMake%sCompiler.cmake or CMakeCache.txt",
			file, ErrFileAPI, t.Name, t.Link.Language, t.Link.Language)
	}
	driver := cc.path
	linkSrc := t.BacktraceGraph.source(file, t.Backtrace, ctx.source)
	argv := []word{{text: driver, src: linkSrc}}
	frag := func(role string) error {
		for _, f := range t.Link.CommandFragments {
			if f.Role != role {
				continue
			}
			words, err := cmakeFragmentWords(f.Fragment)
			if err != nil {
				return fileError(file, fmt.Errorf("%w: fragment %q: %w", ErrFileAPI, f.Fragment, err))
			}
			src := t.BacktraceGraph.source(file, f.Backtrace, ctx.source)
			for _, w := range words {
				argv = append(argv, word{text: w, src: src})
			}
		}
		return nil
	}
	if err := frag("flags"); err != nil {
		return nil, err
	}
	if t.Type != "EXECUTABLE" {
		argv = append(argv, word{text: "-shared", src: linkSrc})
	}
	for _, src := range t.Sources {
		if src.CompileGroupIndex == nil {
			// An object file among the sources: an OBJECT library's
			// ($<TARGET_OBJECTS>, or one the target links), which the
			// generators put on the line in source order.
			if ext := filepath.Ext(src.Path); ext == ".o" || ext == ".obj" {
				argv = append(argv, word{text: src.Path, src: t.BacktraceGraph.source(file, src.Backtrace, ctx.source)})
			}
			continue
		}
		cfgDir := ""
		if ctx.multiConfig {
			cfgDir = ctx.config
		}
		obj := objectPath(t.Name, cfgDir, src.Path, t.Paths.Source, ctx.top, dir)
		if _, err := os.Stat(filepath.Join(dir, obj)); err != nil {
			// CMAKE_<LANG>_OUTPUT_EXTENSION_REPLACE names foo.cpp's object foo.o.
			if alt := strings.TrimSuffix(obj, filepath.Ext(strings.TrimSuffix(obj, ".o"))+".o") + ".o"; alt != obj {
				if _, err := os.Stat(filepath.Join(dir, alt)); err == nil {
					obj = alt
				}
			}
		}
		argv = append(argv, word{text: obj, src: t.BacktraceGraph.source(file, src.Backtrace, ctx.source)})
	}
	out := t.NameOnDisk
	if len(t.Artifacts) > 0 && t.Artifacts[0].Path != "" {
		a := t.Artifacts[0].Path
		if !filepath.IsAbs(a) {
			a = filepath.Join(ctx.top, a)
		}
		if rel, err := filepath.Rel(dir, a); err == nil {
			out = rel
		}
	}
	if out != "" {
		argv = append(argv, word{text: "-o", src: linkSrc}, word{text: out, src: linkSrc})
	}
	if err := frag("libraryPath"); err != nil {
		return nil, err
	}
	if err := frag("libraries"); err != nil {
		return nil, err
	}
	l, err := s.parseArgv(argv, dir, linkSrc)
	if err != nil {
		return nil, err
	}
	l.Target = t.Name
	l.DriverSource = cc.from
	l.PythonModule = (t.Type == "MODULE_LIBRARY" || t.Type == "SHARED_LIBRARY") && t.BacktraceGraph.madeBy(t.Backtrace, pythonModuleHelpers)
	return l, nil
}

// pythonModuleHelpers are the CMake functions that make a Python extension
// module target, lower case: pybind11_add_module(name SHARED) too, which
// is an extension however it links.
var pythonModuleHelpers = map[string]bool{
	"pybind11_add_module": true, "nanobind_add_module": true, "python_add_library": true,
	"python3_add_library": true, "python2_add_library": true,
}

// madeBy reports whether a command of cmds is on the backtrace bt: the
// target was created inside it (a helper calls add_library in a module).
func (g *faGraph) madeBy(bt *int, cmds map[string]bool) bool {
	for i, steps := bt, 0; i != nil && *i >= 0 && *i < len(g.Nodes) && steps < len(g.Nodes); steps++ {
		n := g.Nodes[*i]
		if n.Command != nil && *n.Command >= 0 && *n.Command < len(g.Commands) && cmds[strings.ToLower(g.Commands[*n.Command])] {
			return true
		}
		i = n.Parent
	}
	return false
}

// objectPath names a source's object file as CMake's Makefile and Ninja
// generators do: CMakeFiles/<target>.dir/ (and the configuration's
// directory, cfgDir, with a multi-configuration generator) then the
// source's path relative
// to the target's source dir (a generated source under the build tree:
// relative to the target's build dir; anything else: the full path without
// its root), ".." turned into "__", and ".o" added. src is relative to the
// top source dir or absolute; srcDir is relative to the top source dir;
// topBuild and curBuild are the absolute top and target build dirs.
func objectPath(target, cfgDir, src, srcDir, topBuild, curBuild string) string {
	var rel string
	switch {
	case !filepath.IsAbs(src):
		rel = src
		if r, err := filepath.Rel(srcDir, src); err == nil {
			rel = r
		}
	case topBuild != "" && (src == topBuild || strings.HasPrefix(src, topBuild+"/")):
		rel, _ = filepath.Rel(curBuild, src)
	default:
		rel = strings.TrimPrefix(filepath.Clean(src), "/")
	}
	rel = strings.ReplaceAll(filepath.ToSlash(rel), "..", "__")
	if cfgDir != "" {
		rel = cfgDir + "/" + rel
	}
	return "CMakeFiles/" + target + ".dir/" + rel + ".o"
}

// cmakeFragmentWords splits a File API command fragment into arguments.
// Fragments are rendered command-line text ("-Wl,--as-needed",
// "\"/a b/libx.so\""), but raw CMake forms are accepted too: "SHELL:a b"
// (shell-split) and "LINKER:a,b" or "LINKER:SHELL:a b" (rendered as -Wl,
// or, when an item holds a comma, -Xlinker pairs, as CMake does).
func cmakeFragmentWords(f string) ([]string, error) {
	f = strings.TrimSpace(f)
	if rest, ok := strings.CutPrefix(f, "LINKER:"); ok {
		var items []string
		if sh, ok := strings.CutPrefix(rest, "SHELL:"); ok {
			words, err := shellWords(sh)
			if err != nil {
				return nil, err
			}
			items = words
		} else {
			items = strings.Split(rest, ",")
		}
		for _, it := range items {
			if strings.ContainsRune(it, ',') {
				var out []string
				for _, it := range items {
					out = append(out, "-Xlinker", it)
				}
				return out, nil
			}
		}
		return []string{"-Wl," + strings.Join(items, ",")}, nil
	}
	if rest, ok := strings.CutPrefix(f, "SHELL:"); ok {
		return shellWords(rest)
	}
	return shellWords(f)
}

// shellWords is every word of a shell line, operators dropped.
func shellWords(s string) ([]string, error) {
	cmds, err := splitShell(s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cmds {
		out = append(out, c.words...)
	}
	return out, nil
}

package cmake

// Project structure: project(), include() and add_subdirectory().

import (
	"os"
	"path/filepath"
	"strings"
)

func (e *evaluator) cmdProject(c *ctx, args []xarg) {
	if len(args) == 0 {
		return
	}
	name := stripMarks(args[0].val)
	c.sc.set("PROJECT_NAME", name)
	c.sc.set("PROJECT_SOURCE_DIR", c.dir.src)
	c.sc.set(name+"_SOURCE_DIR", c.dir.src)
	top := "OFF"
	if c.dir.src == e.absRoot {
		c.sc.set("CMAKE_PROJECT_NAME", name)
		top = "ON"
	}
	c.sc.set("PROJECT_IS_TOP_LEVEL", top)
	c.sc.set(name+"_IS_TOP_LEVEL", top)
	for k := 1; k+1 < len(args); k++ {
		if args[k].is("VERSION") {
			c.sc.set("PROJECT_VERSION", args[k+1].val)
			c.sc.set(name+"_VERSION", args[k+1].val)
		}
	}
}

func (e *evaluator) cmdInclude(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	arg := args[0].val
	optional := false
	resultVar := ""
	for k := 1; k < len(args); k++ {
		switch args[k].val {
		case "OPTIONAL":
			optional = true
		case "RESULT_VARIABLE":
			if k+1 < len(args) {
				resultVar = stripMarks(args[k+1].val)
				k++
			}
		}
	}
	setResult := func(v string) {
		if resultVar != "" {
			c.sc.set(resultVar, v)
		}
	}
	if hasUnknown(arg) {
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the file is not known; not read", cmd)
		if resultVar != "" {
			e.setUnknown(c, resultVar)
		}
		return
	}
	name := stripMarks(arg)
	path := ""
	if !filepath.IsAbs(name) {
		mp, st := e.variable(c.sc, "CMAKE_MODULE_PATH")
		if st == varSet {
			for _, d := range splitList(mp) {
				if hasUnknown(d) {
					continue // a directory only a branch or a default adds is still searched
				}
				d = stripMarks(d)
				if !filepath.IsAbs(d) {
					d = filepath.Join(c.dir.src, d)
				}
				if cand := filepath.Join(d, name+".cmake"); isFile(cand) {
					path = cand
					break
				}
			}
		}
	}
	if path == "" {
		path = name
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.dir.src, name)
		}
		path = filepath.Clean(path)
	}
	isModule := !strings.ContainsAny(name, `/\`) && !strings.HasSuffix(name, ".cmake")
	switch {
	case !within(e.readRoot, path):
		if !isModule {
			e.note(e.cmdLoc(cmd), "include(%s): outside the tree; not read", name)
		} else {
			e.note(e.cmdLoc(cmd), "include(%s): module not found in the tree (a CMake module or one installed elsewhere); not read", name)
		}
		setResult("NOTFOUND")
		return
	case !isFile(path):
		setResult("NOTFOUND")
		switch {
		case optional:
		case isModule:
			e.note(e.cmdLoc(cmd), "include(%s): module not found in the tree (a CMake module or one installed elsewhere); not read", name)
		default:
			e.note(e.cmdLoc(cmd), "include(%s): no such file in the tree (a submodule not checked out?); not read", name)
		}
		return
	}
	if e.depth >= e.maxDepth {
		e.note(e.cmdLoc(cmd), "include() nested deeper than %d: %s not read", e.maxDepth, name)
		return
	}
	setResult(path)
	saved := [2]binding{}
	had := [2]bool{}
	keys := [2]string{"CMAKE_CURRENT_LIST_FILE", "CMAKE_CURRENT_LIST_DIR"}
	for k, key := range keys {
		saved[k], had[k] = c.sc.vars[key]
	}
	c.sc.set("CMAKE_CURRENT_LIST_FILE", path)
	c.sc.set("CMAKE_CURRENT_LIST_DIR", filepath.Dir(path))
	e.depth++
	e.runFile(c, path)
	e.depth--
	for k, key := range keys {
		if had[k] {
			c.sc.vars[key] = saved[k]
		} else {
			delete(c.sc.vars, key)
		}
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func (e *evaluator) cmdAddSubdirectory(c *ctx, cmd *Command, args []xarg) {
	if len(args) == 0 {
		return
	}
	if hasUnknown(args[0].val) {
		e.note(e.cmdLoc(cmd), "cannot evaluate %s: the directory is not known; not read", cmd)
		return
	}
	name := stripMarks(args[0].val)
	dir := name
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.dir.src, dir)
	}
	dir = filepath.Clean(dir)
	if !within(e.readRoot, dir) {
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): outside the tree; not read", name)
		return
	}
	entry := filepath.Join(dir, "CMakeLists.txt")
	if !isFile(entry) {
		// A submodule not checked out, an optional vendor tree: what
		// a clean checkout of a real project looks like, not an error.
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): no CMakeLists.txt there (a submodule not checked out?); not read", name)
		return
	}
	if e.dirsSeen[dir] {
		e.note(e.cmdLoc(cmd), "add_subdirectory(%s): directory already added; not read again", name)
		return
	}
	if e.depth >= e.maxDepth {
		e.note(e.cmdLoc(cmd), "add_subdirectory() nested deeper than %d: %s not read", e.maxDepth, name)
		return
	}
	e.dirsSeen[dir] = true
	sc := newScope(c.sc)
	sc.set("CMAKE_CURRENT_SOURCE_DIR", dir)
	sc.set("CMAKE_CURRENT_LIST_DIR", dir)
	sc.set("CMAKE_CURRENT_LIST_FILE", entry)
	child := &dirState{src: dir, linkLibs: append([]LinkItem(nil), c.dir.linkLibs...)}
	nc := &ctx{sc: sc, dir: child, loopBase: -1}
	e.depth++
	e.runFile(nc, entry)
	e.depth--
}

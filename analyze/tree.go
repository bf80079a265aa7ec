package analyze

import (
	"debug/elf"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/budget"
)

// TreeNode is one object of a DT_NEEDED tree (tree's JSON): a root, or a
// DT_NEEDED entry and what it resolved to.
type TreeNode struct {
	// Name is the DT_NEEDED string (empty for a root).
	Name string `json:"name,omitempty"`
	// Path is the file found; empty when not found.
	Path string `json:"path,omitempty"`
	// Via is how it was found (DT_RUNPATH, ld.so.cache, already loaded, ...),
	// Dir the search directory as written.
	Via   string   `json:"via,omitempty"`
	Dir   string   `json:"dir,omitempty"`
	Tried []string `json:"tried,omitempty"`
	// Repeat marks an object shown earlier in the tree: not expanded again.
	Repeat bool        `json:"repeat,omitempty"`
	Needed []*TreeNode `json:"needed,omitempty"`
}

// TreeOptions say how ReadTrees searches.
type TreeOptions struct {
	// LibraryPath plays LD_LIBRARY_PATH.
	LibraryPath []string
	// Relocated skips search paths into the build machine (Loader.Relocated).
	Relocated bool
	Budget    *budget.Budget
}

// ReadTrees reads paths (absolute, so that the inputs are the files the
// search finds) and returns the DT_NEEDED tree of each shared object and
// executable among them, and the inputs as the report lists them.
func ReadTrees(paths []string, opt TreeOptions, log Log) ([]*TreeNode, []finding.Input) {
	objs, inputs, _ := ReadInputs(paths, elfobj.Options{Budget: opt.Budget}, log)
	l := NewLoader(LoadCache("", log), objs)
	l.Relocated, l.LibraryPath = opt.Relocated, opt.LibraryPath
	var trees []*TreeNode
	for _, o := range objs {
		if o.Type == elf.ET_DYN || o.Type == elf.ET_EXEC {
			trees = append(trees, resolvedTree(l, o))
		}
	}
	return trees, inputs
}

// resolvedTree maps root into a fresh process, as dlopen or exec would,
// and returns its DT_NEEDED tree: each object expanded where it first
// appears, depth first in DT_NEEDED order.
func resolvedTree(l *Loader, root *elfobj.Object) *TreeNode {
	p := NewProcess(l)
	p.Dlopen(root, true)
	// How each object was found: where the loader first searched for it
	// (the tree shows it first wherever depth first order meets it).
	found := map[*elfobj.Object]Resolution{}
	for _, deps := range p.Deps {
		for _, res := range deps {
			if res.Object != nil && res.Via != ViaLoaded {
				found[res.Object] = res
			}
		}
	}
	shown := map[*elfobj.Object]bool{root: true}
	var expand func(o *elfobj.Object) []*TreeNode
	expand = func(o *elfobj.Object) []*TreeNode {
		var out []*TreeNode
		for _, res := range p.Deps[o] {
			n := &TreeNode{Name: res.Name, Via: string(res.Via), Dir: res.Dir, Tried: res.Tried}
			if res.Object == nil {
				out = append(out, n)
				continue
			}
			if res.Via == ViaLoaded {
				res = found[res.Object]
				n.Via, n.Dir = string(res.Via), res.Dir
			}
			n.Path = res.Path // the name ld.so found it by, not the first spelling read
			if n.Path == "" {
				n.Path = res.Object.Path
			}
			if shown[res.Object] {
				n.Repeat = true
			} else {
				shown[res.Object] = true
				n.Needed = expand(res.Object)
			}
			out = append(out, n)
		}
		return out
	}
	return &TreeNode{Path: root.Path, Needed: expand(root)}
}

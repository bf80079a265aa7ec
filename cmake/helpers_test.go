package cmake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalBytes evaluates src as the top CMakeLists.txt of a tree that holds
// nothing else, without touching the disk for it. onOther sees the
// commands etlink does not evaluate, with their expanded arguments.
func evalBytes(src []byte, opt Options, onOther func(*Command, []xarg)) (*Project, []error) {
	e := newEvaluator(".", opt)
	e.absRoot = filepath.Join(string(filepath.Separator), "etlink-in-memory")
	e.onOther = onOther
	entry := filepath.Join(e.absRoot, "CMakeLists.txt")
	f, err := Parse("CMakeLists.txt", src)
	e.p.Files = append(e.p.Files, f)
	lf := &listFile{f: f, err: err}
	if err == nil {
		lf.blk, lf.err = blockify(f)
	}
	if lf.err != nil {
		return e.p, []error{lf.err}
	}
	e.files[entry] = lf
	e.run(entry)
	return e.p, e.errs
}

// shown evaluates src and returns the expanded arguments of each show()
// call, marks removed, unknown parts written as <?${NAME}>.
func shown(t *testing.T, src string, opt Options) [][]string {
	t.Helper()
	var got [][]string
	_, errs := evalBytes([]byte(src), opt, func(cmd *Command, args []xarg) {
		if cmd.Name != "show" {
			return
		}
		row := []string{}
		for _, a := range args {
			v := strings.ReplaceAll(a.val, markUnknown, "<?>")
			row = append(row, strings.ReplaceAll(v, markDefault, "<default>"))
		}
		got = append(got, row)
	})
	for _, err := range errs {
		t.Errorf("evaluating:\n%s\nerror: %v", src, err)
	}
	return got
}

// writeTree writes files (path -> content) under a new temporary directory
// and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// TestTreeMatchesLdd holds etlink tree to glibc's loader: for every ELF
// file Debian's torch ships, and every library of their closure, the set of
// libraries it resolves (name and file) equals what ldd, which runs ld.so in
// trace mode, prints.
func TestTreeMatchesLdd(t *testing.T) {
	testenv.NeedTools(t, "ldd")
	testenv.NeedFiles(t, filepath.Join(debianTorch, "lib", "libtorch_cpu.so"))
	_, out, errs := runCLI(t, "tree", debianTorch, "--format", "json", "-q")
	var r treeReport
	decodeJSON(t, out, &r)
	if len(r.Trees) < 5 {
		t.Fatalf("%d trees for torch (stderr %s)", len(r.Trees), errs)
	}
	// The closure's own libraries, each a root of its own.
	closure := map[string]bool{}
	for _, tr := range r.Trees {
		for name := range resolvedSet(tr) {
			if p := resolvedSet(tr)[name]; p != "" && !strings.HasPrefix(p, debianTorch) {
				closure[p] = true
			}
		}
	}
	var extra []string
	for p := range closure {
		extra = append(extra, p)
	}
	sort.Strings(extra)
	_, out, _ = runCLI(t, append([]string{"tree", "--format", "json", "-q"}, extra...)...)
	var more treeReport
	decodeJSON(t, out, &more)
	trees := append(r.Trees, more.Trees...)

	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	compared := 0
	for _, tr := range trees {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			want, ok := lddSet(t, tr.Path)
			if !ok {
				return // another machine's code: ldd cannot trace it
			}
			got := resolvedSet(tr)
			mu.Lock()
			defer mu.Unlock()
			compared++
			for name, wp := range want {
				if gp, ok := got[name]; !ok || realPath(gp) != realPath(wp) {
					t.Errorf("%s: ldd resolves %s to %q, etlink tree to %q", tr.Path, name, wp, gp)
				}
			}
			for name, gp := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("%s: etlink tree resolves %s to %q, ldd lists no such library", tr.Path, name, gp)
				}
			}
		}()
	}
	wg.Wait()
	if compared < len(r.Trees)+100 {
		t.Errorf("compared %d objects; torch's closure on Debian has some 290", compared)
	}
	t.Logf("%d objects (%d of torch, %d of its closure) agree with ldd", compared, len(r.Trees), len(more.Trees))
}

// resolvedSet flattens a tree into DT_NEEDED name -> file ("" when not
// found), leaving out the dynamic loader, which ldd prints as the
// interpreter.
func resolvedSet(tr *treeNode) map[string]string {
	out := map[string]string{}
	var walk func(n *treeNode)
	walk = func(n *treeNode) {
		for _, c := range n.Needed {
			if !strings.HasPrefix(c.Name, "ld-linux") {
				out[c.Name] = c.Path
			}
			walk(c)
		}
	}
	walk(tr)
	return out
}

// lddSet runs ldd on file and reads its "name => path" lines ("" for not
// found); ok is false when ldd cannot trace the file.
func lddSet(t *testing.T, file string) (map[string]string, bool) {
	cmd := exec.Command("ldd", file)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")} // no LD_LIBRARY_PATH
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	set := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		name, rest, ok := strings.Cut(strings.TrimSpace(sc.Text()), " => ")
		if !ok || strings.HasPrefix(name, "ld-linux") {
			continue
		}
		if rest == "not found" {
			set[name] = ""
			continue
		}
		path, _, _ := strings.Cut(rest, " (")
		set[name] = path
	}
	return set, true
}

func realPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// TestTreeNotFound: a DT_NEEDED nothing provides is "not found" with the
// paths tried, and the exit code says so.
func TestTreeNotFound(t *testing.T) {
	testenv.NeedTools(t, "gcc")
	dir := t.TempDir()
	dep := filepath.Join(dir, "libgone.so")
	sh(t, "-c", "cd "+dir+" && echo 'int gone(void){return 1;}' > gone.c && gcc -shared -fPIC -o libgone.so gone.c && "+
		"echo 'int gone(void); int f(void){return gone();}' > f.c && gcc -shared -fPIC -o libf.so f.c -Wl,--no-as-needed -L. -lgone -Wl,-rpath,'$ORIGIN/lib'")
	if err := os.Remove(dep); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "tree", filepath.Join(dir, "libf.so"), "-q")
	if code != exitFindings || !strings.Contains(out, "libgone.so => not found (tried "+filepath.Join(dir, "lib", "libgone.so")) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestTreeInheritedRpathMatchesLdd holds the search's DT_RPATH chain to
// glibc's loader: a library's DT_RPATH serves the libraries it loads, and
// theirs, down the chain (libtop -> liba -> libb -> libleaf, found only
// through libtop's), unless the one searching has a DT_RUNPATH, which
// turns its loaders' DT_RPATH off (libtop -> librun -> libleaf: not found;
// ldd, tracing on past the failure, lists libleaf.so twice).
func TestTreeInheritedRpathMatchesLdd(t *testing.T) {
	testenv.NeedTools(t, "gcc", "ldd")
	dir := t.TempDir()
	sh(t, "-c", "cd "+dir+` && mkdir top deps && cd deps &&
		echo 'int leaf(void){return 1;}' > leaf.c && gcc -shared -fPIC -o libleaf.so leaf.c &&
		echo 'int leaf(void); int b(void){return leaf();}' > b.c && gcc -shared -fPIC -o libb.so b.c -Wl,--no-as-needed -L. -lleaf &&
		echo 'int b(void); int a(void){return b();}' > a.c && gcc -shared -fPIC -o liba.so a.c -Wl,--no-as-needed -L. -lb &&
		echo 'int leaf(void); int run(void){return leaf();}' > run.c && gcc -shared -fPIC -o librun.so run.c -Wl,--no-as-needed -L. -lleaf -Wl,-rpath,/nonexistent -Wl,--enable-new-dtags &&
		cd ../top && echo 'int a(void); int run(void); int top(void){return a()+run();}' > top.c &&
		gcc -shared -fPIC -o libtop.so top.c -Wl,--no-as-needed -L../deps -la -lrun -Wl,-rpath,'$ORIGIN/../deps' -Wl,--disable-new-dtags`)
	top := filepath.Join(dir, "top", "libtop.so")
	deps, _ := filepath.EvalSymlinks(filepath.Join(dir, "deps"))
	out, err := exec.Command("ldd", top).Output()
	if err != nil {
		t.Fatalf("ldd: %v", err)
	}
	var ldd []string // "name => real path or not found", as ldd lists them
	for _, line := range strings.Split(string(out), "\n") {
		if name, rest, ok := strings.Cut(strings.TrimSpace(line), " => "); ok && strings.HasSuffix(name, ".so") {
			path, _, _ := strings.Cut(rest, " (")
			ldd = append(ldd, name+" => "+realPath(strings.TrimPrefix(path, "not found")))
		}
	}
	sort.Strings(ldd)
	wantLdd := []string{"liba.so => " + deps + "/liba.so", "libb.so => " + deps + "/libb.so", "libleaf.so => ",
		"libleaf.so => " + deps + "/libleaf.so", "librun.so => " + deps + "/librun.so"}
	if strings.Join(ldd, "\n") != strings.Join(wantLdd, "\n") {
		t.Fatalf("ldd lists\n%s\nthe scenario wants\n%s", strings.Join(ldd, "\n"), strings.Join(wantLdd, "\n"))
	}
	_, js, errs := runCLI(t, "tree", top, "--format", "json", "-q")
	var r treeReport
	decodeJSON(t, js, &r)
	if len(r.Trees) != 1 {
		t.Fatalf("%d trees (stderr %s)", len(r.Trees), errs)
	}
	var got []string // the same, from each needer's own search
	var walk func(n *treeNode)
	walk = func(n *treeNode) {
		for _, c := range n.Needed {
			if strings.HasSuffix(c.Name, ".so") {
				got = append(got, c.Name+" => "+realPath(c.Path))
			}
			walk(c)
		}
	}
	walk(r.Trees[0])
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(wantLdd, "\n") {
		t.Errorf("etlink tree resolves\n%s\nldd\n%s", strings.Join(got, "\n"), strings.Join(wantLdd, "\n"))
	}
}

func decodeJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("JSON does not decode: %v\n%.2000s", err, out)
	}
}

// TestTreeFolds: a library is listed where it first appears; the entries
// that name it again are one count under the tree, and --full lists them.
func TestTreeFolds(t *testing.T) {
	leaf := func() *treeNode { return &treeNode{Name: "libc.so.6", Path: "/lib/libc.so.6", Via: "ld.so.cache"} }
	again := func(name string) *treeNode { n := leaf(); n.Name, n.Repeat = name, true; return n }
	root := &treeNode{Path: "/pkg/_C.so", Needed: []*treeNode{
		{Name: "liba.so", Path: "/pkg/liba.so", Via: "ld.so.cache", Needed: []*treeNode{leaf()}},
		{Name: "libb.so", Path: "/pkg/libb.so", Via: "ld.so.cache", Needed: []*treeNode{again("libc.so.6")}},
		again("libc.so.6"),
	}}
	for _, tc := range []struct {
		full        bool
		lines, seen int
		count       string
	}{
		{false, 5, 0, "(2 more DT_NEEDED entries name libraries shown above; --full lists them)"},
		{true, 6, 2, ""},
	} {
		var buf bytes.Buffer
		printTrees(&app{stdout: &buf}, []*treeNode{root}, tc.full)
		out := buf.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != tc.lines || strings.Count(out, "[shown above]") != tc.seen || !strings.Contains(out, tc.count) ||
			strings.Count(out, "libc.so.6 => /lib/libc.so.6 [ld.so.cache]") != 1 {
			t.Errorf("full=%v:\n%s", tc.full, out)
		}
	}
}

package linkline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/budget"
)

// doubledChain is build.ninja and n files f0..f(n-1), each naming the next
// twice with kw: read per path through the graph, 2^n reads.
func doubledChain(kw string, n int) map[string]string {
	files := map[string]string{"build.ninja": kw + " f0.ninja\n", fmt.Sprintf("f%d.ninja", n): "x = 1\n"}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("f%d.ninja", i)] = fmt.Sprintf("%s f%d.ninja\n%s f%d.ninja\n", kw, i+1, kw, i+1)
	}
	return files
}

func TestNinjaFileReadOnce(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // in the error: the second includer, then the first
	}{
		{"double include", map[string]string{"build.ninja": "include a.ninja\n\ninclude a.ninja\n", "a.ninja": "x = 1\n"},
			[]string{"build.ninja:3: include a.ninja: ", "first at ", "build.ninja:1"}},
		{"double subninja", map[string]string{"build.ninja": "subninja a.ninja\nsubninja a.ninja\n", "a.ninja": "x = 1\n"},
			[]string{"build.ninja:2: subninja a.ninja: ", "build.ninja:1"}},
		{"subninja then include", map[string]string{"build.ninja": "subninja a.ninja\ninclude a.ninja\n", "a.ninja": "x = 1\n"},
			[]string{"build.ninja:2: include a.ninja: ", "build.ninja:1"}},
		{"diamond", map[string]string{"build.ninja": "include b.ninja\ninclude c.ninja\n", "b.ninja": "include d.ninja\n", "c.ninja": "\ninclude d.ninja\n", "d.ninja": "x = 1\n"},
			[]string{"c.ninja:2: include d.ninja: ", "first at ", "b.ninja:1"}},
		{"through a symlink", map[string]string{"build.ninja": "include a.ninja\ninclude sub/../link.ninja\n", "a.ninja": "x = 1\n"},
			[]string{"build.ninja:2: include sub/../link.ninja: ", "build.ninja:1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt, _ := testOptions(t, debianSpecs(t))
			writeFiles(t, opt.Dir, tc.files)
			os.Mkdir(filepath.Join(opt.Dir, "sub"), 0o755)
			if err := os.Symlink("a.ninja", filepath.Join(opt.Dir, "link.ninja")); err != nil {
				t.Fatal(err)
			}
			_, errs := ParseNinja(filepath.Join(opt.Dir, "build.ninja"), Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs})
			if len(errs) != 1 || !errors.Is(errs[0], ErrNinjaSyntax) {
				t.Fatalf("errors %v, want one", errs)
			}
			msg := errs[0].Error()
			if !strings.Contains(msg, "included a second time") {
				t.Errorf("error %q does not say the file is included twice", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

// TestNinjaDoubledChain: 40 files each naming the next twice end at the
// first second read, having read each file once.
func TestNinjaDoubledChain(t *testing.T) {
	for _, kw := range []string{"include", "subninja"} {
		t.Run(kw, func(t *testing.T) {
			opt, _ := testOptions(t, debianSpecs(t))
			writeFiles(t, opt.Dir, doubledChain(kw, 40))
			b := budget.New(budget.Defaults)
			start := time.Now()
			_, errs := ParseNinja(filepath.Join(opt.Dir, "build.ninja"), Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs, Budget: b})
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %v", d)
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "f39.ninja:2: "+kw+" f40.ninja: ") {
				t.Errorf("errors %v, want f39.ninja's second %s of f40.ninja", errs, kw)
			}
			if n := b.Used(budget.Included); n != 42 {
				t.Errorf("%d build files charged, want 42 (build.ninja, f0..f40)", n)
			}
		})
	}
}

func TestNinjaIncludeNesting(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	files := map[string]string{"build.ninja": "include f0.ninja\n", "f100.ninja": "x = 1\n"}
	for i := 0; i < 100; i++ {
		files[fmt.Sprintf("f%d.ninja", i)] = fmt.Sprintf("include f%d.ninja\n", i+1)
	}
	writeFiles(t, opt.Dir, files)
	_, errs := ParseNinja(filepath.Join(opt.Dir, "build.ninja"), Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "f63.ninja:1: include f64.ninja: ninja syntax: includes nested deeper than 64") {
		t.Errorf("errors %v, want the 65th nested include refused", errs)
	}
}

// TestBuildFileBudget: each build file read is charged; past the budget
// the error names the file not read.
func TestBuildFileBudget(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	writeFiles(t, opt.Dir, map[string]string{
		"build.ninja":               "include a.ninja\ninclude b.ninja\n",
		"a.ninja":                   "rule r\n  command = g++ @big.rsp -o $out\nbuild x: r\n",
		"b.ninja":                   "x = 1\n",
		"big.rsp":                   strings.Repeat("a.o ", 1000),
		"CMakeFiles/t.dir/link.txt": "g++ @big.rsp -o t\n",
	})
	var lim budget.Limits
	lim[budget.Included] = 3
	o := Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs, Budget: budget.New(lim)}
	_, errs := ParseNinja(filepath.Join(opt.Dir, "build.ninja"), o)
	var ex *budget.Exhausted
	if len(errs) != 1 || !errors.As(errs[0], &ex) || ex.Kind != budget.Included || !strings.Contains(errs[0].Error(), "build.ninja:2: include b.ninja: "+filepath.Join(opt.Dir, "b.ninja")+": ") {
		t.Errorf("errors %v, want the include budget spent at b.ninja", errs)
	}

	lim = budget.Limits{}
	lim[budget.Read] = 3000
	o.Budget = budget.New(lim)
	_, err := ParseLinkTxt(filepath.Join(opt.Dir, "CMakeFiles/t.dir/link.txt"), o)
	if !errors.As(err, &ex) || ex.Kind != budget.Read || !strings.Contains(err.Error(), "response file big.rsp: ") {
		t.Errorf("error %v, want the read budget spent at big.rsp", err)
	}
}

// TestResponseFileConfined: a response file named by a build tree is read
// only from inside the tree, and only if regular.
func TestResponseFileConfined(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	root := filepath.Dir(opt.Dir)
	build := filepath.Join(root, "build")
	writeFiles(t, root, map[string]string{
		"outside.rsp":     "secret.o",
		"build/in.rsp":    "in.o -lfoo",
		"build/sub/n.rsp": "@../outside.rsp", // relative to the link's directory
	})
	for name, target := range map[string]string{"build/zero.rsp": "/dev/zero", "build/out.rsp": "../outside.rsp", "build/ok.rsp": "in.rsp"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(build, "fifo.rsp"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Specs: opt.Specs, SearchDirs: opt.SearchDirs}
	tests := []struct {
		arg  string
		want string // "" = read
	}{
		{"@in.rsp", ""},
		{"@ok.rsp", ""},
		{"@/etc/passwd", "response file /etc/passwd: /etc/passwd is outside " + build},
		{"@../outside.rsp", "response file ../outside.rsp: " + filepath.Join(root, "outside.rsp") + " is outside"},
		{"@out.rsp", "response file out.rsp: " + filepath.Join(root, "outside.rsp") + " is outside"},
		{"@zero.rsp", "response file zero.rsp: /dev/zero is outside"},
		{"@sub/n.rsp", "response file ../outside.rsp (via " + filepath.Join(build, "sub/n.rsp") + "): " + filepath.Join(root, "outside.rsp") + " is outside"},
		{"@fifo.rsp", "response file fifo.rsp: open " + filepath.Join(build, "fifo.rsp") + ": not a regular file (a FIFO)"},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			check := func(what string, err error) {
				t.Helper()
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%s: %v", what, err)
				case tc.want != "" && (!errors.Is(err, ErrResponseFile) || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("%s: error %v, want one with %q", what, err, tc.want)
				}
			}
			writeFiles(t, build, map[string]string{
				"CMakeFiles/t.dir/link.txt": "g++ " + tc.arg + " -o t\n",
				"build.ninja":               "rule r\n  command = g++ " + tc.arg + " -o $out\nbuild t: r\n",
			})
			_, err := ParseLinkTxt(filepath.Join(build, "CMakeFiles/t.dir/link.txt"), o)
			check("link.txt", err)
			_, errs := ParseNinja(filepath.Join(build, "build.ninja"), o)
			check("build.ninja", errors.Join(errs...))
			lo := o
			lo.Dir = root
			_, errs = ParseLog(strings.NewReader("make: Entering directory '"+build+"'\ng++ "+tc.arg+" -o t\n"), "build.log", lo)
			check("log", errors.Join(errs...))
		})
	}
	// A command the user gives is trusted: its response files are read
	// wherever they are.
	o.Dir = build
	if _, err := ParseArgs([]string{"g++", "@../outside.rsp", "-o", "t"}, o); err != nil {
		t.Errorf("ParseArgs: %v", err)
	}
}

// TestFileAPIReplyReadOnce: a codemodel naming one target reply again
// (by another name, or through a link) gets it read once; every reply
// file read is charged.
func TestFileAPIReplyReadOnce(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	opt.Dir = ""
	build := fileAPIReply(t, appTarget, "cache")
	reply := filepath.Join(build, ".cmake/api/v1/reply")
	if err := os.Symlink("target-app.json", filepath.Join(reply, "again.json")); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, reply, map[string]string{"codemodel-v2-1.json": `{"paths":{"source":"/src","build":"` + build + `"},"configurations":[{"name":"","targets":[` +
		`{"name":"app","jsonFile":"target-app.json"},{"name":"app","jsonFile":"./target-app.json"},{"name":"app","jsonFile":"again.json"}]}]}`})
	opt.Budget = budget.New(budget.Defaults)
	links, errs := ParseFileAPI(build, opt)
	if len(links) != 1 || len(errs) != 2 {
		t.Fatalf("%d links, errors %v; want one link and two errors", len(links), errs)
	}
	for i, name := range []string{"./target-app.json", "again.json"} {
		if msg := errs[i].Error(); !strings.HasPrefix(msg, filepath.Join(reply, "codemodel-v2-1.json")+": ") || !strings.Contains(msg, "names target reply "+name+" more than once") {
			t.Errorf("error %q, want the codemodel naming %s again", msg, name)
		}
	}
	// index, codemodel, cache, the target: four files.
	if n := opt.Budget.Used(budget.Included); n != 4 {
		t.Errorf("%d reply files charged, want 4", n)
	}
}

// TestResponseFileArgs: response files give one command at most room
// arguments, however they nest (maxRspArgs in a parse; 10 here).
func TestResponseFileArgs(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	writeFiles(t, opt.Dir, map[string]string{
		"big.rsp":  strings.Repeat("a.o ", 1000),
		"half.rsp": "a.o b.o c.o d.o e.o",
		"nest.rsp": "@half.rsp x.o",
	})
	s := newSession(opt)
	s.rspRoot = opt.Dir
	for _, tc := range []struct {
		args []string
		want string // "" = fits
	}{
		{[]string{"@big.rsp"}, fmt.Sprintf("response file big.rsp: the command holds more than %d arguments", maxRspArgs)},
		{[]string{"@half.rsp", "@nest.rsp"}, "response file half.rsp (via " + filepath.Join(opt.Dir, "nest.rsp") + "): the command holds more than"},
		{[]string{"@half.rsp", "@half.rsp"}, ""},
		{[]string{"o.o", "@half.rsp", "@half.rsp"}, "response file half.rsp: the command holds more than"},
	} {
		var args []word
		for _, a := range tc.args {
			args = append(args, word{text: a})
		}
		out, err := s.expandRspWithin(args, opt.Dir, nil, 10)
		switch {
		case tc.want == "" && (err != nil || len(out) != 10):
			t.Errorf("%q: %d words, error %v; want 10", tc.args, len(out), err)
		case tc.want != "" && (!errors.Is(err, ErrResponseFile) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// One 16 MB variable (within maxNinjaValue) named by many build
// statements expands past maxExpanded in all: an error at the statement
// that passes it, not 16 GB of commands and response files.
func TestNinjaTotalExpansionBounded(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("big = " + strings.Repeat("x", maxNinjaValue-1) + "\n")
	// The command does not name the response file: what is measured is
	// the expansion, not the splitting of 16 MB words.
	b.WriteString("rule link\n  command = c++ -shared -o $out\n  rspfile = $out.rsp\n  rspfile_content = $big\n")
	n := int(maxExpanded/maxNinjaValue) + 2
	for i := range n {
		fmt.Fprintf(&b, "build lib%d.so: link a.o\n", i)
	}
	p := filepath.Join(dir, "build.ninja")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := ParseNinja(p, Options{})
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Error(), "expand to more than") {
		t.Fatalf("errors %v, want the total expansion refused", errs)
	}
}

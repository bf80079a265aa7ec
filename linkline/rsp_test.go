package linkline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitRsp(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a b\tc\nd", []string{"a", "b", "c", "d"}},
		{`"a b" 'c d' e\ f`, []string{"a b", "c d", "e f"}},
		{`'it\'s' "q\"q"`, []string{"it's", `q"q`}}, // libiberty: backslash escapes inside quotes too
		{`a\\b`, []string{`a\b`}},
		{`"" x`, []string{"", "x"}},
		{"  \n\n  ", nil},
		{`-Wl,-rpath,'$ORIGIN'`, []string{"-Wl,-rpath,$ORIGIN"}},
		{`"unterminated`, []string{"unterminated"}},
	}
	for _, tc := range tests {
		var got []string
		words, _ := splitRsp(tc.in, "f.rsp", maxRspArgs)
		for _, w := range words {
			got = append(got, w.text)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitRsp(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	words, _ := splitRsp("a\n\nb 'c\nd' e", "f.rsp", maxRspArgs)
	var lines []int
	for _, w := range words {
		lines = append(lines, w.src.Line)
	}
	if !reflect.DeepEqual(lines, []int{1, 3, 3, 4}) {
		t.Errorf("lines %v, want [1 3 3 4]", lines)
	}
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResponseFiles(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	dir := opt.Dir
	writeFiles(t, dir, map[string]string{
		"objs.rsp":        "a.o\n'b c.o'\n@sub/libs.rsp\n",
		"sub/libs.rsp":    "-Wl,--no-as-needed -lfoo\n-Wl,--as-needed\n", // relative to the cwd, not to objs.rsp
		"link.rsp":        "-Wl,@ld.rsp",
		"ld.rsp":          "--whole-archive libw.a --no-whole-archive",
		"cycle1.rsp":      "@cycle2.rsp",
		"cycle2.rsp":      "x.o @cycle1.rsp",
		"sub/missing.rsp": "@nothere.rsp",
	})
	for i := 0; i <= maxRspDepth+1; i++ {
		writeFiles(t, dir, map[string]string{fmt.Sprintf("deep%d.rsp", i): fmt.Sprintf("@deep%d.rsp", i+1)})
	}
	l, err := ParseArgs([]string{"g++", "@objs.rsp", "-o", "x", "@link.rsp"}, opt)
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "inputs", render(l.Inputs, false), []string{
		"a.o object as-needed", "b c.o object as-needed", "-lfoo lib default", "libw.a archive as-needed whole-archive",
	})
	eq(t, "source of a.o", l.Inputs[0].Source.String(), filepath.Join(dir, "objs.rsp")+":1")
	eq(t, "source of -lfoo", l.Inputs[2].Source.String(), filepath.Join(dir, "sub/libs.rsp")+":1")
	eq(t, "index of -lfoo", l.Inputs[2].Index, 3) // a.o, 'b c.o', --no-as-needed, -lfoo

	errTests := []struct {
		arg  string
		want []string
	}{
		{"@cycle1.rsp", []string{"cycle", "cycle1.rsp -> ", "cycle2.rsp -> ", "cycle1.rsp"}},
		{"@deep0.rsp", []string{"deeper than 16", "deep0.rsp -> ", "deep16.rsp"}},
		{"@nothere.rsp", []string{"response file nothere.rsp", "no such file"}},
		{"@sub/missing.rsp", []string{"response file nothere.rsp (via ", "sub/missing.rsp"}},
	}
	for _, tc := range errTests {
		_, err := ParseArgs([]string{"g++", tc.arg, "-o", "x"}, opt)
		if !errors.Is(err, ErrResponseFile) {
			t.Errorf("%s: err %v, want ErrResponseFile", tc.arg, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.arg, err, w)
			}
		}
	}
	if _, err := ParseArgs([]string{"g++", "@nothere.rsp", "-o", "x"}, opt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing rsp: %v does not wrap os.ErrNotExist", err)
	}
}

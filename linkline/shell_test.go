package linkline

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSplitShell(t *testing.T) {
	tests := []struct {
		in   string
		want [][]string // words of each command
		ops  []string
	}{
		{`g++ a.o -o x`, [][]string{{"g++", "a.o", "-o", "x"}}, []string{""}},
		{`a 'b c' "d e" f\ g`, [][]string{{"a", "b c", "d e", "f g"}}, nil},
		{`a '$ORIGIN' \$ORIGIN "\$ORIGIN" "$ORIGIN" $ORIGIN`, [][]string{{"a", "$ORIGIN", "$ORIGIN", "$ORIGIN", "$ORIGIN", "$ORIGIN"}}, nil},
		{`a -Wl,-rpath,'$ORIGIN/../lib' -Wl,-rpath,\$ORIGIN`, [][]string{{"a", "-Wl,-rpath,$ORIGIN/../lib", "-Wl,-rpath,$ORIGIN"}}, nil},
		{`a "x\"y" "p\q" 'it'\''s'`, [][]string{{"a", `x"y`, `p\q`, "it's"}}, nil},
		{`a && b || c ; d | e & f`, [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}, []string{"&&", "||", ";", "|", "&", ""}},
		{": && /usr/bin/c++ x.o -o x && :", [][]string{{":"}, {"/usr/bin/c++", "x.o", "-o", "x"}, {":"}}, []string{"&&", "&&", ""}},
		{"cd /b && g++ x.o -o x", [][]string{{"cd", "/b"}, {"g++", "x.o", "-o", "x"}}, nil},
		{"a\nb\\\nc", [][]string{{"a"}, {"bc"}}, nil},
		{"a >out.txt 2>&1 b < in c 2> err", [][]string{{"a", "b", "c"}}, nil},
		{"a # comment && b", [][]string{{"a"}}, nil},
		{"a x#y", [][]string{{"a", "x#y"}}, nil},
		{"a $(echo x y) ${V} `q r`", [][]string{{"a", "$(echo x y)", "${V}", "`q r`"}}, nil},
		{`a "" ''`, [][]string{{"a", "", ""}}, nil},
		{"(cd sub; g++ -o x y.o)", [][]string{{"cd", "sub"}, {"g++", "-o", "x", "y.o"}}, nil},
		{"ld -( a.a -)", [][]string{{"ld", "-(", "a.a", "-)"}}, nil},
	}
	for _, tc := range tests {
		cmds, err := splitShell(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var got [][]string
		var ops []string
		for _, c := range cmds {
			got = append(got, c.words)
			ops = append(ops, c.op)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if tc.ops != nil && !reflect.DeepEqual(ops, tc.ops) {
			t.Errorf("%q: ops %q, want %q", tc.in, ops, tc.ops)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`, "a `b", "a $(b", `a "$(b"`} {
		if _, err := splitShell(bad); !errors.Is(err, errUnterminated) {
			t.Errorf("%q: err %v, want unterminated", bad, err)
		}
	}
}

func TestStripPrefix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"env A=B C=D g++ x", "g++ x"},
		{"env -i -u X A=1 -- g++ x", "g++ x"},
		{"A=B g++ x", "g++ x"},
		{"/usr/bin/env LANG=C ccache /usr/bin/c++ x", "/usr/bin/c++ x"},
		{"g++ A=B", "g++ A=B"},
		{"env", ""},
	}
	for _, tc := range tests {
		got := strings.Join(stripPrefix(strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("stripPrefix(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseCommand(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	base := opt.Dir
	tests := []struct {
		cmd    string
		out    string
		dir    string // relative to base
		inputs []string
		rpath  string
	}{
		{cmd: `g++ a.o -o x`, out: "x", dir: ".", inputs: []string{"a.o object as-needed"}},
		{cmd: `cd sub && g++ a.o -o x`, out: "x", dir: "sub", inputs: []string{"a.o object as-needed"}},
		{cmd: `cd sub; cd ../other && env A=B g++ a.o -o x`, out: "x", dir: "other"},
		{cmd: `: && /usr/bin/g++ a.o -o "my app" && :`, out: "my app", dir: "."},
		{cmd: `/usr/bin/cmake -E rm -f libx.a && /usr/bin/ar qc libx.a a.o && g++ -shared a.o -o liby.so`, out: "liby.so", dir: "."},
		{cmd: `g++ -c a.cpp -o a.o && g++ a.o -o x || echo failed`, out: "x", dir: "."},
		{cmd: `g++ a.o -Wl,-rpath,'$ORIGIN/../lib' -o x`, out: "x", dir: ".", rpath: "$ORIGIN/../lib"},
		{cmd: `g++ a.o -Wl,-rpath,\$ORIGIN -o x`, out: "x", dir: ".", rpath: "$ORIGIN"},
		{cmd: `g++ 'dir with space/a.o' -o x`, out: "x", dir: ".", inputs: []string{"dir with space/a.o object as-needed"}},
		{cmd: `ccache g++ a.o -o x 2>&1 | tee log`, out: "x", dir: "."},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			l, err := ParseCommand(tc.cmd, opt)
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "Output", l.Output, tc.out)
			eq(t, "Dir", l.Dir, filepath.Join(base, tc.dir))
			if tc.inputs != nil {
				equalLines(t, "inputs", render(l.Inputs, false), tc.inputs)
			}
			if tc.rpath != "" {
				eq(t, "Rpath", strings.Join(l.Rpath, ":"), tc.rpath)
			}
		})
	}
	for _, cmd := range []string{"g++ -c a.cpp -o a.o", "ar qc libx.a a.o", "echo hi", ""} {
		if _, err := ParseCommand(cmd, opt); !errors.Is(err, ErrNotLink) {
			t.Errorf("%q: err %v, want ErrNotLink", cmd, err)
		}
	}
	if _, err := ParseCommand(`g++ 'a.o -o x`, opt); err == nil || errors.Is(err, ErrNotLink) {
		t.Errorf("unterminated quote: err %v", err)
	}
}

package linkline

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// userLibs is the -L dir of the table tests ($L in their arguments).
var userLibs = []string{"libfoo.so", "libfoo.a", "libbar.a", "libbaz.so.1", "libqux.so", "script:libscr.so"}

func TestParseArgsState(t *testing.T) {
	tests := []struct {
		name string
		args string // split on spaces; $L is the user's lib dir
		want []string
	}{
		{"wl-split", "g++ a.o -Wl,--no-as-needed,-lfoo,--as-needed -lbar -o x -L$L",
			[]string{"a.o object as-needed", "-lfoo shared default", "-lbar archive as-needed"}},
		{"xlinker", "g++ a.o -Xlinker --no-as-needed -Xlinker -lfoo -o x -L$L",
			[]string{"a.o object as-needed", "-lfoo shared default"}},
		{"push-pop", "g++ -L$L -Wl,--push-state,--no-as-needed -lfoo -Wl,--pop-state -lqux -o x",
			[]string{"-lfoo shared default", "-lqux shared as-needed"}},
		{"push-pop-nested", "g++ -L$L -Wl,--push-state,--no-as-needed -Wl,--push-state,--whole-archive -lbar -Wl,--pop-state -lfoo -Wl,--pop-state -lqux -o x",
			[]string{"-lbar archive whole-archive", "-lfoo shared default", "-lqux shared as-needed"}},
		{"as-needed-toggle", "g++ -L$L -Wl,--no-as-needed -lfoo -Wl,--as-needed -lqux -o x",
			[]string{"-lfoo shared default", "-lqux shared as-needed"}},
		{"whole-archive", "g++ -Wl,--whole-archive libx.a -Wl,--no-whole-archive liby.a -o x",
			[]string{"libx.a archive as-needed whole-archive", "liby.a archive as-needed"}},
		{"Bstatic-Bdynamic", "g++ -L$L -Wl,-Bstatic -lfoo -Wl,-Bdynamic -lfoo -o x",
			[]string{"-lfoo archive as-needed Bstatic", "-lfoo shared as-needed"}},
		{"dn-dy", "g++ -L$L -Wl,-dn -lfoo -Wl,-dy -lfoo -o x",
			[]string{"-lfoo archive as-needed Bstatic", "-lfoo shared as-needed"}},
		{"Bstatic-no-archive", "g++ -L$L -Wl,-Bstatic -lqux -o x",
			[]string{"-lqux lib as-needed Bstatic"}},
		{"groups", "g++ -L$L -Wl,--start-group -lbar -lfoo -Wl,--end-group -Wl,-( -lbar -Wl,-) -lqux -o x",
			[]string{"-lbar archive as-needed group=1", "-lfoo shared as-needed group=1", "-lbar archive as-needed group=2", "-lqux shared as-needed"}},
		{"l-separate", "g++ a.o -l foo -o x -L $L",
			[]string{"a.o object as-needed", "-l foo shared as-needed"}},
		{"l-colon", "g++ -L$L -l:libbaz.so.1 -l:libfoo.a -o x",
			[]string{"-l:libbaz.so.1 shared as-needed", "-l:libfoo.a archive as-needed"}},
		{"l-missing", "g++ -lnothere -o x",
			[]string{"-lnothere lib as-needed"}},
		{"source-file", "g++ main.cpp -x c++ gen -x none b.o -o x",
			[]string{"main.cpp object as-needed", "gen object as-needed", "b.o object as-needed"}},
		{"script-so", "g++ -L$L -lscr -o x",
			[]string{"-lscr script as-needed"}},
		{"linker-script", "g++ a.o -Wl,-T,my.ld -o x",
			[]string{"a.o object as-needed", "-T my.ld script as-needed"}},
		{"static-driver", "g++ -static -L$L a.o -lfoo -o x",
			[]string{"a.o object as-needed Bstatic", "-lfoo archive as-needed Bstatic"}},
		{"linker-direct", "ld -o x a.o -L$L --as-needed -lfoo -( -lbar -) --no-as-needed -lqux",
			[]string{"a.o object default", "-lfoo shared as-needed", "-lbar archive as-needed group=1", "-lqux shared default"}},
		{"linker-direct-static", "ld.lld -o x -L$L -static -lfoo -Bdynamic -lfoo --whole-archive -lbar --no-whole-archive",
			[]string{"-lfoo archive Bstatic", "-lfoo shared default", "-lbar archive whole-archive"}},
		{"linker-single-dash-long", "ld -o x -L$L -as-needed -lfoo -no-as-needed -lqux",
			[]string{"-lfoo shared as-needed", "-lqux shared default"}},
		{"linker-library-long", "ld -o x --library-path=$L --library=foo --library qux",
			[]string{"--library=foo shared default", "--library qux shared default"}},
		{"rsp-in-wl-values", "g++ -o x -Wl,-rpath,/opt/lib -Wl,-soname,libx.so -Wl,-Map,x.map a.o",
			[]string{"a.o object as-needed"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt, _ := testOptions(t, debianSpecs(t))
			lib := fakeLibDir(t, userLibs...)
			args := strings.Fields(strings.ReplaceAll(tc.args, "$L", lib))
			l, err := ParseArgs(args, opt)
			if err != nil {
				t.Fatal(err)
			}
			equalLines(t, strings.Join(args, " "), render(l.Inputs, false), tc.want)
		})
	}
}

func TestParseArgsImplicit(t *testing.T) {
	tests := []struct {
		name          string
		args          string
		specs         string // "debian" (default), "upstream", "error"
		defaultAN     bool
		source        string // prefix of DefaultAsNeededSource
		want          []string
		defaultAsNeed *bool
	}{
		{name: "g++", args: "g++ a.o -o x", defaultAN: true, source: "gcc link spec of g++",
			want: []string{"a.o object as-needed", "+-lstdc++ shared as-needed", "+-lm script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed", "+-lc script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed"}},
		{name: "unclosed-no-as-needed", args: "g++ a.o -Wl,--no-as-needed -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "shared", args: "g++ -shared a.o -o x.so", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lstdc++ shared as-needed", "+-lm script as-needed",
				"+-lgcc_s script as-needed", "+-lc script as-needed", "+-lgcc_s script as-needed"}},
		{name: "static", args: "g++ -static a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed Bstatic", "+-lstdc++ archive as-needed Bstatic", "+-lm archive as-needed Bstatic",
				"+-lgcc archive as-needed Bstatic group=1", "+-lgcc_eh archive as-needed Bstatic group=1", "+-lc archive as-needed Bstatic group=1"}},
		{name: "gcc-c", args: "gcc a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lgcc archive as-needed", "+-lgcc_s script as-needed",
				"+-lc script as-needed", "+-lgcc archive as-needed", "+-lgcc_s script as-needed"}},
		{name: "gcc-c-no-as-needed", args: "gcc a.o -Wl,--no-as-needed -o x", defaultAN: true,
			// libgcc_s stays under --as-needed: the specs push and pop around it.
			want: []string{"a.o object as-needed", "+-lgcc archive default", "+-lgcc_s script as-needed",
				"+-lc script default", "+-lgcc archive default", "+-lgcc_s script as-needed"}},
		{name: "g++-moves-lm-lc", args: "g++ a.o -lm -lc -lstdc++ -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "-lstdc++ shared as-needed", "+-lstdc++ shared as-needed", "-lm script as-needed",
				"-lc script as-needed", "+-lgcc_s script as-needed", "+-lgcc archive as-needed", "+-lc script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed"}},
		{name: "static-libstdc++", args: "g++ -static-libstdc++ a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lstdc++ archive as-needed Bstatic", "+-lm script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed", "+-lc script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed"}},
		{name: "asan", args: "g++ -fsanitize=address a.o -o x", defaultAN: false,
			want: []string{"+-lasan shared default", "a.o object default", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "ubsan", args: "g++ -fsanitize=undefined a.o -o x", defaultAN: false,
			want: []string{"a.o object default", "+-lstdc++ shared default", "+-lm script default", "+-lubsan shared default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "asan-then-off", args: "g++ -fsanitize=address -fno-sanitize=address a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lstdc++ shared as-needed", "+-lm script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed", "+-lc script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed"}},
		{name: "openmp", args: "g++ -fopenmp a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed", "+-lstdc++ shared as-needed", "+-lm script as-needed", "+-lgomp shared as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed", "+-lpthread lib as-needed", "+-lc script as-needed",
				"+-lgcc_s script as-needed", "+-lgcc archive as-needed"}},
		{name: "nostdlib", args: "g++ -nostdlib a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed"}},
		{name: "nodefaultlibs", args: "g++ -nodefaultlibs a.o -o x", defaultAN: true,
			want: []string{"a.o object as-needed"}},
		{name: "relocatable", args: "g++ -r a.o -o y.o", defaultAN: true,
			want: []string{"a.o object as-needed"}},
		{name: "upstream-gcc", args: "g++ a.o -o x", specs: "upstream", defaultAN: false, source: "gcc link spec of g++",
			want: []string{"a.o object default", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "gcc-not-runnable", args: "/nonexistent/x86_64-linux-gnu-g++-13 a.o -o x", specs: "error", defaultAN: false, source: "not determined",
			want: []string{"a.o object default", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "unknown-driver", args: "icpx a.o -o x", specs: "error", defaultAN: false, source: "not determined",
			want: []string{"a.o object default"}},
		{name: "clang++", args: "clang++ a.o -o x", defaultAN: false, source: "clang driver",
			want: []string{"a.o object default", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "clang-c-as-needed", args: "clang-14 a.o -Wl,--as-needed -o x", defaultAN: false, source: "clang driver",
			// clang closes its libgcc_s with --no-as-needed, not --pop-state.
			want: []string{"a.o object default", "+-lgcc archive as-needed", "+-lgcc_s script as-needed",
				"+-lc script default", "+-lgcc archive default", "+-lgcc_s script as-needed"}},
		{name: "clang-static", args: "clang++ -static a.o -o x", defaultAN: false, source: "clang driver",
			want: []string{"a.o object Bstatic", "+-lstdc++ archive Bstatic", "+-lm archive Bstatic",
				"+-lgcc archive Bstatic group=1", "+-lgcc_eh archive Bstatic group=1", "+-lc archive Bstatic group=1"}},
		{name: "override-off", args: "g++ a.o -o x", defaultAN: false, source: "--default-as-needed", defaultAsNeed: new(bool),
			want: []string{"a.o object default", "+-lstdc++ shared default", "+-lm script default",
				"+-lgcc_s script default", "+-lgcc archive default", "+-lc script default",
				"+-lgcc_s script default", "+-lgcc archive default"}},
		{name: "linker", args: "ld.gold a.o -o x", defaultAN: false, source: "linker invoked directly",
			want: []string{"a.o object default"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var specs string
			switch tc.specs {
			case "upstream":
				specs = upstreamSpecs(t)
			case "", "debian":
				specs = debianSpecs(t)
			}
			opt, _ := testOptions(t, specs)
			if tc.specs == "error" {
				opt.Specs = func(d string) (string, error) { return "", errors.New(d + ": not found") }
			}
			opt.DefaultAsNeeded = tc.defaultAsNeed
			l, err := ParseArgs(strings.Fields(tc.args), opt)
			if err != nil {
				t.Fatal(err)
			}
			if l.DefaultAsNeeded != tc.defaultAN {
				t.Errorf("DefaultAsNeeded = %v, want %v (%s)", l.DefaultAsNeeded, tc.defaultAN, l.DefaultAsNeededSource)
			}
			if tc.source != "" && !strings.HasPrefix(l.DefaultAsNeededSource, tc.source) {
				t.Errorf("DefaultAsNeededSource = %q, want prefix %q", l.DefaultAsNeededSource, tc.source)
			}
			equalLines(t, tc.args, render(l.Inputs, true), tc.want)
			for _, in := range l.Inputs {
				if in.Implicit && in.Index != -1 {
					t.Errorf("implicit %s has Index %d", in.Arg, in.Index)
				}
			}
		})
	}
}

func TestParseArgsFields(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	lib := fakeLibDir(t, userLibs...)
	tests := []struct {
		args  string
		check func(t *testing.T, l *Link)
	}{
		{"g++ -o out a.o", func(t *testing.T, l *Link) { eq(t, "Output", l.Output, "out") }},
		{"g++ -oout a.o", func(t *testing.T, l *Link) { eq(t, "Output", l.Output, "out") }},
		{"g++ a.o", func(t *testing.T, l *Link) { eq(t, "Output", l.Output, "a.out") }},
		{"g++ -shared a.o -o x.so", func(t *testing.T, l *Link) {
			eq(t, "Shared", l.Shared, true)
			eq(t, "PIE", l.PIE, false)
		}},
		{"g++ a.o -o x", func(t *testing.T, l *Link) { eq(t, "PIE (Debian's default)", l.PIE, true) }},
		{"g++ -no-pie a.o -o x", func(t *testing.T, l *Link) { eq(t, "PIE", l.PIE, false) }},
		{"g++ -pie a.o -o x", func(t *testing.T, l *Link) { eq(t, "PIE", l.PIE, true) }},
		{"g++ -static a.o -o x", func(t *testing.T, l *Link) { eq(t, "Static", l.Static, true) }},
		{"g++ -r a.o -o y.o", func(t *testing.T, l *Link) { eq(t, "Relocatable", l.Relocatable, true) }},
		{"ld -r a.o -o y.o", func(t *testing.T, l *Link) { eq(t, "Relocatable", l.Relocatable, true) }},
		{"g++ -fuse-ld=lld a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "lld") }},
		{"g++ -fuse-ld=gold a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "gold") }},
		{"g++ -fuse-ld=mold a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "mold") }},
		{"g++ --ld-path=/usr/bin/ld.mold a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "mold") }},
		{"g++ a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "") }},
		{"ld.lld a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "lld") }},
		{"/usr/bin/ld.bfd a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "bfd") }},
		{"aarch64-linux-gnu-ld a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "bfd") }},
		{"mold a.o -o x", func(t *testing.T, l *Link) { eq(t, "Linker", l.Linker, "mold") }},
		{"g++ -Wl,-Map,m1 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m1") }},
		{"g++ -Wl,-Map=m2 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m2") }},
		{"g++ -Wl,--Map=m3 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m3") }},
		{"g++ -Xlinker -Map -Xlinker m4 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m4") }},
		{"ld -Map m5 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m5") }},
		{"ld --Map m6 a.o -o x", func(t *testing.T, l *Link) { eq(t, "MapFile", l.MapFile, "m6") }},
		{"g++ -Wl,-rpath,/a -Wl,-rpath=/b -Wl,--rpath=/c -Xlinker -R -Xlinker /d -Wl,-R/e -Wl,-rpath-link,/f a.o -o x", func(t *testing.T, l *Link) {
			eq(t, "Rpath", strings.Join(l.Rpath, " "), "/a /b /c /d /e")
			eq(t, "RpathLink", strings.Join(l.RpathLink, " "), "/f")
		}},
		{"g++ -Wl,-rpath,'$ORIGIN/../lib' a.o -o x", func(t *testing.T, l *Link) {
			eq(t, "Rpath", strings.Join(l.Rpath, " "), "'$ORIGIN/../lib'") // argv: quotes are the shell's job
		}},
		{"g++ -L/a -L /b -Wl,-L/c a.o -o x", func(t *testing.T, l *Link) {
			eq(t, "LibDirs", strings.Join(l.LibDirs, " "), "/a /b /c")
		}},
		{"g++ -Wl,-soname,libx.so.1 -shared a.o -o x", func(t *testing.T, l *Link) { eq(t, "Soname", l.Soname, "libx.so.1") }},
		{"ld -h libx.so.2 -shared a.o -o x", func(t *testing.T, l *Link) { eq(t, "Soname", l.Soname, "libx.so.2") }},
		{"g++ --sysroot=/sr a.o -o x", func(t *testing.T, l *Link) { eq(t, "Sysroot", l.Sysroot, "/sr") }},
		{"g++ -O2 a.o -Wl,-rpath,/x,-lfoo -Xlinker -lbar -l baz -lqux -o x", func(t *testing.T, l *Link) {
			idx := map[string]int{}
			for _, in := range l.Inputs {
				if !in.Implicit {
					idx[in.Arg] = in.Index
				}
			}
			eq(t, "index a.o", idx["a.o"], 1)
			eq(t, "index -lfoo", idx["-lfoo"], 4)
			eq(t, "index -lbar", idx["-lbar"], 5)
			eq(t, "index -l baz", idx["-l baz"], 6)
			eq(t, "index -lqux", idx["-lqux"], 8)
		}},
		{"g++ -L$L -lfoo -l:libbaz.so.1 -o x", func(t *testing.T, l *Link) {
			eq(t, "Name", l.Inputs[0].Name, "foo")
			eq(t, "Path", l.Inputs[0].Path, lib+"/libfoo.so")
			eq(t, "Name", l.Inputs[1].Name, ":libbaz.so.1")
			eq(t, "Path", l.Inputs[1].Path, lib+"/libbaz.so.1")
		}},
		{"g++ -Wl,--pop-state -Wl,--end-group a.o -o x", func(t *testing.T, l *Link) {
			eq(t, "warnings", len(l.Warnings), 2)
		}},
		{"g++ -Wl,--start-group a.o -o x", func(t *testing.T, l *Link) {
			eq(t, "warnings", len(l.Warnings), 1)
		}},
		{"g++ a.o -lLINKER:--no-as-needed -o x", func(t *testing.T, l *Link) {
			eq(t, "warnings", len(l.Warnings), 1)
			eq(t, "kind", l.Inputs[1].Kind, KindLib)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			l, err := ParseArgs(strings.Fields(strings.ReplaceAll(tc.args, "$L", lib)), opt)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, l)
		})
	}
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func TestParseArgsErrors(t *testing.T) {
	opt, _ := testOptions(t, debianSpecs(t))
	tests := []struct {
		args    []string
		notLink bool
		msg     string
	}{
		{[]string{"g++", "-c", "a.cpp", "-o", "a.o"}, true, "compiles without linking"},
		{[]string{"g++", "-E", "a.cpp"}, true, ""},
		{[]string{"ar", "qc", "libx.a", "a.o"}, true, ""},
		{[]string{"mytool", "a.o"}, true, "no -o"},
		{[]string{}, true, "empty"},
		{[]string{"g++", "a.o", "-o"}, false, "argument 1: -o: missing value"},
		{[]string{"g++", "a.o", "-Xlinker"}, false, "-Xlinker: missing value"},
		{[]string{"g++", "a.o", "@missing.rsp", "-o", "x"}, false, "response file missing.rsp"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := ParseArgs(tc.args, opt)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNotLink) != tc.notLink {
				t.Errorf("errors.Is(ErrNotLink) = %v: %v", !tc.notLink, err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q lacks %q", err, tc.msg)
			}
		})
	}
}

func TestToolName(t *testing.T) {
	tests := []struct{ in, name, triple string }{
		{"/usr/bin/c++", "c++", ""},
		{"aarch64-linux-gnu-g++", "g++", "aarch64-linux-gnu"},
		{"x86_64-linux-gnu-g++-12", "g++", "x86_64-linux-gnu"},
		{"clang++-14", "clang++", ""},
		{"ld.lld", "ld.lld", ""},
		{"/usr/bin/x86_64-linux-gnu-ld.gold", "ld.gold", "x86_64-linux-gnu"},
		{"gcc-ar", "ar", "gcc"},
		{"icpx", "icpx", ""},
	}
	for _, tc := range tests {
		n, tr := toolName(tc.in)
		if n != tc.name || tr != tc.triple {
			t.Errorf("toolName(%q) = %q, %q; want %q, %q", tc.in, n, tr, tc.name, tc.triple)
		}
	}
	if k, _, _ := classify("gcc-ar"); k != toolNotLink {
		t.Errorf("gcc-ar classified %v", k)
	}
	if !slices.Contains(knownTools, "collect2") {
		t.Error("collect2 is not a known tool")
	}
}

package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
)

func TestTextGolden(t *testing.T) {
	for _, tt := range []struct {
		name    string
		verbose bool
	}{{"report.text.txt", false}, {"report.text-verbose.txt", true}} {
		var buf bytes.Buffer
		if err := Write(&buf, "text", fixtureReport(), Options{BaseDir: fixtureBase, Verbose: tt.verbose, Rules: fixtureRules(), Width: 100}); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, buf.Bytes())
	}
}

// scaleReport is the shape of a check on torch: one error, a few hundred
// warnings on a bundled copy, thousands of notes on C++ templates whose
// demangled names run to thousands of columns, and the constructor and
// destructor variants that demangle alike.
func scaleReport() *finding.Report {
	long := "std::_Hashtable<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, " +
		strings.Repeat("std::pair<c10::IValue const, std::vector<at::Tensor, std::allocator<at::Tensor> > >, ", 40) + "int>::find()"
	fs := []finding.Finding{{Rule: "ET402", Name: "unresolvable-needed", Severity: finding.Error,
		Subject: finding.Subject{File: "/site/torch/bin/test_jit", Symbol: "libbackend_with_compiler.so"},
		Message: "DT_NEEDED libbackend_with_compiler.so would not be found once installed"}}
	for i := range 389 {
		fs = append(fs, finding.Finding{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
			Subject: finding.Subject{File: "/site/pkg.libs/libXNNPACK-40298990.so.0", Symbol: fmt.Sprintf("xnn_op_%03d", i), Component: "XNNPACK", Peer: "libtorch_cpu.so"},
			Message: "FUNC, also exported by libtorch_cpu.so (torch); at most one copy is used in the process"})
	}
	for _, v := range []string{"C1", "C2", "D0", "D1", "D2"} {
		fs = append(fs, finding.Finding{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
			Subject: finding.Subject{File: "/site/pkg/lib/libexecutorch.so", Symbol: "_ZN3c106IValue" + v + "Ev", Demangled: "c10::IValue::IValue()", Component: "torch", Peer: "libc10.so"},
			Message: "FUNC, also exported by libc10.so (torch)"})
	}
	for i := range 2000 {
		fs = append(fs, finding.Finding{Rule: "ET302", Name: "duplicate-within-wheel", Severity: finding.Note,
			Subject: finding.Subject{File: "/site/torch/lib/libtorch_cpu.so", Symbol: fmt.Sprintf("_Z%d", i), Demangled: long, Component: "libstdc++"},
			Message: "OBJECT, exported by 2 objects python3.11 loads: libtorch_cpu.so, libtorch_python.so; vague linkage"})
	}
	return &finding.Report{Inputs: []finding.Input{{Path: "/site/torch"}, {Path: "/site/pkg"}, {Path: "/site/pkg.libs"}}, Findings: fs}
}

// TestTextScale: thousands of findings read as a screen that leads with
// the error, every line within the width, variants told apart.
func TestTextScale(t *testing.T) {
	var buf bytes.Buffer
	if err := Text(&buf, scaleReport(), Options{Width: 100}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) > 20 {
		t.Errorf("%d lines for 3 rules:\n%s", len(lines), buf.String())
	}
	for i, l := range lines {
		if w := displayWidth(l); w > 100 {
			t.Errorf("line %d is %d columns: %q", i+1, w, l)
		}
	}
	for _, want := range []string{
		"ET402 unresolvable-needed: 1 error error torch/bin/test_jit: DT_NEEDED libbackend_with_compiler.so",
		"warning pkg.libs/libXNNPACK-40298990.so.0 [XNNPACK]: xnn_op_000: FUNC, also exported by libtorch_cpu.so",
		"(+388 more: xnn_op_001, xnn_op_002, xnn_op_003, …)",
		"c10::IValue::IValue() [C1]: FUNC, also exported by libc10.so (torch) (+4 more: c10::IValue::IValue() [C2 D0 D1 D2])",
		"+ 2000 notes: libstdc++ 2000",
		"2395 findings: 1 error, 394 warnings, 2000 notes (-v lists the notes)",
	} {
		if !strings.Contains(collapse(buf.String()), collapse(want)) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}

	buf.Reset()
	if err := Text(&buf, scaleReport(), Options{Width: 100, Verbose: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- c10::IValue::IValue() [D2]: FUNC", "- xnn_op_388: FUNC", "note    torch/lib/libtorch_cpu.so [libstdc++]: 2000 findings"} {
		if !strings.Contains(collapse(buf.String()), collapse(want)) {
			t.Errorf("-v lacks %q", want)
		}
	}
	for i, l := range strings.Split(buf.String(), "\n") {
		if w := displayWidth(l); w > 100 {
			t.Fatalf("-v line %d is %d columns: %q", i+1, w, l)
		}
	}
}

func TestElide(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghijklmnopqrstuvwxyz", 11, "abcde…vwxyz"},
		{"日本語のとても長い名前です", 9, "日本…です"},
	} {
		if got := elide(tc.in, tc.n); got != tc.want || displayWidth(got) > tc.n {
			t.Errorf("elide(%q, %d) = %q (%d columns), want %q", tc.in, tc.n, got, displayWidth(got), tc.want)
		}
	}
}

func TestNoFindings(t *testing.T) {
	for _, tc := range []struct {
		inputs []finding.Input
		want   string
	}{
		{[]finding.Input{{Path: "a"}}, "no findings\n"},
		{[]finding.Input{{Path: "a"}, {Path: "b", Error: "bad"}}, "no findings in the inputs read; 1 could not be read\n"},
		{[]finding.Input{{Path: "b", Error: "bad"}}, ""},
	} {
		var buf bytes.Buffer
		if err := Text(&buf, &finding.Report{Inputs: tc.inputs}, Options{}); err != nil || buf.String() != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.inputs, buf.String(), err, tc.want)
		}
	}
}

// TestShortNamesApart: names that elide alike in the middle (38 typeinfo
// names of one template read "typeinfo for std::__future_ba…har>") are
// elided apart, keeping what tells them apart, or shown whole; no two
// distinct names ever show alike, and none is widened.
func TestShortNamesApart(t *testing.T) {
	var names []string
	for i := range 38 {
		names = append(names, fmt.Sprintf("typeinfo for std::__future_base::_Task_state<std::_Bind<void (*(at::Tensor, int, unsigned long%s))(at::Tensor, int)>, std::allocator<int>, void (char)>", strings.Repeat("*", i)))
	}
	names = append(names, "short", strings.Repeat("x", 100), strings.Repeat("x", 99)+"y", "a…b")
	for seed := range 200 { // names sharing long starts and ends, differing anywhere
		mid := strings.Repeat(string(rune('a'+seed%26)), seed%7)
		names = append(names, strings.Repeat("<", 40)+mid+fmt.Sprint(seed%13)+strings.Repeat(">", 40))
	}
	short := shortNames(names, nameWidth)
	shown := map[string]string{}
	for _, n := range names {
		s, ok := short[n]
		if !ok {
			s = n
		} else if s == n || displayWidth(s) >= displayWidth(n) {
			t.Errorf("%q is mapped to %q, no shorter", n, s)
		}
		if other, ok := shown[s]; ok && other != n {
			t.Errorf("%q and %q both show as %q", other, n, s)
		}
		shown[s] = n
	}
	if s := short[names[0]]; !strings.Contains(s, "…") || displayWidth(s) > 120 {
		t.Errorf("a typeinfo name shows as %q: want it elided apart", s)
	}
	if short[strings.Repeat("x", 100)] != elide(strings.Repeat("x", 100), nameWidth) {
		t.Errorf("a name unlike the others is not elided plainly: %q", short[strings.Repeat("x", 100)])
	}
}

// TestWrapKeepsWords: at every width from 30 to 130 columns the text holds
// the words of the text unwrapped, in order: none glued to the next across
// a break (a continuation line that reached the lead's width did), none cut
// (the fix command at 50 columns was), and a line is over the width only
// when one word is wider than the width.
func TestWrapKeepsWords(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{{
		Rule: "ET101", Name: "registration-dropped", Severity: finding.Error,
		Subject:  finding.Subject{File: "build/runner", Member: "register_backend.o", Target: "runner"},
		Location: &finding.Location{File: "/home/user/project/backends/mybackend/CMakeLists.txt", Line: 26},
		Message:  "libmybackend.so registers its backend in a static initializer, but bfd drops it under --as-needed and nothing else references it",
		Fix:      `target_link_libraries(runner PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,mybackend_static>")  # CMake >= 3.24`,
	}}}
	render := func(w int) string {
		var buf bytes.Buffer
		if err := Text(&buf, r, Options{Width: w}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	want := strings.Fields(render(1 << 20))
	for w := 30; w <= 130; w++ {
		out := render(w)
		if got := strings.Fields(out); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("at %d columns the words differ:\n%s", w, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if displayWidth(l) > w && len(strings.Fields(l)) > 1 {
				t.Errorf("at %d columns a line of %d columns: %q", w, displayWidth(l), l)
			}
		}
	}
	if !strings.Contains(strings.Join(want, " "), `"$<LINK_LIBRARY:WHOLE_ARCHIVE,mybackend_static>")`) {
		t.Errorf("the fix is not whole:\n%s", render(1<<20))
	}
}

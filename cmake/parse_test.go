package cmake

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/testenv"
)

// argString renders an argument as text@line:col, with quoting marked:
// "quoted", [bracket], unquoted bare.
func argString(a Arg) string {
	var s string
	switch a.Quoting {
	case Quoted:
		s = fmt.Sprintf("%q", a.Text)
	case Bracket:
		s = fmt.Sprintf("[%q]", a.Text)
	default:
		s = a.Text
	}
	return fmt.Sprintf("%s@%d:%d", s, a.Line, a.Col)
}

// cmdString renders a command as name/Raw@line:col-endline(args).
func cmdString(c *Command) string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = argString(a)
	}
	return fmt.Sprintf("%s/%s@%d:%d-%d(%s)", c.Name, c.Raw, c.Line, c.Col, c.EndLine, strings.Join(args, " "))
}

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		cmds     []string
		comments []string // text@line:col, bracket ones as [text]@line:col
	}{
		{
			name: "names keep their case in Raw",
			src:  "Add_Library(foo)\n  SET (x 1)\n",
			cmds: []string{"add_library/Add_Library@1:1-1(foo@1:13)", "set/SET@2:3-2(x@2:8 1@2:10)"},
		},
		{
			name: "bracket arguments with =",
			src:  "set(x [[a]] [=[b]]c]=] [==[\nline1\n]=]\n]==] y)",
			cmds: []string{`set/set@1:1-4(x@1:5 ["a"]@1:7 ["b]]c"]@1:13 ["line1\n]=]\n"]@1:24 y@4:6)`},
		},
		{
			name:     "bracket comments spanning lines",
			src:      "#[[ a\nmulti-line\ncomment ]]\nfoo(a #[=[ inner\n]] ]=] b)\n",
			cmds:     []string{"foo/foo@4:1-5(a@4:5 b@5:8)"},
			comments: []string{"[\" a\\nmulti-line\\ncomment \"]@1:1", "[\" inner\\n]] \"]@4:7"},
		},
		{
			name:     "line comments and suppressions",
			src:      "# top\nfoo(a) # etlink: ignore ET202 reason here\n#[ not a bracket\n",
			cmds:     []string{"foo/foo@2:1-2(a@2:5)"},
			comments: []string{`" top"@1:1`, `" etlink: ignore ET202 reason here"@2:8`, `"[ not a bracket"@3:1`},
		},
		{
			name: "quoted escapes and continuations",
			src:  "set(x \"a\\\"b\\\\c\\;d\\n\" \"one\\\ntwo\" \"multi\nline\")",
			cmds: []string{`set/set@1:1-3(x@1:5 "a\\\"b\\\\c\\;d\\n"@1:7 "onetwo"@1:22 "multi\nline"@2:6)`},
		},
		{
			name: "nested parentheses are arguments",
			src:  "if((A OR B) AND (C))\nendif()",
			cmds: []string{"if/if@1:1-1((@1:4 A@1:5 OR@1:7 B@1:10 )@1:11 AND@1:13 (@1:17 C@1:18 )@1:19)", "endif/endif@2:1-2()"},
		},
		{
			name: "semicolons stay in unquoted text",
			src:  "set(L a;b;;c \"d;e\" f\\;g)",
			cmds: []string{`set/set@1:1-1(L@1:5 a;b;;c@1:7 "d;e"@1:14 f\;g@1:20)`},
		},
		{
			name: "generator expressions with commas and nesting",
			src:  "target_link_libraries(t PRIVATE $<$<CONFIG:Debug>:dbg,x> \"$<LINK_LIBRARY:WHOLE_ARCHIVE,a,$<TARGET_NAME:b>>\")",
			cmds: []string{`target_link_libraries/target_link_libraries@1:1-1(t@1:23 PRIVATE@1:25 $<$<CONFIG:Debug>:dbg,x>@1:33 "$<LINK_LIBRARY:WHOLE_ARCHIVE,a,$<TARGET_NAME:b>>"@1:58)`},
		},
		{
			name: "variable references kept as text",
			src:  "set(x ${a} ${${b}_c} $ENV{HOME} $CACHE{V} \"${d}\")",
			cmds: []string{`set/set@1:1-1(x@1:5 ${a}@1:7 ${${b}_c}@1:12 $ENV{HOME}@1:22 $CACHE{V}@1:33 "${d}"@1:43)`},
		},
		{
			name: "legacy unquoted forms",
			src:  `add_definitions(-DA="b c" $(VAR)x a"b"c)`,
			cmds: []string{`add_definitions/add_definitions@1:1-1(-DA="b c"@1:17 $(VAR)x@1:27 a"b"c@1:35)`},
		},
		{
			name: "unicode counts bytes in columns",
			src:  "set(é \"ü\" [[日本]] x)",
			cmds: []string{`set/set@1:1-1(é@1:5 "ü"@1:8 ["日本"]@1:13 x@1:24)`},
		},
		{
			name: "CRLF line ends",
			src:  "set(a\r\n  b \"c\r\nd\" [[\r\ne]])\r\nfoo()\r\n",
			cmds: []string{`set/set@1:1-4(a@1:5 b@2:3 "c\nd"@2:5 ["e"]@3:4)`, "foo/foo@5:1-5()"},
		},
		{
			name: "lone carriage return is a space",
			src:  "set(a\rb)",
			cmds: []string{"set/set@1:1-1(a@1:5 b@1:7)"},
		},
		{
			name: "UTF-8 byte-order mark",
			src:  "\xEF\xBB\xBFfoo(x)",
			cmds: []string{"foo/foo@1:1-1(x@1:5)"},
		},
		{
			name: "arguments over several lines",
			src:  "add_library(\n  x\n  SHARED\n  a.cpp\n)\n",
			cmds: []string{"add_library/add_library@1:1-5(x@2:3 SHARED@3:3 a.cpp@4:3)"},
		},
		{
			name: "empty file and blank lines",
			src:  "\n\n   \t\n",
		},
		{
			name: "brackets and equals inside unquoted arguments",
			src:  "foo(x[y] [ a =b ] [=c a[[b]])",
			cmds: []string{"foo/foo@1:1-1(x[y]@1:5 [@1:10 a@1:12 =b@1:14 ]@1:17 [=c@1:19 a[[b]]@1:23)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("CMakeLists.txt", []byte(tc.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for _, c := range f.Commands {
				got = append(got, cmdString(c))
				if c.File != "CMakeLists.txt" {
					t.Errorf("%s: File = %q", c.Raw, c.File)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.cmds, "\n") {
				t.Errorf("commands:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.cmds, "\n     "))
			}
			var comments []string
			for _, c := range f.Comments {
				if c.Bracket {
					comments = append(comments, fmt.Sprintf("[%q]@%d:%d", c.Text, c.Line, c.Col))
				} else {
					comments = append(comments, fmt.Sprintf("%q@%d:%d", c.Text, c.Line, c.Col))
				}
			}
			if strings.Join(comments, "\n") != strings.Join(tc.comments, "\n") {
				t.Errorf("comments:\n got %s\nwant %s", strings.Join(comments, "\n     "), strings.Join(tc.comments, "\n     "))
			}
		})
	}
}

// parseErrors are inputs CMake refuses, with the exact error etlink gives.
var parseErrors = []struct {
	name, src, want string
}{
	{"unterminated bracket argument", "set(x 1)\nset(y [==[ open\n]=]\n", "CMakeLists.txt:2:7: unterminated bracket argument opened here (no ]==] before the end of the file)"},
	{"unterminated bracket comment", "#[[ never\nclosed\n", "CMakeLists.txt:1:1: unterminated bracket comment opened here (no ]] before the end of the file)"},
	{"unterminated quoted argument", "foo(a\n  \"open\nstill open)\n", `CMakeLists.txt:2:3: unterminated quoted argument opened here (no closing '"' before the end of the file)`},
	{"unbalanced nested parenthesis", "if(A AND (B OR C)\nendif()\n", `CMakeLists.txt:1:3: missing ")": the "(" of if opened here is not closed before the end of the file`},
	{"unclosed inner parenthesis", "if(A AND (B OR (C)\n", `CMakeLists.txt:1:10: unbalanced parentheses: the "(" opened here is not closed before the end of the file`},
	{"missing ) at EOF", "project(x)\nadd_library(foo\n  a.cpp", `CMakeLists.txt:2:12: missing ")": the "(" of add_library opened here is not closed before the end of the file`},
	{"stray )", "foo(a))\n", `CMakeLists.txt:1:7: unbalanced ")": no "(" is open here`},
	{"two commands on a line", "foo() bar()\n", "CMakeLists.txt:1:7: expected a newline before command bar"},
	{"command after a bracket comment", "#[[c]] foo()\n", "CMakeLists.txt:1:8: expected a newline before command foo"},
	{"not a command name", "\"x\"()\n", "CMakeLists.txt:1:1: expected a command name, got a quoted argument"},
	{"name not an identifier", "1foo()\n", `CMakeLists.txt:1:1: expected a command name, got "1foo"`},
	{"newline before (", "foo\n(x)\n", `CMakeLists.txt:1:4: expected "(" after command foo, got a newline`},
	{"name at end of file", "foo", `CMakeLists.txt:1:1: command foo is missing its "(": end of file reached`},
	{"bracket argument not separated", "foo(a[[b]] [[c]][[d]])\n", "CMakeLists.txt:1:17: argument not separated from the preceding token by whitespace"},
	{"argument after bracket comment", "foo(#[[c]]x)\n", "CMakeLists.txt:1:11: argument not separated from the preceding token by whitespace"},
	{"backslash before newline", "foo(a\\\nb)\n", `CMakeLists.txt:1:6: unexpected a "\" not followed by an escaped character in the arguments of foo`},
	{"NUL byte", "foo(a\x00)\n", "CMakeLists.txt:1:6: unexpected a NUL byte in the arguments of foo"},
	{"UTF-16 byte-order mark", "\xFF\xFEf\x00", "CMakeLists.txt:1:1: file starts with a byte-order mark that is not UTF-8"},
	{"endif without if", "endif()\n", "CMakeLists.txt:1:1: endif() without a matching if()"},
	{"if without endif", "if(A)\nforeach(x a)\nendforeach()\n", "CMakeLists.txt:1:1: if() opened here is not closed by endif()"},
	{"crossed blocks", "foreach(x a)\nif(A)\nendforeach()\nendif()\n", "CMakeLists.txt:3:1: endforeach() does not close the if() opened at line 2"},
	{"else after else", "if(A)\nelse()\nelse()\nendif()\n", "CMakeLists.txt:3:1: else() after else()"},
	{"function not closed", "function(f)\n  set(x 1)\n", "CMakeLists.txt:1:1: function() opened here is not closed by endfunction()"},
}

// parseFile is Parse followed by the flow-control check Load makes.
func parseFile(path string, src []byte) (*File, error) {
	f, err := Parse(path, src)
	if err != nil {
		return f, err
	}
	_, err = blockify(f)
	return f, err
}

func TestParseErrors(t *testing.T) {
	for _, tc := range parseErrors {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFile("CMakeLists.txt", []byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T %v is not a *SyntaxError", err, err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestCMakeRefusesToo checks that CMake itself refuses every input of
// parseErrors: etlink must not invent errors.
func TestCMakeRefusesToo(t *testing.T) {
	cmake := testenv.Tool(t, "cmake")
	dir := t.TempDir()
	for i, tc := range parseErrors {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			script := filepath.Join(dir, fmt.Sprintf("e%d.cmake", i))
			if err := os.WriteFile(script, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(cmake, "-P", script).CombinedOutput()
			if err == nil {
				t.Errorf("cmake -P accepts %q:\n%s", tc.src, out)
			}
		})
	}
}

func TestParseLimits(t *testing.T) {
	t.Run("file too large", func(t *testing.T) {
		_, err := Parse("big.cmake", make([]byte, MaxFileSize+1))
		if err == nil || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("nesting at the limit", func(t *testing.T) {
		src := "if(" + strings.Repeat("(", MaxNesting) + "A" + strings.Repeat(")", MaxNesting) + ")\nendif()\n"
		if _, err := Parse("CMakeLists.txt", []byte(src)); err != nil {
			t.Errorf("Parse: %v", err)
		}
	})
	t.Run("nesting over the limit", func(t *testing.T) {
		src := "if(" + strings.Repeat("(", MaxNesting+1) + "A" + strings.Repeat(")", MaxNesting+1) + ")\n"
		_, err := Parse("CMakeLists.txt", []byte(src))
		want := fmt.Sprintf("CMakeLists.txt:1:%d: parentheses nested deeper than %d", 4+MaxNesting, MaxNesting)
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %s", err, want)
		}
	})
}

// TestDeepNesting feeds 100,000 nested parentheses and blocks: each must
// come back promptly with an error or a result, never a stack overflow.
func TestDeepNesting(t *testing.T) {
	const n = 100_000
	tests := []struct {
		name, src string
		want      string // in an error or a note
	}{
		{"parentheses", "foo(" + strings.Repeat("(", n) + strings.Repeat(")", n) + ")\n", "parentheses nested deeper than 1000"},
		{"unclosed parentheses", "foo(" + strings.Repeat("(", n), "parentheses nested deeper than 1000"},
		{"closing parentheses", "foo(" + strings.Repeat(")", n), `CMakeLists.txt:1:6: unbalanced ")"`},
		{"nested if blocks", strings.Repeat("if(TRUE)\n", n) + "add_library(deep STATIC)\n" + strings.Repeat("endif()\n", n), "blocks nested deeper than 1000"},
		{"nested foreach", strings.Repeat("foreach(x a)\n", n) + strings.Repeat("endforeach()\n", n), "blocks nested deeper than 1000"},
		{"unclosed blocks", strings.Repeat("if(X)\n", n), "CMakeLists.txt:100000:1: if() opened here is not closed by endif()"},
		{"bracket arguments", "foo(" + strings.Repeat("[[", n) + ")\n", "unterminated bracket argument"},
		{"variable references", "set(x " + strings.Repeat("${", n) + strings.Repeat("}", n) + ")\n", "nested deeper than 100"},
		{"quoted references", "set(x \"" + strings.Repeat("${a", n) + strings.Repeat("}", n) + "\")\n", "nested deeper than 100"},
		{"recursive function", "function(f)\n  f()\nendfunction()\nf()\n", "calls nested deeper than 64"},
		{"recursive macro", "macro(m)\n  m()\nendmacro()\nm()\n", "calls nested deeper than 64"},
		{"growing values", "set(x ab)\nforeach(i RANGE 40)\n  set(x \"${x}${x}\")\nendforeach()\n", "larger than 1 MiB"},
		{"endless while", "set(a 1)\nwhile(a)\n  set(b 1)\nendwhile()\n", "stopped after 1000 iterations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			p, errs := evalBytes([]byte(tc.src), Options{}, nil)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			var said []string
			for _, err := range errs {
				said = append(said, err.Error())
			}
			for _, n := range p.Notes {
				said = append(said, n.String())
			}
			if !strings.Contains(strings.Join(said, "\n"), tc.want) {
				t.Errorf("errors and notes do not say %q:\n%s", tc.want, strings.Join(said, "\n"))
			}
		})
	}
}

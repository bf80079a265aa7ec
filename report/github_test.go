package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
)

func TestGitHubEscape(t *testing.T) {
	tests := []struct{ in, data, prop string }{
		{"plain text", "plain text", "plain text"},
		{"100%", "100%25", "100%25"},
		{"%0A stays literal", "%250A stays literal", "%250A stays literal"},
		{"two\nlines\r\n", "two%0Alines%0D%0A", "two%0Alines%0D%0A"},
		{"a:b,c", "a:b,c", "a%3Ab%2Cc"},
		{"::error::x", "::error::x", "%3A%3Aerror%3A%3Ax"},
		{"dir with space/CMakeLists.txt", "dir with space/CMakeLists.txt", "dir with space/CMakeLists.txt"},
	}
	for _, tt := range tests {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

func TestGitHubGolden(t *testing.T) {
	for _, tt := range []struct {
		name    string
		verbose bool
	}{{"report.github.txt", false}, {"report.github-verbose.txt", true}} {
		var buf bytes.Buffer
		if err := Write(&buf, "github", fixtureReport(), Options{BaseDir: fixtureBase, Verbose: tt.verbose}); err != nil {
			t.Fatal(err)
		}
		golden(t, tt.name, buf.Bytes())
	}
}

func TestGitHubAnnotation(t *testing.T) {
	tests := []struct {
		name string
		f    finding.Finding
		want string
	}{
		{"cmake line",
			finding.Finding{Rule: "ET202", Name: "cmake-embed-python", Severity: finding.Error,
				Subject: finding.Subject{File: "/ws/build/_C.so"}, Message: "_C.so links Python::Python",
				Location: &finding.Location{File: "/ws/src/CMakeLists.txt", Line: 12}},
			"::error file=src/CMakeLists.txt,line=12,title=ET202 cmake-embed-python::_C.so links Python::Python"},
		{"no location: subject file in the workspace",
			finding.Finding{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
				Subject: finding.Subject{File: "/ws/lib/libfoo.so"}, Message: "x is also exported by torch"},
			"::warning file=lib/libfoo.so,title=ET301 defined-by-peer::x is also exported by torch"},
		{"wheel entry: the wheel, and the entry in the message",
			finding.Finding{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Warning,
				Subject: finding.Subject{File: "/ws/dist/p.whl!p/libfoo.so"}, Message: "x is also exported by torch"},
			"::warning file=dist/p.whl,title=ET301 defined-by-peer::x is also exported by torch (dist/p.whl!p/libfoo.so)"},
		{"archive member",
			finding.Finding{Rule: "ET102", Name: "unextracted-registration-archive", Severity: finding.Note,
				Subject: finding.Subject{File: "/ws/build/libb.a", Member: "reg.o"}, Message: "reg.o is not extracted"},
			"::notice file=build/libb.a,title=ET102 unextracted-registration-archive::reg.o is not extracted"},
		{"outside the workspace: no file",
			finding.Finding{Rule: "ET403", Name: "soname-mismatch", Severity: finding.Note,
				Subject: finding.Subject{File: "/usr/lib/libodd.so"}, Message: "no SONAME"},
			"::notice title=ET403 soname-mismatch::no SONAME (/usr/lib/libodd.so)"},
		{"location outside the workspace",
			finding.Finding{Rule: "ET102", Name: "unextracted-registration-archive", Severity: finding.Error,
				Subject: finding.Subject{File: "/ws/libb.a", Member: "r.o"}, Message: "r.o is dropped",
				Location: &finding.Location{File: "/tmp/build/out.map", Line: 40}},
			"::error title=ET102 unextracted-registration-archive::r.o is dropped (at /tmp/build/out.map:40)"},
		{"escaping in file, title and message",
			finding.Finding{Rule: "ET1:2", Name: "a,b", Severity: finding.Error,
				Subject: finding.Subject{File: "/ws/a,b:c%.so"}, Message: "a,b:c%.so\nsecond line"},
			"::error file=a%2Cb%3Ac%25.so,title=ET1%3A2 a%2Cb::a,b:c%25.so%0Asecond line"},
		{"nothing to point at",
			finding.Finding{Rule: "ET999", Severity: finding.None, Message: "m"},
			"::notice title=ET999::m"},
		{"line without a file inside the workspace is dropped with the file",
			finding.Finding{Rule: "ET202", Name: "cmake-embed-python", Severity: finding.Error,
				Message: "links Python", Location: &finding.Location{File: "../elsewhere/CMakeLists.txt", Line: 3}},
			"::error title=ET202 cmake-embed-python::links Python (at ../elsewhere/CMakeLists.txt:3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := &finding.Report{Findings: []finding.Finding{tt.f}}
			if err := GitHub(&buf, r, Options{BaseDir: "/ws"}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != 2 {
				t.Fatalf("want an annotation and a summary, got:\n%s", buf.String())
			}
			if lines[0] != tt.want {
				t.Errorf("got  %s\nwant %s", lines[0], tt.want)
			}
		})
	}
}

// TestGitHubWorkspace checks the default base: $GITHUB_WORKSPACE.
func TestGitHubWorkspace(t *testing.T) {
	t.Setenv("GITHUB_WORKSPACE", "/ws")
	r := &finding.Report{Findings: []finding.Finding{{Rule: "ET202", Severity: finding.Error, Message: "m",
		Location: &finding.Location{File: "/ws/src/CMakeLists.txt", Line: 5}}}}
	var buf bytes.Buffer
	if err := GitHub(&buf, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if want := "::error file=src/CMakeLists.txt,line=5,title=ET202::m\n"; !strings.HasPrefix(buf.String(), want) {
		t.Errorf("got %q, want prefix %q", buf.String(), want)
	}
}

func TestGitHubSummary(t *testing.T) {
	tests := []struct {
		name string
		r    *finding.Report
		want string
	}{
		{"empty", &finding.Report{}, "etlink: 0 findings in 0 groups: 0 errors, 0 warnings, 0 notes\n"},
		{"failed input", &finding.Report{Inputs: []finding.Input{{Path: "/ws/x.whl", Error: "zip: not a valid zip file"}, {Path: "/ws/ok.so"}}},
			"::error file=x.whl,title=etlink%3A unreadable input::x.whl: zip: not a valid zip file\n" +
				"etlink: 0 findings in 0 groups: 0 errors, 0 warnings, 0 notes; 1 input could not be read\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := GitHub(&buf, tt.r, Options{BaseDir: "/ws"}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, buf.String(), tt.want)
		}
	}
}

// TestGitHubGroupsAndCap: findings the text report groups are one
// annotation, and no level gets more annotations than GitHub shows.
func TestGitHubGroupsAndCap(t *testing.T) {
	var fs []finding.Finding
	for i := range 25 {
		// 25 objects with 3 symbols each: 25 groups of 3.
		for _, sym := range []string{"xnn_a", "xnn_b", "xnn_c"} {
			fs = append(fs, finding.Finding{Rule: "ET301", Name: "defined-by-peer", Severity: finding.Error,
				Subject: finding.Subject{File: fmt.Sprintf("/ws/lib%02d.so", i), Symbol: sym, Component: "XNNPACK"}, Message: "also in torch"})
		}
	}
	var buf bytes.Buffer
	if err := GitHub(&buf, &finding.Report{Findings: fs}, Options{BaseDir: "/ws"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != AnnotationCap+1 {
		t.Fatalf("%d lines, want %d annotations and a summary:\n%s", len(lines), AnnotationCap, buf.String())
	}
	if want := "::error file=lib00.so,title=ET301 defined-by-peer::xnn_a: also in torch (+2 more: xnn_b, xnn_c)"; lines[0] != want {
		t.Errorf("first annotation %q, want %q", lines[0], want)
	}
	if want := "etlink: 75 findings in 25 groups: 75 errors, 0 warnings, 0 notes; 15 groups not annotated"; !strings.HasPrefix(lines[AnnotationCap], want) {
		t.Errorf("summary %q, want it to start %q", lines[AnnotationCap], want)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/jsonw/jsonwtest"
)

// sarifSchemas are the vendored SARIF 2.1.0 schemas (testdata/README.md says
// where each came from). Output must satisfy both.
var sarifSchemas = []string{"sarif-2.1.0.json", "sarif-2.1.0-rtm.5.json"}

var (
	schemasOnce sync.Once
	schemas     []*jsonschema.Schema
	schemasErr  error
)

func loadSchemas() ([]*jsonschema.Schema, error) {
	schemasOnce.Do(func() {
		for _, name := range sarifSchemas {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(f)
			f.Close()
			if err != nil {
				schemasErr = err
				return
			}
			c := jsonschema.NewCompiler()
			c.AssertFormat()
			if err := c.AddResource(name, doc); err != nil {
				schemasErr = err
				return
			}
			s, err := c.Compile(name)
			if err != nil {
				schemasErr = err
				return
			}
			schemas = append(schemas, s)
		}
	})
	return schemas, schemasErr
}

// validateSARIF checks data against the schemas and the URI rules the schema
// formats leave loose: every uri parses, and a relative one with no base
// does not start with a slash.
func validateSARIF(t *testing.T, data []byte) {
	t.Helper()
	ss, err := loadSchemas()
	if err != nil {
		t.Fatalf("loading SARIF schema: %v", err)
	}
	for i, s := range ss {
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("output is not JSON: %v", err)
		}
		if err := s.Validate(inst); err != nil {
			t.Errorf("output fails %s:\n%v\n%s", sarifSchemas[i], err, data)
		}
	}
	var log sarifLog
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	for _, run := range log.Runs {
		for _, u := range allURIs(run) {
			// The schemas' uri-reference format accepts what url.Parse
			// does, spaces included: check RFC 3986's characters too.
			p, err := url.Parse(u.URI)
			if err != nil || !rfc3986(u.URI) {
				t.Errorf("uri %q is not an RFC 3986 URI reference (%v)", u.URI, err)
				continue
			}
			if p.Scheme == "" && (strings.HasPrefix(u.URI, "/") || u.URI == "") {
				t.Errorf("relative uri %q must not be empty or start with /", u.URI)
			}
			if p.Scheme != "" && u.URIBaseID != "" {
				t.Errorf("absolute uri %q has a uriBaseId", u.URI)
			}
			if u.URIBaseID != "" {
				if _, ok := run.OriginalURIBaseIDs[u.URIBaseID]; !ok {
					t.Errorf("uriBaseId %q is not in originalUriBaseIds", u.URIBaseID)
				}
			}
		}
	}
}

// rfc3986 reports whether s holds only the characters a URI reference may:
// unreserved, reserved, and '%' with two hex digits.
func rfc3986(s string) bool {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#[]@!$&'()*+,;="
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case strings.IndexByte(allowed, s[i]) < 0:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func allURIs(run sarifRun) []sarifArtifactLocation {
	var out []sarifArtifactLocation
	add := func(locs []sarifLocation) {
		for _, l := range locs {
			if l.PhysicalLocation != nil {
				out = append(out, l.PhysicalLocation.ArtifactLocation)
			}
		}
	}
	for _, r := range run.Results {
		add(r.Locations)
		add(r.RelatedLocations)
	}
	for _, inv := range run.Invocations {
		for _, n := range inv.ToolExecutionNotifications {
			add(n.Locations)
		}
	}
	return out
}

func renderSARIF(t *testing.T, r *finding.Report, opt Options) ([]byte, sarifLog) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, "sarif", r, opt); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, buf.Bytes())
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	return buf.Bytes(), log
}

func TestSARIFGolden(t *testing.T) {
	data, _ := renderSARIF(t, fixtureReport(), Options{Rules: fixtureRules(), BaseDir: fixtureBase})
	golden(t, "report.sarif", data)
}

// TestSchemaRejects makes sure the validation is not vacuous.
func TestSchemaRejects(t *testing.T) {
	ss, err := loadSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "fatal"}]}]}`,
		`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a"}, "region": {"startLine": 0}}}]}]}]}`,
	} {
		for i, s := range ss {
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
			if err != nil {
				t.Fatal(err)
			}
			if s.Validate(inst) == nil {
				t.Errorf("%s accepts %s", sarifSchemas[i], bad)
			}
		}
	}
}

func TestSARIFEmpty(t *testing.T) {
	data, log := renderSARIF(t, &finding.Report{}, Options{})
	run := log.Runs[0]
	if run.Tool.Driver.Name != "etlink" || run.Results == nil || len(run.Results) != 0 {
		t.Errorf("empty report: driver %q, results %v", run.Tool.Driver.Name, run.Results)
	}
	if !bytes.Contains(data, []byte(`"results": []`)) {
		t.Errorf("an empty run must say results: [] (no results), not omit them:\n%s", data)
	}
	if len(run.Invocations) != 1 || !run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations = %+v, want one successful", run.Invocations)
	}
	if run.OriginalURIBaseIDs != nil {
		t.Errorf("originalUriBaseIds without a base dir: %v", run.OriginalURIBaseIDs)
	}
}

func TestSARIFLocations(t *testing.T) {
	type want struct {
		uri, base string // locations[0]
		line      int
		logical   string // fullyQualifiedName of locations[0]'s logical location
		message   string
		related   []string // uri#line or uri!logical of each related location
	}
	cmake := &finding.Location{File: "/ws/src/CMakeLists.txt", Line: 12}
	tests := []struct {
		name string
		base string
		f    finding.Finding
		want want
	}{
		{"cmake line", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/build/_C.so", Target: "_C"}, Message: "_C.so links libpython", Location: cmake},
			want{uri: "src/CMakeLists.txt", base: srcRoot, line: 12, message: "_C.so links libpython", related: []string{"build/_C.so"}}},
		{"cmake line, subject not named", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/build/_C.so"}, Message: "links libpython", Location: cmake},
			want{uri: "src/CMakeLists.txt", base: srcRoot, line: 12, message: "links libpython (build/_C.so)", related: []string{"build/_C.so"}}},
		{"plain file, no location", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/lib/libfoo.so"}, Message: "m"},
			want{uri: "lib/libfoo.so", base: srcRoot, message: "m"}},
		{"wheel entry", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/dist/p-1.0.whl!p/lib/libfoo.so"}, Message: "exports x"},
			want{uri: "dist/p-1.0.whl", base: srcRoot, logical: "dist/p-1.0.whl!p/lib/libfoo.so", message: "exports x (dist/p-1.0.whl!p/lib/libfoo.so)"}},
		{"wheel entry named in message", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/dist/p-1.0.whl!p/lib/libfoo.so"}, Message: "libfoo.so exports x"},
			want{uri: "dist/p-1.0.whl", base: srcRoot, logical: "dist/p-1.0.whl!p/lib/libfoo.so", message: "libfoo.so exports x"}},
		{"archive member field", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/build/libb.a", Member: "reg.o"}, Message: "reg.o not extracted"},
			want{uri: "build/libb.a", base: srcRoot, logical: "build/libb.a(reg.o)", message: "reg.o not extracted"}},
		{"archive member in path", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/build/libb.a(reg.o)"}, Message: "m"},
			want{uri: "build/libb.a", base: srcRoot, logical: "build/libb.a(reg.o)", message: "m (build/libb.a(reg.o))"}},
		{"archive inside wheel", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/p.whl!lib/libb.a", Member: "reg.o"}, Message: "reg.o"},
			want{uri: "p.whl", base: srcRoot, logical: "p.whl!lib/libb.a(reg.o)", message: "reg.o"}},
		{"outside the base", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/usr/lib/x86_64-linux-gnu/libc++.so.1"}, Message: "m"},
			want{uri: "file:///usr/lib/x86_64-linux-gnu/libc++.so.1", message: "m"}},
		{"base is a prefix but not a parent", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/wsx/lib.so"}, Message: "m"},
			want{uri: "file:///wsx/lib.so", message: "m"}},
		{"characters to escape", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/odd dir/a:b!c(1)%#?.so"}, Message: "m"},
			want{uri: "odd%20dir/a%3Ab%21c%281%29%25%23%3F.so", base: srcRoot, message: "m"}},
		{"wheel outside the base, escaped", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/tmp/é x.whl!a b.so"}, Message: "m"},
			want{uri: "file:///tmp/%C3%A9%20x.whl", logical: "/tmp/é x.whl!a b.so", message: "m (/tmp/é x.whl!a b.so)"}},
		{"no base, relative path", "",
			finding.Finding{Subject: finding.Subject{File: "./build/../dist/p.whl!p/a.so"}, Message: "a.so"},
			want{uri: "dist/p.whl", logical: "./build/../dist/p.whl!p/a.so", message: "a.so"}},
		{"no base, absolute path", "",
			finding.Finding{Subject: finding.Subject{File: "/ws/lib/a.so"}, Message: "m"},
			want{uri: "file:///ws/lib/a.so", message: "m"}},
		{"evidence files become related locations", "/ws",
			finding.Finding{Subject: finding.Subject{File: "/ws/a.so"}, Message: "m", Evidence: []finding.Step{
				{Text: "no file"}, {Text: "map", File: "/ws/out.map", Line: 7}, {Text: "map", File: "/ws/out.map", Line: 7},
				{Text: "peer", File: "/opt/t.whl!t/lib/x.so", Line: 3}}},
			want{uri: "a.so", base: srcRoot, message: "m", related: []string{"out.map#7", "file:///opt/t.whl!/opt/t.whl!t/lib/x.so"}}},
		{"no file at all", "/ws",
			finding.Finding{Subject: finding.Subject{Symbol: "s"}, Message: "m"},
			want{message: "m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			f.Rule, f.Name, f.Severity = "ET301", "defined-by-peer", finding.Warning
			_, log := renderSARIF(t, &finding.Report{Findings: []finding.Finding{f}}, Options{BaseDir: tt.base})
			res := log.Runs[0].Results[0]
			var got want
			got.message = res.Message.Text
			if len(res.Locations) > 0 {
				got.uri, got.base, got.line, got.logical = describe(res.Locations[0])
			}
			for _, rl := range res.RelatedLocations {
				u, _, line, logical := describe(rl)
				switch {
				case logical != "":
					u += "!" + logical
				case line > 0:
					u += "#" + itoa(line)
				}
				got.related = append(got.related, u)
			}
			if !equalWant(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if res.PartialFingerprints[fingerprintKey] != finding.Fingerprint(f.Rule, f.Subject) {
				t.Errorf("partialFingerprints = %v", res.PartialFingerprints)
			}
		})
	}
}

func describe(l sarifLocation) (uri, base string, line int, logical string) {
	if l.PhysicalLocation != nil {
		uri, base = l.PhysicalLocation.ArtifactLocation.URI, l.PhysicalLocation.ArtifactLocation.URIBaseID
		if l.PhysicalLocation.Region != nil {
			line = l.PhysicalLocation.Region.StartLine
		}
	}
	if len(l.LogicalLocations) > 0 {
		logical = l.LogicalLocations[0].FullyQualifiedName
	}
	return
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// equalWant compares test results where nil and empty slices mean the same.
func equalWant[T any](a, b T) bool {
	return reflect.DeepEqual(a, b) || fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

// TestSARIFRelativeBase takes relative paths from the current directory, as
// the command line that named them does.
func TestSARIFRelativeBase(t *testing.T) {
	r := &finding.Report{Findings: []finding.Finding{{Rule: "ET403", Severity: finding.Note, Message: "m",
		Subject: finding.Subject{File: "testdata/x.so"}}}}
	_, log := renderSARIF(t, r, Options{BaseDir: "."})
	run := log.Runs[0]
	if got := run.Results[0].Locations[0].PhysicalLocation.ArtifactLocation; got != (sarifArtifactLocation{URI: "testdata/x.so", URIBaseID: srcRoot}) {
		t.Errorf("artifactLocation = %+v", got)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := run.OriginalURIBaseIDs[srcRoot].URI
	if root != fileURI(wd)+"/" {
		t.Errorf("originalUriBaseIds[%s] = %q, want %q", srcRoot, root, fileURI(wd)+"/")
	}
}

func TestSARIFRules(t *testing.T) {
	r := fixtureReport()
	_, log := renderSARIF(t, r, Options{Rules: fixtureRules()})
	rules := log.Runs[0].Tool.Driver.Rules
	if len(rules) != len(fixtureRules())+1 {
		t.Fatalf("%d rules, want the catalogue's %d and one for ET999", len(rules), len(fixtureRules()))
	}
	for i, ri := range fixtureRules() {
		d := rules[i]
		if d.ID != ri.ID || d.Name != ri.Name || d.ShortDescription == nil || d.ShortDescription.Text != ri.Summary ||
			d.DefaultConfiguration == nil || d.DefaultConfiguration.Level != sarifLevel(ri.Severity) {
			t.Errorf("rule %d = %+v, want from %+v", i, d, ri)
		}
		if ri.Why != "" && (d.Help == nil || !strings.Contains(d.Help.Text, ri.Fix) || !strings.Contains(d.Help.Markdown, ri.Before)) {
			t.Errorf("rule %s help lacks fix or example: %+v", ri.ID, d.Help)
		}
		if ri.Why == "" && d.Help != nil {
			t.Errorf("rule %s has help without docs: %+v", ri.ID, d.Help)
		}
	}
	if last := rules[len(rules)-1]; last.ID != "ET999" || last.Name != "from-the-future" {
		t.Errorf("unknown rule descriptor = %+v", last)
	}
	if md := rules[0].Help.Markdown; !strings.Contains(md, "````\ntarget_link_libraries(_C PRIVATE \"$<LINK_LIBRARY") {
		t.Errorf("an example holding ``` needs a longer fence:\n%s", md)
	}
	for i, res := range log.Runs[0].Results {
		if rules[res.RuleIndex].ID != res.RuleID || res.RuleID != r.Findings[i].Rule {
			t.Errorf("result %d: ruleId %s, ruleIndex %d -> %s", i, res.RuleID, res.RuleIndex, rules[res.RuleIndex].ID)
		}
		if want := sarifLevel(r.Findings[i].Severity); res.Level != want {
			t.Errorf("result %d: level %s, want %s", i, res.Level, want)
		}
	}
}

func TestSARIFInputs(t *testing.T) {
	tests := []struct {
		name     string
		inputs   []finding.Input
		ok       bool
		messages []string
		uris     []string
	}{
		{"none", nil, true, nil, nil},
		{"all read", []finding.Input{{Path: "/ws/a.so"}}, true, nil, nil},
		{"failures", []finding.Input{
			{Path: "/ws/a.so"},
			{Path: "/ws/dist/broken.whl", Error: "zip: not a valid zip file"},
			{Path: "/ws/dist/p.whl!p/bad.so", Error: "bad ELF header"},
			{Path: "/elsewhere/x y.so", Error: "permission denied"},
		}, false,
			[]string{"dist/broken.whl: zip: not a valid zip file", "dist/p.whl!p/bad.so: bad ELF header", "/elsewhere/x y.so: permission denied"},
			[]string{"dist/broken.whl", "dist/p.whl", "file:///elsewhere/x%20y.so"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, log := renderSARIF(t, &finding.Report{Inputs: tt.inputs}, Options{BaseDir: "/ws"})
			inv := log.Runs[0].Invocations[0]
			if inv.ExecutionSuccessful != tt.ok {
				t.Errorf("executionSuccessful = %v, want %v", inv.ExecutionSuccessful, tt.ok)
			}
			var msgs, uris []string
			for _, n := range inv.ToolExecutionNotifications {
				if n.Level != "error" {
					t.Errorf("notification level %q", n.Level)
				}
				msgs = append(msgs, n.Message.Text)
				uris = append(uris, n.Locations[0].PhysicalLocation.ArtifactLocation.URI)
			}
			if !equalWant(msgs, tt.messages) || !equalWant(uris, tt.uris) {
				t.Errorf("notifications %q at %q, want %q at %q", msgs, uris, tt.messages, tt.uris)
			}
		})
	}
}

func TestContainer(t *testing.T) {
	tests := []struct{ name, file, inner string }{
		{"dist/x.whl!pkg/lib/a.so", "dist/x.whl", "pkg/lib/a.so"},
		{"dist/X.WHL!a.so", "dist/X.WHL", "a.so"},
		{"dist/x.zip!a.so", "dist/x.zip", "a.so"},
		{"build/libb.a(reg.o)", "build/libb.a", "reg.o"},
		{"dist/x.whl!lib/libb.a(r.o)", "dist/x.whl", "lib/libb.a(r.o)"},
		{"odd!name.so", "odd!name.so", ""},
		{"dir.whl!x/../y!z.so", "dir.whl", "x/../y!z.so"},
		{"lib(1).so", "lib(1).so", ""},
		{"x.a(dir/y).so", "x.a(dir/y).so", ""},
		{".whl!a", ".whl!a", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		file, inner := container(tt.name)
		if file != tt.file || inner != tt.inner {
			t.Errorf("container(%q) = %q, %q; want %q, %q", tt.name, file, inner, tt.file, tt.inner)
		}
	}
}

func TestEscapeURIPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"src/CMakeLists.txt", "src/CMakeLists.txt"},
		{"a b/c", "a%20b/c"},
		{"p.whl!x.so", "p.whl%21x.so"},
		{"libb.a(reg.o)", "libb.a%28reg.o%29"},
		{"c:x", "c%3Ax"},
		{"100%", "100%25"},
		{"q?#[]", "q%3F%23%5B%5D"},
		{"libc++@GLIBC=1~_-.", "libc++@GLIBC=1~_-."},
		{"é", "%C3%A9"},
	}
	for _, tt := range tests {
		got := escapeURIPath(tt.in)
		if got != tt.want {
			t.Errorf("escapeURIPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if !rfc3986(got) {
			t.Errorf("escapeURIPath(%q) = %q is no URI reference", tt.in, got)
		}
		if back, err := url.PathUnescape(got); err != nil || back != tt.in {
			t.Errorf("unescaping %q gives %q, %v", got, back, err)
		}
	}
}

func TestRFC3986Check(t *testing.T) {
	for s, want := range map[string]bool{"a/b%20c": true, "file:///x": true, "a b": false, "100%": false, "%zz": false, "é": false, "a%2": false} {
		if got := rfc3986(s); got != want {
			t.Errorf("rfc3986(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestSARIFResultWritesAsEncodingJSON: results are written one at a time by
// their own WriteJSON; each must be what encoding/json makes of it, with
// every optional member present and absent, and details that write
// themselves and details that do not.
func TestSARIFResultWritesAsEncodingJSON(t *testing.T) {
	full := sarifResult{RuleID: "ET301", RuleIndex: 2, Level: "error", Message: sarifMessage{Text: "a <b> & \"c\"\n"},
		Locations:           []sarifLocation{{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: sarifArtifactLocation{URI: "w/x.so", URIBaseID: srcRoot}, Region: &sarifRegion{StartLine: 3}}}},
		RelatedLocations:    []sarifLocation{{LogicalLocations: []sarifLogicalLocation{{Name: "m", FullyQualifiedName: "a!m", Kind: "module"}}, Message: &sarifMessage{Text: "t"}}},
		PartialFingerprints: map[string]string{fingerprintKey: "abc", "z": "y"},
		Properties:          &resultProperties{Subject: finding.Subject{File: "f", Symbol: "_Z1fv", Demangled: "f()", Peer: "torch"}, Details: map[string]any{"use": "separate", "n": 3}}}
	for _, r := range []sarifResult{full, {RuleID: "ET101", Level: "note"}, {RuleID: "ET102", Properties: &resultProperties{}}} {
		jsonwtest.SameAsEncodingJSON(t, &r)
	}
}

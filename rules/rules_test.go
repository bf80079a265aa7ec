package rules

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
)

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range All() {
		for what, v := range map[string]string{"ID": r.ID, "Name": r.Name, "Summary": r.Summary,
			"Why": r.Why, "Fix": r.Fix, "Before": r.Before, "After": r.After} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("rule %s has no %s", r.ID, what)
			}
		}
		if seen[r.ID] || seen[r.Name] {
			t.Errorf("rule %s/%s is not unique", r.ID, r.Name)
		}
		seen[r.ID], seen[r.Name] = true, true
		if r.Check == nil {
			t.Errorf("rule %s has no Check", r.ID)
		}
		if ByID(strings.ToLower(r.ID)) != r || ByID(r.Name) != r {
			t.Errorf("ByID does not find %s", r.ID)
		}
	}
}

func demoContext(t *testing.T, cfg *Config) *Context {
	t.Helper()
	wheel, errs := elfobj.Open([]string{"../testdata/demo/wheel"}, elfobj.Options{})
	torch, errs2 := elfobj.Open([]string{"../testdata/demo/torch"}, elfobj.Options{})
	if len(errs)+len(errs2) > 0 {
		t.Fatal(errs, errs2)
	}
	order, _ := analyze.ParseLoadOrder("torch,wheel")
	l := analyze.NewLoader(nil, append(append([]*elfobj.Object(nil), wheel...), torch...))
	b := analyze.NewBuild(l, nil, analyze.NewSide("wheel", wheel, analyze.PythonPlan{}), analyze.NewSide("torch", torch, analyze.PythonPlan{}), order)
	return &Context{Build: b, Config: cfg, Components: demangle.DefaultComponents()}
}

// TestET301Demo checks ET301 against the demo corpus's expectation, which
// testdata/build.sh computes with nm -D and comm.
func TestET301Demo(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "demo", "EXPECTED-CONFLICTS.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && !analyze.LinkerSymbol(line) {
			want = append(want, line)
		}
	}
	fs := Run(demoContext(t, &Config{}), []*Rule{ET301})
	var got []string
	sev := map[string]finding.Severity{}
	for _, f := range fs {
		got = append(got, f.Subject.Symbol)
		sev[f.Subject.Symbol] = f.Severity
		if len(f.Evidence) < 3 {
			t.Errorf("%s: evidence chain too short: %+v", f.Subject.Symbol, f.Evidence)
		}
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ET301 on the demo:\n got %v\nwant %v", got, want)
	}
	for sym, s := range map[string]finding.Severity{
		"cpuinfo_is_initialized":                finding.Warning, // each side's own copy of cpuinfo's state
		"pthreadpool_create":                    finding.Note,    // each side's own copy of code
		"_ZN11flatbuffers10ReadScalarIjEET_PKv": finding.Note,    // weak template instance
	} {
		if sev[sym] != s {
			t.Errorf("%s: severity %v, want %v", sym, sev[sym], s)
		}
	}
}

// TestET301DemoGlobal: with torch opened RTLD_GLOBAL, the wheel's own
// references bind to torch's copies: interposed state is an error,
// interposed code a note (no state is split), and the evidence names the
// wheel's own copy.
func TestET301DemoGlobal(t *testing.T) {
	ctx := demoContext(t, &Config{})
	order, _ := analyze.ParseLoadOrder("torch:global,wheel")
	ctx.Build = analyze.NewBuild(ctx.Build.Loader, nil, analyze.NewSide("wheel", ctx.Build.Wheel.Inputs, analyze.PythonPlan{}),
		analyze.NewSide("torch", ctx.Build.Peer.Inputs, analyze.PythonPlan{}), order)
	sev := map[string]finding.Severity{}
	ev := map[string]string{}
	for _, f := range Run(ctx, []*Rule{ET301}) {
		sev[f.Subject.Symbol] = f.Severity
		for _, e := range f.Evidence {
			ev[f.Subject.Symbol] += e.Text + "\n"
		}
	}
	for sym, s := range map[string]finding.Severity{
		"cpuinfo_is_initialized": finding.Error,
		"pthreadpool_create":     finding.Note,
	} {
		if sev[sym] != s {
			t.Errorf("%s: severity %v, want %v", sym, sev[sym], s)
		}
		if !strings.Contains(ev[sym], "as their own link resolved them") {
			t.Errorf("%s: evidence does not show the interposed binding:\n%s", sym, ev[sym])
		}
	}
}

func TestET302Ownership(t *testing.T) {
	cfg := &Config{Owners: []Owner{{Library: "libexecutorch.so*", Components: []string{"pthreadpool"}}}}
	fs := Run(demoContext(t, cfg), []*Rule{ET302})
	n := 0
	for _, f := range fs {
		if strings.HasPrefix(f.Subject.Symbol, "pthreadpool_") {
			n++
			if filepath.Base(f.Subject.File) != "libexecutorch_threadpool.so.1" {
				t.Errorf("owner violation reported on %s", f.Subject.File)
			}
		}
	}
	if n == 0 {
		t.Error("pthreadpool exported by a non-owner library, no ET302 finding")
	}
	if fs := Run(demoContext(t, &Config{}), []*Rule{ET302}); len(fs) != 0 {
		t.Errorf("no owners and no duplicates in the demo wheel, yet ET302 found %d: %+v", len(fs), fs[0])
	}
}

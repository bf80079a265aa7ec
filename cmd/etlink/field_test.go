package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/ldoracle"
	"github.com/etlink/etlink/internal/testenv"
)

// The field (testdata/field/README.md): etlink on Debian's Python packages
// and on trees built to be flagged, every error and warning it prints held
// to what glibc's loader does with the same files.

const (
	fieldSite    = "/usr/lib/python3/dist-packages"
	systemPython = "/usr/bin/python3"
)

// fieldPackage is one line of testdata/field/packages.txt.
type fieldPackage struct {
	deb  string
	dirs []string
}

func readFieldPackages(t *testing.T) []fieldPackage {
	t.Helper()
	f, err := os.Open("../../testdata/field/packages.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fieldPackage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if fields := strings.Fields(line); len(fields) >= 2 {
			out = append(out, fieldPackage{deb: fields[0], dirs: fields[1:]})
		}
	}
	if len(out) < 15 {
		t.Fatalf("packages.txt lists %d packages, the field needs at least 15", len(out))
	}
	return out
}

// tally is one line of the field report: a package, command and rule.
type tally struct {
	pkg, cmd, rule           string
	errors, warnings, notes  int
	confirmed, refuted       int
	refutations, expectation []string
}

func (t *tally) String() string {
	return fmt.Sprintf("%-24s %-9s %-5s  error=%-3d warning=%-3d note=%-5d confirmed=%-3d refuted=%d",
		t.pkg, t.cmd, t.rule, t.errors, t.warnings, t.notes, t.confirmed, t.refuted)
}

// fieldReport prints the tallies and writes them to $FIELD_REPORT when set.
func fieldReport(t *testing.T, title string, tallies []*tally) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", title)
	refuted := 0
	for _, x := range tallies {
		fmt.Fprintf(&b, "%s\n", x)
		for _, r := range x.refutations {
			fmt.Fprintf(&b, "    refuted: %s\n", r)
		}
		refuted += x.refuted
	}
	fmt.Fprintf(&b, "refuted errors and warnings: %d\n", refuted)
	t.Log("\n" + b.String())
	if file := os.Getenv("FIELD_REPORT"); file != "" {
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprint(f, b.String())
			f.Close()
		}
	}
	if refuted > 0 {
		t.Errorf("%d errors and warnings the real loader refutes", refuted)
	}
}

// runField runs etlink check or conflicts --with torch on dir, with the
// system interpreter, and returns its report.
func runField(t *testing.T, cmd, dir string) *finding.Report {
	t.Helper()
	args := []string{cmd, dir, "--python", systemPython, "--format", "json", "-q"}
	if cmd == "conflicts" {
		args = append(args, "--with", "torch")
	}
	code, out, errs := runCLI(t, args...)
	if code == exitError {
		t.Errorf("etlink %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	return decodeReport(t, out)
}

func needField(t *testing.T) string {
	t.Helper()
	testenv.NeedFiles(t, systemPython, filepath.Join(debianTorch, "lib", "libtorch_cpu.so"))
	ldso, err := ldoracle.Interp(systemPython)
	if err != nil {
		t.Fatal(err)
	}
	return ldso
}

// TestFieldDebianPackages runs check and conflicts --with torch on each
// package of the field and confirms every error and warning with the loader.
func TestFieldDebianPackages(t *testing.T) {
	ldso := needField(t)
	var tallies []*tally
	var missing []string
	for _, p := range readFieldPackages(t) {
		for _, d := range p.dirs {
			dir := filepath.Join(fieldSite, d)
			if _, err := os.Stat(dir); err != nil {
				missing = append(missing, fmt.Sprintf("%s (apt-get install %s)", dir, p.deb))
				continue
			}
			for _, cmd := range []string{"check", "conflicts"} {
				o := &fieldOracle{t: t, dir: dir, ldso: ldso, torch: cmd == "conflicts"}
				r := runField(t, cmd, dir)
				tallies = append(tallies, o.judge(d, cmd, r)...)
				if cmd == "check" {
					for _, m := range o.missed(r) {
						t.Errorf("%s: the loader reports %s; etlink check reports nothing of it", d, m)
					}
				}
			}
		}
	}
	fieldReport(t, "field: Debian packages, each error and warning confirmed by the loader", tallies)
	if len(missing) > 0 {
		testenv.Missing(t, "field packages not installed: %s", strings.Join(missing, ", "))
	}
}

// TestFieldWholeTree runs check on the whole dist-packages tree at once, as
// a user checking an environment does: every package's Python read, every
// module in one process. Every error and warning is confirmed by the
// loader as the per-package runs are.
func TestFieldWholeTree(t *testing.T) {
	ldso := needField(t)
	o := &fieldOracle{t: t, dir: fieldSite, ldso: ldso}
	r := runField(t, "check", fieldSite)
	tallies := o.judge("dist-packages", "check", r)
	fieldReport(t, "field: the whole dist-packages tree, each error and warning confirmed by the loader", tallies)
}

// TestFieldMustFlag builds the trees testdata/field/mustflag/build.sh makes,
// each of which must be flagged with the rule and severity its EXPECT names
// and nothing else at warning or above, confirmed by the loader; the
// static-libstdc++ tree's conflicts must equal nm -D and comm's.
func TestFieldMustFlag(t *testing.T) {
	ldso := needField(t)
	testenv.NeedTools(t, "bash", "gcc", "g++", "patchelf", "python3-config", "nm", "ldd", "comm", "sha256sum")
	testenv.NeedFiles(t, "/usr/include/cpuinfo.h", "/usr/lib/x86_64-linux-gnu/libcpuinfo.so.0")
	out := t.TempDir()
	sh(t, "../../testdata/field/mustflag/build.sh", out)
	trees, err := filepath.Glob(filepath.Join(out, "*", "EXPECT"))
	if err != nil || len(trees) < 7 {
		t.Fatalf("build.sh made %d trees: %v", len(trees), err)
	}
	var tallies []*tally
	for _, expectFile := range trees {
		dir := filepath.Dir(expectFile)
		name := filepath.Base(dir)
		data, err := os.ReadFile(expectFile)
		if err != nil {
			t.Fatal(err)
		}
		expect := map[string][]string{} // command: "RULE severity" lines
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				expect[f[0]] = append(expect[f[0]], f[1]+" "+f[2])
			}
		}
		whl := treeWheel(t, dir, name)
		for _, cmd := range []string{"check", "conflicts"} {
			r := runField(t, cmd, dir)
			// The same files as a wheel, read in memory: the same verdicts.
			if got, want := verdicts(runField(t, cmd, whl)), verdicts(r); !slices.Equal(got, want) {
				t.Errorf("%s: etlink %s on the wheel says %v, on the installed tree %v", name, cmd, got, want)
			}
			got := map[string]bool{}
			for _, f := range r.Findings {
				key := f.Rule + " " + f.Severity.String()
				got[key] = true
				if f.Severity >= finding.Warning && !slices.Contains(expect[cmd], key) {
					t.Errorf("%s: etlink %s: unexpected %s %s: %s", name, cmd, f.Severity, f.Rule, f.Message)
				}
			}
			for _, want := range expect[cmd] {
				if !got[want] {
					t.Errorf("%s: etlink %s does not report %s (must flag); it reported %v", name, cmd, want, slices.Sorted(maps.Keys(got)))
				}
			}
			o := &fieldOracle{t: t, dir: dir, ldso: ldso, torch: cmd == "conflicts"}
			tallies = append(tallies, o.judge(name, cmd, r)...)
			if name == "static-libstdcxx" && cmd == "conflicts" {
				want := strings.Fields(sh(t, "../../testdata/e2e/oracle.sh", dir))
				if missing, extra := diff(want, conflictNames(r)); len(missing)+len(extra) > 0 || len(want) < 1000 {
					t.Errorf("static-libstdc++ conflicts: nm/comm finds %d, etlink misses %d %v and adds %d %v",
						len(want), len(missing), head(missing), len(extra), head(extra))
				}
			}
		}
	}
	fieldReport(t, "field: must-flag trees", tallies)
}

// treeWheel zips a must-flag tree's package files into a wheel of the
// wheel's own layout (name-1.0-cp311-cp311-linux_x86_64.whl, a dist-info
// with WHEEL and RECORD), modes kept.
func treeWheel(t *testing.T, dir, name string) string {
	t.Helper()
	entries := map[string]wheelFile{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "EXPECT" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		entries[filepath.ToSlash(rel)] = wheelFile{p, 0o755}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	dist := strings.ReplaceAll(name, "-", "_")
	meta := filepath.Join(t.TempDir(), "WHEEL")
	if err := os.WriteFile(meta, []byte("Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries[dist+"-1.0.dist-info/WHEEL"] = wheelFile{meta, 0o644}
	entries[dist+"-1.0.dist-info/RECORD"] = wheelFile{meta, 0o644}
	whl := filepath.Join(t.TempDir(), dist+"-1.0-cp311-cp311-linux_x86_64.whl")
	writeWheel(t, whl, entries)
	return whl
}

// verdicts lists a report's rules and severities at warning or above, with
// the symbols each names, sorted: what must not depend on where the files sit.
func verdicts(r *finding.Report) []string {
	var out []string
	for _, f := range r.Findings {
		if f.Severity >= finding.Warning {
			out = append(out, f.Rule+" "+f.Severity.String()+" "+f.Subject.Symbol)
		}
	}
	sort.Strings(out)
	return out
}

// fieldOracle confirms one etlink report on one directory with the loader.
type fieldOracle struct {
	t     *testing.T
	dir   string
	ldso  string
	torch bool // the process imports torch first (conflicts --with torch)
	names map[string]bool
	py    *ldoracle.Run
	steps []ldoracle.Step
	trace map[string]*ldoracle.Run
}

// judge tallies a report by rule and confirms its errors and warnings.
func (o *fieldOracle) judge(pkg, cmd string, r *finding.Report) []*tally {
	by := map[string]*tally{}
	var order []string
	o.names = map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity >= finding.Warning {
			for _, n := range symbolsOf(f) {
				o.names[n] = true
			}
		}
	}
	for _, f := range r.Findings {
		x := by[f.Rule]
		if x == nil {
			x = &tally{pkg: pkg, cmd: cmd, rule: f.Rule}
			by[f.Rule] = x
			order = append(order, f.Rule)
		}
		switch f.Severity {
		case finding.Error:
			x.errors++
		case finding.Warning:
			x.warnings++
		default:
			x.notes++
			continue
		}
		if ok, why := o.confirm(f); ok {
			x.confirmed++
		} else {
			x.refuted++
			x.refutations = append(x.refutations, fmt.Sprintf("%s %s %s %s: %s", f.Severity, f.Rule, f.Subject.File, f.Subject.Symbol, why))
		}
	}
	if len(order) == 0 {
		return []*tally{{pkg: pkg, cmd: cmd, rule: "-"}}
	}
	sort.Strings(order)
	out := make([]*tally, len(order))
	for i, rule := range order {
		out[i] = by[rule]
	}
	return out
}

// missed lists what the loader reports in the package's process (its own
// import, then every module dlopened) that check does not: an undefined
// symbol with no ET401, a library not found with no ET402, at any
// severity (recall).
func (o *fieldOracle) missed(r *finding.Report) []string {
	said := map[string]bool{}
	for _, f := range r.Findings {
		said[f.Rule+" "+f.Subject.Symbol] = true
		det, _ := f.Details.(map[string]any)
		if syms, ok := det["symbols"].([]any); ok {
			for _, s := range syms {
				if name, ok := s.(string); ok {
					said[f.Rule+" "+name] = true
				}
			}
		}
	}
	var out []string
	for _, e := range o.python().Errors {
		if _, sym, ok := strings.Cut(e, "undefined symbol: "); ok {
			sym = strings.Fields(sym)[0]
			if !said["ET401 "+sym] {
				out = append(out, "undefined symbol "+sym+" ("+e+")")
			}
		}
		if lib, _, ok := strings.Cut(e, ": cannot open shared object file"); ok {
			lib = filepath.Base(strings.TrimSpace(lib))
			if !said["ET402 "+lib] {
				out = append(out, lib+" not found ("+e+")")
			}
		}
	}
	return out
}

// symbolsOf lists the symbols a finding's confirmation watches: its
// subject's, or a bundle's members at warning or above.
func symbolsOf(f finding.Finding) []string {
	det, _ := f.Details.(map[string]any)
	members, ok := det["symbols"].([]any)
	if !ok {
		return []string{f.Subject.Symbol}
	}
	var out []string
	for _, m := range members {
		m, _ := m.(map[string]any)
		if sev, _ := m["severity"].(string); sev == "warning" || sev == "error" {
			out = append(out, m["symbol"].(string))
		}
	}
	return out
}

// python is the run of the process etlink models: python3 (importing torch
// first for conflicts), the package's own import when the directory is a
// package (its Python decides what it opens, and how: the truth etlink's
// reading of that Python is held to), then every module and library of
// the directory, dlopened RTLD_LOCAL in the order etlink imports them.
func (o *fieldOracle) python() *ldoracle.Run {
	if o.py != nil {
		return o.py
	}
	objs, _ := elfobj.Open([]string{o.dir}, elfobj.Options{})
	if o.torch {
		o.steps = append(o.steps, ldoracle.Step{Import: "torch"})
	}
	if _, err := os.Stat(filepath.Join(o.dir, "__init__.py")); err == nil && filepath.Dir(o.dir) == fieldSite {
		o.steps = append(o.steps, ldoracle.Step{Import: filepath.Base(o.dir)})
	}
	for _, r := range analyze.NewSide("wheel", objs, analyze.PythonPlan{}).Roots {
		o.steps = append(o.steps, ldoracle.Step{Path: r.Object.Path})
	}
	run, err := ldoracle.Python(systemPython, o.steps, o.names)
	if err != nil {
		o.t.Fatal(err)
	}
	if o.torch && run.Errors[0] != "" {
		o.t.Fatalf("import torch: %s", run.Errors[0])
	}
	o.py = run
	return run
}

// traced is ld.so's trace of one file (a program, or a library without the
// interpreter), run once.
func (o *fieldOracle) traced(file string) *ldoracle.Run {
	if run, ok := o.trace[file]; ok {
		return run
	}
	run, err := ldoracle.Trace(o.ldso, file, o.names)
	if err != nil {
		o.t.Fatal(err)
	}
	if o.trace == nil {
		o.trace = map[string]*ldoracle.Run{}
	}
	o.trace[file] = run
	return run
}

func isProgram(file string) bool {
	obj, err := elfobj.OpenFile(file, "", elfobj.Options{})
	return err == nil && obj.Executable
}

// confirm runs the loader experiment for one error or warning (the table
// in testdata/field/README.md) and says what the loader did.
func (o *fieldOracle) confirm(f finding.Finding) (bool, string) {
	file, sym := f.Subject.File, f.Subject.Symbol
	det, _ := f.Details.(map[string]any)
	switch f.Rule {
	case "ET301", "ET302":
		run := o.python()
		if p, _ := det["process"].(string); strings.HasPrefix(p, "/") {
			run = o.traced(p) // ET302 in one of the package's programs
		}
		members, bundle := det["symbols"].([]any)
		if !bundle {
			return copiesBound(run, sym, det)
		}
		for _, m := range members {
			m, _ := m.(map[string]any)
			if sev, _ := m["severity"].(string); sev != "warning" && sev != "error" {
				continue
			}
			md, _ := m["details"].(map[string]any)
			if ok, why := copiesBound(run, m["symbol"].(string), md); !ok {
				return false, why
			}
		}
		return true, "every member at warning or above confirmed"
	case "ET201":
		// The loader maps the module's libpython dependency: a second
		// interpreter library beside the one python3 runs.
		for _, name := range o.traced(file).Mapped {
			if strings.HasPrefix(name, "libpython3") {
				return true, "the loader maps " + name + " for it"
			}
		}
		return false, "the loader maps no libpython for it"
	case "ET401":
		if isProgram(file) {
			return containsAny(o.traced(file).Errors, "undefined symbol: "+sym)
		}
		errs := o.python().Errors
		if ok, why := containsAny(errs, "undefined symbol: "+sym); ok {
			return ok, why
		}
		if ok, _ := containsAny(errs, filepath.Base(file)+": undefined symbol"); ok {
			return containsAny(o.traced(file).Errors, "undefined symbol: "+sym+"\t")
		}
		return false, "python3 loads it without an undefined-symbol failure"
	case "ET402":
		if isProgram(file) {
			return containsAny(o.traced(file).Errors, sym+" => not found")
		}
		return containsAny(o.python().Errors, sym+": cannot open shared object file")
	case "ET203":
		_, dir, _ := strings.Cut(sym, "=")
		run := o.python()
		if isProgram(file) {
			run = o.traced(file)
		}
		if slices.Contains(run.Searched[ldoracle.Real(file)], dir) {
			return true, "the loader searches " + dir + " for " + filepath.Base(file)
		}
		// A process that mapped the file's dependencies before it
		// searches nothing for it: the file alone is the experiment.
		if alone := o.traced(file); slices.Contains(alone.Searched[ldoracle.Real(file)], dir) {
			return true, "the loader searches " + dir + " for " + filepath.Base(file) + " loaded alone"
		}
		return false, fmt.Sprintf("the loader never searches %s for %s (searched %v)", dir, filepath.Base(file), run.Searched[ldoracle.Real(file)])
	case "ET403":
		return o.consumerFails(file)
	}
	return false, "no loader experiment for " + f.Rule
}

// copiesBound confirms one duplicated symbol's grade (details as etlink
// wrote them). The copies fall in parties: the wheel's and the peer's
// (ET301), or one per shipped object (ET302). Interposed: the loader binds
// a reference from the object etlink names to another party's copy than
// its own. Separate: the loader binds references to copies of two parties.
func copiesBound(run *ldoracle.Run, sym string, det map[string]any) (bool, string) {
	binds, _ := det["bindings"].([]any)
	party := map[string]int{}
	peer, _ := det["peer"].([]any)
	for i, side := range []string{"wheel", "peer"} {
		defs, _ := det[side].([]any)
		for j, d := range defs {
			d, _ := d.(map[string]any)
			party[d["object"].(string)] = i + 1
			if len(peer) == 0 {
				party[d["object"].(string)] = j + 1
			}
		}
	}
	switch use, _ := det["use"].(string); use {
	case "interposed":
		for _, b := range binds {
			b, _ := b.(map[string]any)
			from, _ := b["from"].(string)
			to, _ := b["to"].(string)
			own, _ := b["own"].(string)
			if party[to] != 0 && party[own] != 0 && party[to] != party[own] && run.Bound(sym, from, to) {
				return true, fmt.Sprintf("%s binds %s to %s, not its own %s", filepath.Base(from), sym, to, own)
			}
		}
		return false, fmt.Sprintf("the loader binds no reference to %s where etlink says it is interposed (bindings seen: %v)", sym, run.Bindings[sym])
	case "separate":
		live := map[int]string{}
		for _, b := range binds {
			b, _ := b.(map[string]any)
			to, _ := b["to"].(string)
			if p := party[to]; p != 0 && live[p] == "" && run.Bound(sym, "", to) {
				live[p] = to
			}
		}
		if len(live) >= 2 {
			return true, fmt.Sprintf("the loader binds %s to %v", sym, live)
		}
		return false, fmt.Sprintf("the loader binds %s to %v only (bindings seen: %v)", sym, live, run.Bindings[sym])
	default:
		return false, "use " + use + " is no error or warning"
	}
}

func containsAny(list []string, s string) (bool, string) {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true, x
		}
	}
	return false, fmt.Sprintf("no load failure mentions %q (failures: %q)", s, list)
}

// consumerFails links a library against file with the real linker and
// loads it: a SONAME no file carries makes the load fail.
func (o *fieldOracle) consumerFails(file string) (bool, string) {
	dir := o.t.TempDir()
	src := filepath.Join(dir, "consumer.c")
	if err := os.WriteFile(src, []byte("int etlink_consumer;\n"), 0o644); err != nil {
		o.t.Fatal(err)
	}
	lib := filepath.Join(dir, "libconsumer.so")
	// --no-as-needed before the library: Debian's gcc passes --as-needed,
	// which would drop a library nothing references.
	cmd := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, src, "-Wl,--no-as-needed", "-L"+filepath.Dir(file),
		"-l:"+filepath.Base(file), "-Wl,-rpath,"+filepath.Dir(file))
	if out, err := cmd.CombinedOutput(); err != nil {
		o.t.Fatalf("linking a consumer of %s: %v\n%s", file, err, out)
	}
	run, err := ldoracle.Python(systemPython, []ldoracle.Step{{Path: lib}}, nil)
	if err != nil {
		o.t.Fatal(err)
	}
	return containsAny(run.Errors, ": cannot open shared object file")
}

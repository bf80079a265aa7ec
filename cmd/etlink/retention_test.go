package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
)

// The retention matrix: testdata/retention/project built with every linker,
// for both architectures, with four generators (Ninja, Ninja with every
// link through a kept response file, Ninja Multi-Config, Makefiles), and
// etlink's findings
// checked against what the produced binaries contain (facts.sh: readelf,
// nm, the maps) and what the link commands in the build log name, in every
// form a user hands etlink the build: the directory with the File API
// queries answered (codemodel, toolchains, cache), the maps beside it, the
// generator's link lines alone, the directory reconfigured with a
// codemodel-v2 query only (as the README says), with no query at all, the
// outputs without their maps, and with neither (predicted). etlink why
// must explain each backend's and member's fate as the binaries show it.

var linkers = []string{"bfd", "gold", "lld", "mold"}

type build struct{ linker, arch, generator string }

func (b build) String() string { return b.linker + "-" + b.arch + "-" + b.generator }

func TestRetentionMatrix(t *testing.T) {
	testenv.NeedTools(t, "bash", "cmake", "ninja", "make", "g++", "aarch64-linux-gnu-g++", "ld.gold", "ld.lld", "mold", "readelf", "nm")
	script, err := filepath.Abs("../../testdata/retention/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join(filepath.Dir(script), "facts.sh")
	project := filepath.Join(filepath.Dir(script), "project")
	for _, arch := range []string{"x86_64", "aarch64"} {
		for _, gen := range []string{"ninja", "ninja-rsp", "ninja-multi", "make"} {
			for _, linker := range linkers {
				b := build{linker, arch, gen}
				t.Run(b.String(), func(t *testing.T) {
					t.Parallel()
					dir := t.TempDir()
					sh(t, script, dir, "--linker", linker, "--arch", arch, "--generator", gen, "--jobs", "1")
					truth := readFacts(t, sh(t, facts, dir))
					want := expectedFindings(t, truth, filepath.Join(dir, "build.log"))
					if len(want) == 0 {
						t.Fatal("the fixture build drops nothing: the oracle or the fixture is broken")
					}
					pinLinkerDifferences(t, b, truth)
					check := func(form string, args ...string) {
						t.Helper()
						compareFindings(t, form, want, retentionFindings(t, args...))
					}

					check("build dir, File API: codemodel, toolchains, cache", dir)
					check("maps and build dir", append(files(t, dir, "*.map"), dir)...)
					check("link lines alone", linkLines(t, dir, gen)...)
					mapsOnly(t, dir)
					checkWhy(t, dir, truth)
					checkRegistryCopies(t, dir, truth)
					reconfigure(t, project, dir, "codemodel-v2")
					check("build dir, File API: codemodel-v2 query only", dir)
					if err := os.RemoveAll(filepath.Join(dir, ".cmake")); err != nil {
						t.Fatal(err)
					}
					check("build dir, no File API query", dir)
					for _, m := range files(t, dir, "*.map") {
						if err := os.Remove(m); err != nil {
							t.Fatal(err)
						}
					}
					check("outputs without maps", dir)
					// Predicted: without the consumers, etlink must reach
					// the same verdicts from the inputs alone.
					// ET103 is where the loader binds: a fact of the
					// outputs, not predicted without them.
					removeOutputs(t, dir, truth)
					want = slices.DeleteFunc(want, func(w string) bool { return strings.HasPrefix(w, "ET103 ") })
					check("predicted (no outputs, no maps)", dir)
				})
			}
		}
	}
}

// checkRegistryCopies holds ET103's evidence to the consumers' runs: the
// fat backend's registration lands in the registry the consumer reads
// (libet_runtime.so's: the run prints backends=1) unless it is linked
// -Bsymbolic, when it fills its own copy (backends=0). Without a run (an
// aarch64 build here) the binding is checked all the same.
func checkRegistryCopies(t *testing.T, dir string, truth factSet) {
	t.Helper()
	_, out, _ := runCLI(t, "retention", dir, "--format", "json", "-q")
	for _, tc := range []struct{ consumer, copy string }{
		{"consumer_split_registry", "libet_runtime.so"},
		{"consumer_split_registry_symbolic", "libet_backend_fat_symbolic.so"},
	} {
		if run := truth[tc.consumer]; slices.Contains(run, "RUN backends=1 kernels=0") != (tc.copy == "libet_runtime.so") &&
			!slices.ContainsFunc(run, func(f string) bool { return strings.HasPrefix(f, "RUN skipped") }) {
			t.Errorf("%s: run %v, expected the registration in %s", tc.consumer, run, tc.copy)
		}
		want := fmt.Sprintf("binds to %s's copy: the registry it fills", tc.copy)
		found := false
		for _, f := range decodeReport(t, out).Findings {
			if f.Rule == "ET103" && f.Subject.Target == tc.consumer {
				for _, e := range f.Evidence {
					found = found || strings.Contains(e.Text, want)
				}
			}
		}
		if !found {
			t.Errorf("%s: ET103's evidence does not say the backend's %s", tc.consumer, want)
		}
	}
}

// files lists the files of dir's bin/ and lib/ matching pattern.
func files(t *testing.T, dir, pattern string) []string {
	t.Helper()
	var out []string
	for _, sub := range []string{"bin", "lib"} {
		m, err := filepath.Glob(filepath.Join(dir, sub, pattern))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	sort.Strings(out)
	return out
}

// linkLines is what the generator wrote the links into: build.ninja, or
// every CMakeFiles/*/link.txt (the static libraries' ar commands among them).
func linkLines(t *testing.T, dir, gen string) []string {
	t.Helper()
	if gen != "make" {
		return []string{filepath.Join(dir, "build.ninja")}
	}
	txts, err := filepath.Glob(filepath.Join(dir, "CMakeFiles", "*", "link.txt"))
	if err != nil || len(txts) < 10 {
		t.Fatalf("%d link.txt files in %s: %v", len(txts), dir, err)
	}
	return txts
}

// mapsOnly: maps without any link line decide nothing (no map says which
// libraries were under --as-needed), say so, and are no input error.
func mapsOnly(t *testing.T, dir string) {
	t.Helper()
	args := append([]string{"retention", "--format", "json"}, files(t, dir, "*.map")...)
	code, out, errs := runCLI(t, args...)
	if code == exitError || len(decodeReport(t, out).Findings) != 0 || !strings.Contains(errs, "maps but no link line") {
		t.Errorf("maps only: exit %d, findings %s, stderr %s", code, out, errs)
	}
}

// reconfigure re-runs CMake on dir with the File API queries named, and
// only those, answered.
func reconfigure(t *testing.T, project, dir string, queries ...string) {
	t.Helper()
	api := filepath.Join(dir, ".cmake", "api", "v1")
	if err := os.RemoveAll(api); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(api, "query"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		if err := os.WriteFile(filepath.Join(api, "query", q), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("cmake", "-S", project, "-B", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reconfigure: %v\n%s", err, out)
	}
}

// checkWhy asks etlink why about the backend and the registering member:
// its chain for every consumer that links them must say what the binaries
// show.
func checkWhy(t *testing.T, dir string, truth factSet) {
	t.Helper()
	for _, q := range []struct{ name, fact, present string }{
		{"libet_backend_xnn.so", "BACKEND libet_backend_xnn.so", "loaded"},
		{"register_kernels.o", "MEMBER register_kernels.o", "present"},
	} {
		code, out, errs := runCLI(t, "why", q.name, dir, "--format", "json", "-q")
		if code == exitError {
			t.Fatalf("etlink why %s: exit %d: %s", q.name, code, errs)
		}
		var r struct {
			Chains []struct {
				Consumer string `json:"consumer"`
				Kept     bool   `json:"kept"`
				Verdict  string `json:"verdict"`
			} `json:"chains"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		explained := map[string]bool{}
		for _, c := range r.Chains {
			explained[c.Consumer] = true
			if _, ok := truth[c.Consumer]; !ok {
				continue // a library's link, not a consumer's
			}
			kept := truth.has(c.Consumer, q.fact+" "+q.present)
			if c.Kept != kept {
				t.Errorf("why %s --in %s: kept=%v (%s), the binary says %v", q.name, c.Consumer, c.Kept, c.Verdict, kept)
			}
		}
		for consumer := range truth {
			if strings.Contains(linkCommand(t, filepath.Join(dir, "build.log"), consumer), strings.TrimSuffix(q.name, ".o")) && !explained[consumer] {
				t.Errorf("why %s: no chain for %s, whose link names it", q.name, consumer)
			}
		}
	}
}

// factSet is facts.sh's output: consumer -> lines ("NEEDED libx.so", ...).
type factSet map[string][]string

func readFacts(t *testing.T, out string) factSet {
	t.Helper()
	fs := factSet{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, rest, _ := strings.Cut(line, " ")
		fs[c] = append(fs[c], rest)
	}
	return fs
}

func (fs factSet) has(consumer, fact string) bool {
	for _, f := range fs[consumer] {
		if f == fact {
			return true
		}
	}
	return false
}

// linkCommand finds the line of the build log that links consumer.
func linkCommand(t *testing.T, logFile, consumer string) string {
	t.Helper()
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`-o \S*(bin/` + regexp.QuoteMeta(consumer) + `|lib/` + regexp.QuoteMeta(consumer) + `\.so)(\s|$)`)
	for _, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) && !strings.Contains(line, " -c ") {
			// A response file (ninja -d keeprsp) holds the inputs.
			for _, w := range strings.Fields(line) {
				if rsp, ok := strings.CutPrefix(w, "@"); ok {
					if b, err := os.ReadFile(filepath.Join(filepath.Dir(logFile), rsp)); err == nil {
						line += " " + string(b)
					}
				}
			}
			return line
		}
	}
	t.Fatalf("no link command for %s in %s", consumer, logFile)
	return ""
}

// expectedFindings derives ET101/ET102/ET103 from the binaries: a backend
// named on a consumer's link command but absent from its load set; the
// registering archive member named on the command but absent from the
// output; two definers of register_backend in a load set.
func expectedFindings(t *testing.T, truth factSet, logFile string) []string {
	t.Helper()
	var want []string
	for consumer, facts := range truth {
		cmd := linkCommand(t, logFile, consumer)
		for _, f := range facts {
			switch {
			case strings.HasPrefix(f, "BACKEND ") && strings.HasSuffix(f, " absent"):
				lib := strings.Fields(f)[1]
				if strings.Contains(cmd, lib) {
					want = append(want, fmt.Sprintf("ET101 %s %s", consumer, lib))
				}
			case f == "MEMBER register_kernels.o absent":
				if strings.Contains(cmd, "libet_kernels.a") {
					want = append(want, fmt.Sprintf("ET102 %s libet_kernels.a(register_kernels.o)", consumer))
				}
			case strings.HasPrefix(f, "EXTENSION "):
				for _, n := range facts {
					if strings.HasPrefix(n, "NEEDED libpython3") {
						want = append(want, fmt.Sprintf("ET201 %s", consumer))
					}
				}
			case strings.HasPrefix(f, "REGISTRY_DEFINERS "):
				var n int
				fmt.Sscan(strings.TrimPrefix(f, "REGISTRY_DEFINERS "), &n)
				if n >= 2 && splitRegistry(t, consumer, facts) {
					want = append(want, fmt.Sprintf("ET103 %s", consumer))
				}
			}
		}
	}
	sort.Strings(want)
	return want
}

// splitRegistry reports whether a consumer loading two copies of
// register_backend has a backend whose call objdump shows bound to its own
// copy (REGISTRY_CALL_BOUND): its registration lands where the consumer
// does not look. Where the consumer ran, its count of backends must agree.
func splitRegistry(t *testing.T, consumer string, facts []string) bool {
	t.Helper()
	split := slices.ContainsFunc(facts, func(f string) bool { return strings.HasPrefix(f, "REGISTRY_CALL_BOUND ") })
	for _, f := range facts {
		if strings.HasPrefix(f, "RUN backends=") && split != strings.HasPrefix(f, "RUN backends=0 ") {
			t.Errorf("%s: objdump says the backend's registration lands in its own copy: %v, but its run says %s", consumer, split, f)
		}
	}
	return split
}

func retentionFindings(t *testing.T, inputs ...string) []string {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"retention", "--format", "json", "-q"}, inputs...)...)
	if code == exitError {
		t.Fatalf("etlink retention exit %d: %s", code, errs)
	}
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		if f.Severity < finding.Warning {
			continue
		}
		switch f.Rule {
		case "ET201":
			got = append(got, fmt.Sprintf("ET201 %s", f.Subject.Target))
		case "ET101":
			got = append(got, fmt.Sprintf("ET101 %s %s", f.Subject.Target, filepath.Base(f.Subject.File)))
		case "ET102":
			got = append(got, fmt.Sprintf("ET102 %s %s(%s)", f.Subject.Target, filepath.Base(f.Subject.File), f.Subject.Member))
		case "ET103":
			got = append(got, fmt.Sprintf("ET103 %s", f.Subject.Target))
		}
	}
	sort.Strings(got)
	return dedupe(got)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func compareFindings(t *testing.T, mode string, want, got []string) {
	t.Helper()
	if missing, extra := diff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("%s: etlink disagrees with the binaries:\n missing %v\n extra   %v\n want    %v", mode, missing, extra, want)
	}
}

// removeOutputs deletes every consumer and its map, leaving the libraries
// the links read.
func removeOutputs(t *testing.T, dir string, truth factSet) {
	t.Helper()
	for consumer := range truth {
		for _, p := range []string{filepath.Join(dir, "bin", consumer), filepath.Join(dir, "lib", consumer+".so")} {
			for _, q := range []string{p, p + ".map"} {
				if err := os.Remove(q); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}
	}
}

// pinLinkerDifferences states what differs between linkers in reality, so a
// toolchain update that changes it fails here and the docs (ET101, the
// linkSim model) are revisited, on both architectures: a backend referenced
// only by another shared library (consumer_shlib_ref links glue, which
// calls into the backend without listing it in DT_NEEDED) is kept by bfd
// and dropped by gold, lld and mold; a backend anchored only with
// --undefined (consumer_anchor_undefined) is kept by mold alone; the archive
// member -u names (consumer_archive_undefined) is extracted by all four.
func pinLinkerDifferences(t *testing.T, b build, truth factSet) {
	t.Helper()
	for _, pin := range []struct {
		consumer, fact string
		want           bool
	}{
		{"consumer_shlib_ref", "BACKEND libet_backend_xnn.so loaded", b.linker == "bfd"},
		{"consumer_anchor_undefined", "BACKEND libet_backend_xnn.so loaded", b.linker == "mold"},
		{"consumer_archive_undefined", "MEMBER register_kernels.o present", true},
	} {
		if got := truth.has(pin.consumer, pin.fact); got != pin.want {
			t.Errorf("%s: %s %q is %v, pinned: %v", pin.consumer, b.linker, pin.fact, got, pin.want)
		}
	}
}

// TestMapPathsFromTheBuildDirectory runs why from inside the build
// directory, as a user does (etlink why reg build.log): the map names the archive
// relative to the link's directory, which is not where etlink resolves a
// relative path unless the two coincide; the verdict must not depend on
// where etlink was started. (It said "dropped" for a member the map loads.)
func TestMapPathsFromTheBuildDirectory(t *testing.T) {
	testenv.NeedTools(t, "g++", "ar")
	dir := t.TempDir()
	src := "extern \"C\" void plugin_register(const char*, void (*)());\nstatic void run() {}\n" +
		"static int reg = (plugin_register(\"reg\", &run), 1);\n"
	for name, text := range map[string]string{
		"reg.cc":  src,
		"main.cc": "#include <cstdio>\nextern \"C\" void plugin_register(const char* n, void (*)()) { std::puts(n); }\nint main() {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log := []string{
		"g++ -c reg.cc -o reg.o",
		"g++ -c main.cc -o main.o",
		"ar rcs libreg.a reg.o",
		"g++ -o prog main.o -Wl,--whole-archive libreg.a -Wl,--no-whole-archive -Wl,-Map,prog.map",
	}
	for _, line := range log {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "build.log"), []byte(strings.Join(log, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, errs := runCLI(t, "why", "reg", "build.log")
	if code != 0 || !strings.Contains(out, "map "+filepath.Join(dir, "prog.map")+" (bfd) loads it") || !strings.Contains(out, "=> kept") {
		t.Errorf("why reg build.log from the build directory: exit %d, want the map's line and kept:\n%s%s", code, out, errs)
	}
}

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/testenv"
)

// The registration matrix: testdata/registration/project, real registration
// frameworks from Debian's packages (GoogleTest, Google Benchmark, protobuf
// generated code, pybind11's embedded modules, CPython's C API, gflags,
// Abseil flags, LLVM's cl::opt) and a unit that registers nothing, each unit linked into a
// program in every way it is lost (an archive member nobody references, a
// shared library --as-needed drops) or kept (the LINK_LIBRARY whole-archive
// feature, raw --whole-archive, an OBJECT library, an anchor reference into
// the archive or the library, --no-as-needed) or registered twice (the
// archive whole-archived and the library loaded), by bfd, gold, lld and
// mold, at -O0 and -O2. The truth is what each program lists at run time,
// and for a double whether it fails or lists a name twice; etlink runs with
// no configuration and must find every lost unit as an error, every double
// the program shows as ET104 (an error, or a note where every copy hands
// the registry the same object and etlink cannot tell whether it takes it
// twice), and nothing else at warning or above.

// registrationFrameworks are the project's frameworks and the unit file
// each builds: lib<name>_a.a(member) and lib<name>_so.so.
var registrationFrameworks = []string{"gtest", "benchmark", "protobuf", "embedded", "capi", "gflags", "absl", "llvm", "nothing"}

func TestRegistrationMatrix(t *testing.T) {
	testenv.NeedTools(t, "bash", "cmake", "ninja", "g++", "gcc", "ld.gold", "ld.lld", "mold", "protoc")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/include/gtest/gtest.h", "/usr/include/benchmark/benchmark.h",
		"/usr/include/gflags/gflags.h", "/usr/include/absl/flags/flag.h", "/usr/include/pybind11/embed.h",
		"/usr/include/google/protobuf/message.h", "/usr/lib/llvm-14/include/llvm/Support/CommandLine.h",
		"/usr/include/glog/logging.h", "/usr/include/boost/program_options.hpp")
	script, err := filepath.Abs("../../testdata/registration/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			sh(t, script, dir, opt, "--jobs", "1")
			truth := registrationTruth(t, filepath.Join(dir, "bin"))
			want := append(lostUnits(t, truth), splitRegistries(t, truth)...)
			report := registrationReport(t, dir)
			got, doubles := registrationFindings(report)
			checkDoubles(t, truth, doubles)
			checkField(t, report)
			for prog, sev := range doubles {
				if sev == finding.Error && doubled(truth[prog]) {
					want = append(want, fmt.Sprintf("ET104 error %s", prog))
				}
			}
			sort.Strings(want)
			missing, extra := diff(want, got)
			for _, m := range missing {
				t.Errorf("%s: lost at run time, etlink found nothing: %s", opt, m)
			}
			for _, e := range extra {
				t.Errorf("%s: etlink reports what the programs do not show: %s", opt, e)
			}
			checkRegistrationWhy(t, dir)
		})
	}
}

// registrationTruth runs every program and returns what each listed.
func registrationTruth(t *testing.T, bin string) map[string][]string {
	t.Helper()
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string][]string{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".map") {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, e.Name()))
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Env = append(os.Environ(), "PYTHONHOME=") // the embedded interpreter finds Debian's own
		err := cmd.Run()
		cancel()
		listed := strings.Fields(stdout.String())
		var exit *exec.ExitError
		switch {
		case err == nil:
		case strings.Contains(e.Name(), "-double-") && errors.As(err, &exit):
			listed = append(listed, failedRun) // a registry rejecting the second registration
		default:
			t.Fatalf("%s: %v (the program's run is the oracle)", e.Name(), err)
		}
		truth[e.Name()] = listed
	}
	if len(truth) == 0 {
		t.Fatal("no programs built")
	}
	return truth
}

// failedRun marks, in a program's listing, that it exited with an error.
const failedRun = "<failed>"

// doubled reports whether a run shows a registration made twice: it
// failed, or listed a name twice.
func doubled(listed []string) bool {
	seen := map[string]bool{}
	for _, n := range listed {
		if n == failedRun || seen[n] {
			return true
		}
		seen[n] = true
	}
	return false
}

// lostUnits derives from the runs the findings etlink must make: a program
// that lists none of what the kept programs of its framework and linker
// list lost its unit. A framework whose kept programs list nothing would
// make the oracle blind, and fails the test; the register-nothing unit must
// list nothing anywhere.
func lostUnits(t *testing.T, truth map[string][]string) []string {
	t.Helper()
	var want []string
	for _, fw := range registrationFrameworks {
		for _, linker := range linkers {
			var names []string
			for prog, listed := range truth {
				if strings.HasPrefix(prog, fw+"-kept-") && strings.HasSuffix(prog, "-"+linker) {
					names = append(names, listed...)
				}
			}
			if fw == "nothing" {
				if len(names) > 0 {
					t.Errorf("the register-nothing programs list %v", names)
				}
				continue
			}
			if len(names) == 0 {
				t.Fatalf("%s with %s: no kept program lists a registration: the oracle sees nothing", fw, linker)
			}
			for _, form := range []string{"lost-archive", "lost-shared", "kept-link-library", "kept-whole-archive",
				"kept-object-library", "kept-anchor-archive", "kept-no-as-needed", "kept-anchor-shared", "double"} {
				prog := fmt.Sprintf("%s-%s-%s", fw, form, linker)
				if form == "double" {
					continue
				}
				listed, ok := truth[prog]
				if !ok {
					t.Fatalf("%s was not built", prog)
				}
				lost := !slices.ContainsFunc(listed, func(n string) bool { return slices.Contains(names, n) })
				if lost != strings.HasPrefix(form, "lost-") {
					t.Errorf("%s lists %v: the fixture no longer loses or keeps what its name says", prog, listed)
				}
				switch {
				case !lost:
				case form == "lost-archive":
					want = append(want, fmt.Sprintf("ET102 error %s lib%s_a.a", prog, fw))
				default:
					want = append(want, fmt.Sprintf("ET101 error %s lib%s_so.so", prog, fw))
				}
			}
		}
	}
	sort.Strings(want)
	return want
}

// splitRegistries derives ET103 from the split programs' runs: a library
// carrying its own copy of GoogleTest registers where the program reads
// when the program lists the library's tests (its copy exported,
// interposed: a note at most), and into a second registry when it lists
// none (hidden by --exclude-libs: an error naming the library).
func splitRegistries(t *testing.T, truth map[string][]string) []string {
	t.Helper()
	var want []string
	for _, linker := range linkers {
		kept := truth["gtest-kept-link-library-"+linker]
		for _, vis := range []string{"interposed", "hidden"} {
			prog := fmt.Sprintf("gtest-split-%s-%s", vis, linker)
			listed, ok := truth[prog]
			if !ok {
				t.Fatalf("%s was not built", prog)
			}
			seen := slices.ContainsFunc(listed, func(n string) bool { return slices.Contains(kept, n) })
			if seen != (vis == "interposed") {
				t.Errorf("%s lists %v: the fixture no longer splits or joins the registry as its name says", prog, listed)
			}
			if !seen {
				want = append(want, fmt.Sprintf("ET103 error %s libgtest_split_%s.so", prog, vis))
			}
		}
	}
	return want
}

// registrationReport runs etlink retention on the build directory with no
// configuration.
func registrationReport(t *testing.T, dir string) *finding.Report {
	t.Helper()
	code, out, errs := runCLI(t, "retention", dir, "--format", "json", "-q")
	if code == exitError {
		t.Fatalf("etlink retention exit %d: %s", code, errs)
	}
	return decodeReport(t, out)
}

// registrationFindings returns every finding at warning or above (ET104 by
// its target alone), and the severity of ET104 for each program.
func registrationFindings(report *finding.Report) ([]string, map[string]finding.Severity) {
	var got []string
	doubles := map[string]finding.Severity{}
	for _, f := range report.Findings {
		if f.Rule == "ET104" {
			doubles[f.Subject.Target] = max(doubles[f.Subject.Target], f.Severity)
		}
		switch {
		case f.Severity < finding.Warning:
		case f.Rule == "ET104":
			got = append(got, fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Subject.Target))
		default:
			got = append(got, fmt.Sprintf("%s %s %s %s", f.Rule, f.Severity, f.Subject.Target, filepath.Base(f.Subject.File)))
		}
	}
	sort.Strings(got)
	return dedupe(got), doubles
}

// checkField holds the field programs (Debian's archives and libraries
// linked and partly used, sanitizer, coverage and LTO builds) to notes: the
// prebuilt libraries' lost units are counted as notes, not errors (the
// diff against the runs checks that nothing above a note is said of them),
// and the LTO member draws a note that its IR is not read.
func checkField(t *testing.T, report *finding.Report) {
	t.Helper()
	notes, lto := 0, false
	for _, f := range report.Findings {
		if !strings.HasPrefix(f.Subject.Target, "field-") || f.Severity != finding.Note {
			continue
		}
		notes++
		lto = lto || f.Subject.Target == "field-lto" && f.Rule == "ET102" && strings.Contains(f.Message, "link-time-optimisation IR")
	}
	if notes == 0 {
		t.Error("no note on the field programs: Debian's archives' unused registering members went unseen")
	}
	if !lto {
		t.Error("field-lto: no note that its LTO member's IR is not read")
	}
}

// checkDoubles holds ET104 to the double programs' runs: a program that
// fails or lists a name twice draws ET104 (an error, or a note that says
// etlink could not decide); one whose registry took the second
// registration silently draws no error; programs registered once, none.
func checkDoubles(t *testing.T, truth map[string][]string, doubles map[string]finding.Severity) {
	t.Helper()
	shown := 0
	for prog, listed := range truth {
		sev, reported := doubles[prog]
		switch {
		case !strings.Contains(prog, "-double-"):
			if reported {
				t.Errorf("%s registers once, etlink reports ET104 %s", prog, sev)
			}
		case strings.HasPrefix(prog, "nothing-"):
			if reported {
				t.Errorf("%s registers nothing, etlink reports ET104 %s", prog, sev)
			}
		case doubled(listed):
			shown++
			if !reported {
				t.Errorf("%s registers twice (its run: %v), etlink says nothing", prog, listed)
			}
		}
	}
	if shown == 0 {
		t.Error("no double program shows its double registration: the oracle sees nothing")
	}
}

// checkRegistrationWhy asks why for a lost and a kept unit: the chain names
// the registry reached, with no configuration.
func checkRegistrationWhy(t *testing.T, dir string) {
	t.Helper()
	for _, tc := range []struct {
		consumer, verdict string
		code              int // why exits 1 when the registration is lost
	}{
		{"gtest-lost-archive-bfd", "dropped", exitFindings},
		{"gtest-kept-link-library-bfd", "kept", exitOK},
	} {
		code, out, errs := runCLI(t, "why", "gtest_cases", "--in", tc.consumer, dir)
		if code != tc.code {
			t.Fatalf("why gtest_cases --in %s: exit %d, want %d: %s", tc.consumer, code, tc.code, errs)
		}
		if !strings.Contains(out, "=> "+tc.verdict) || !strings.Contains(out, "testing::internal::MakeAndRegisterTestInfo") {
			t.Errorf("why gtest_cases --in %s: want %s and the registry named:\n%s", tc.consumer, tc.verdict, out)
		}
	}
}

package main

import (
	"bytes"
	"context"
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
// the archive or the library, --no-as-needed), by bfd, gold, lld and mold,
// at -O0 and -O2. The truth is what each program lists at run time; etlink
// runs with no configuration and must find every lost unit as an error and
// nothing else at warning or above.

// registrationFrameworks are the project's frameworks and the unit file
// each builds: lib<name>_a.a(member) and lib<name>_so.so.
var registrationFrameworks = []string{"gtest", "benchmark", "protobuf", "embedded", "capi", "gflags", "absl", "llvm", "nothing"}

func TestRegistrationMatrix(t *testing.T) {
	testenv.NeedTools(t, "bash", "cmake", "ninja", "g++", "gcc", "ld.gold", "ld.lld", "mold", "protoc")
	testenv.NeedFiles(t, "/usr/bin/python3", "/usr/include/gtest/gtest.h", "/usr/include/benchmark/benchmark.h",
		"/usr/include/gflags/gflags.h", "/usr/include/absl/flags/flag.h", "/usr/include/pybind11/embed.h",
		"/usr/include/google/protobuf/message.h", "/usr/lib/llvm-14/include/llvm/Support/CommandLine.h")
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
			want := lostUnits(t, truth)
			got := registrationFindings(t, dir)
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
		if err != nil {
			t.Fatalf("%s: %v (the program's run is the oracle)", e.Name(), err)
		}
		truth[e.Name()] = strings.Fields(stdout.String())
	}
	if len(truth) == 0 {
		t.Fatal("no programs built")
	}
	return truth
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
				"kept-object-library", "kept-anchor-archive", "kept-no-as-needed", "kept-anchor-shared"} {
				prog := fmt.Sprintf("%s-%s-%s", fw, form, linker)
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

// registrationFindings runs etlink retention on the build directory with no
// configuration and returns every finding at warning or above.
func registrationFindings(t *testing.T, dir string) []string {
	t.Helper()
	code, out, errs := runCLI(t, "retention", dir, "--format", "json", "-q")
	if code == exitError {
		t.Fatalf("etlink retention exit %d: %s", code, errs)
	}
	var got []string
	for _, f := range decodeReport(t, out).Findings {
		if f.Severity < finding.Warning {
			continue
		}
		got = append(got, fmt.Sprintf("%s %s %s %s", f.Rule, f.Severity, f.Subject.Target, filepath.Base(f.Subject.File)))
	}
	sort.Strings(got)
	return dedupe(got)
}

// checkRegistrationWhy asks why for a lost and a kept unit: the chain names
// the registry reached, with no configuration.
func checkRegistrationWhy(t *testing.T, dir string) {
	t.Helper()
	for _, tc := range []struct{ consumer, verdict string }{
		{"gtest-lost-archive-bfd", "dropped"},
		{"gtest-kept-link-library-bfd", "kept"},
	} {
		code, out, errs := runCLI(t, "why", "gtest_cases", "--in", tc.consumer, dir)
		if code != 0 {
			t.Fatalf("why gtest_cases --in %s: exit %d: %s", tc.consumer, code, errs)
		}
		if !strings.Contains(out, "=> "+tc.verdict) || !strings.Contains(out, "testing::internal::MakeAndRegisterTestInfo") {
			t.Errorf("why gtest_cases --in %s: want %s and the registry named:\n%s", tc.consumer, tc.verdict, out)
		}
	}
}

package rules

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/linkline"
)

// ET101 finds registering shared libraries dropped under --as-needed.
var ET101 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET101",
		Name:     "dropped-registration-as-needed",
		Severity: finding.Error,
		Summary:  "a shared library whose static initializer registers something (a backend, kernels, tests, flags, a module) is dropped under --as-needed",
		Why: `A library registers when one of its static initializers hands the library's own
functions, vtables, typeinfos or objects to code outside it (GoogleTest's TEST, a
benchmark, a flag, protobuf's generated descriptors, a Python module appended to the
inittab, an ExecuTorch backend): etlink follows the initializer's machine code to find
it, with no configuration; etlink.toml [registration] patterns add registries.
With --as-needed (Debian's and Ubuntu's gcc pass it by default, so it is on every CMake
link line there without being written), the linker records a shared library in DT_NEEDED
only if something it links references a symbol the library defines. A backend that only
registers itself from a static initializer is referenced by nothing: it is left out of
DT_NEEDED, never loaded, its initializer never runs, and at run time the program says the
backend is not registered. bfd decides at the library's position on the line; gold, lld
and mold from all references. bfd also keeps a library that another kept shared library
references; gold, lld and mold do not, so a backend reached only through another library
is dropped by them and kept by bfd. An anchor given with -u / --undefined is no
object's reference: only mold keeps a library for it (every linker extracts an
archive member for it). A library left out of DT_NEEDED that another loaded library
lists in its own (ExecuTorch's executor_runner drops libexecutorch.so, its XNNPACK
backend loads it) is loaded all the same and its initializer runs: no finding, and why
names the library that loads it.`,
		Fix: `Keep the library whatever it is referenced by: wrap it in
-Wl,--push-state,--no-as-needed ... -Wl,--pop-state, which bfd, gold, lld and mold all
accept. In CMake: target_link_libraries(t PRIVATE "-Wl,--push-state,--no-as-needed" lib
"-Wl,--pop-state") (CMake 3.25 does not expand "LINKER:" in target_link_libraries), or a
$<LINK_LIBRARY:FEATURE,lib> feature defined with CMAKE_LINK_LIBRARY_USING_<FEATURE>. Or
have the consumer reference a symbol the library defines (an anchor function).`,
		Before: `target_link_libraries(_portable_lib PRIVATE executorch xnnpack_backend)
$ readelf -d _portable_lib.so | grep NEEDED      # no libxnnpack_backend.so
$ etlink retention build/
error ET101 libxnnpack_backend.so dropped from _portable_lib: as-needed, nothing references it`,
		After: `target_link_libraries(_portable_lib PRIVATE executorch
  "-Wl,--push-state,--no-as-needed" xnnpack_backend "-Wl,--pop-state")
$ etlink retention build/
no findings`,
	},
	Check: checkDroppedLibraries,
}

// ET102 finds registering archive members the link does not extract.
var ET102 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET102",
		Name:     "unextracted-registration-archive",
		Severity: finding.Error,
		Summary:  "an archive member whose static initializer registers something is not extracted",
		Why: `A linker takes a member out of a static archive only to define a symbol that is undefined
at that point. A member that only holds a registering static initializer defines nothing
anyone references, so it is never extracted: its initializer is not in the output and the
kernels, backend, tests or flags it registers are missing at run time, with no link
error. A member registers when its initializer hands the member's own functions,
vtables, typeinfos or objects to code outside it (found from its relocations, with no
configuration). The finding is an error for an archive the project builds, and a note
for a prebuilt library's member (libprotobuf.a's well-known types): such libraries also
offer an API, and a program uses a part of them. Where etlink cannot decide (GCC's LTO
IR, a machine it does not decode), a note says so.`,
		Fix: `Link the archive whole: $<LINK_LIBRARY:WHOLE_ARCHIVE,lib> (CMake 3.24 or later), or
-Wl,--whole-archive lib.a -Wl,--no-whole-archive; or build the registering code as an
OBJECT library or a shared library.`,
		Before: `target_link_libraries(runner PRIVATE portable_kernels)
$ etlink retention build/
error ET102 libportable_kernels.a(register_kernels.o) not extracted into runner`,
		After: `target_link_libraries(runner PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,portable_kernels>")
$ etlink retention build/
no findings`,
	},
	Check: checkUnextractedMembers,
}

// ET103 finds registrations that land in a copy of their registry the
// process does not read.
var ET103 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET103",
		Name:     "split-registry",
		Severity: finding.Error,
		Summary:  "a registry has two copies in one process and registrations land in the one the program does not read",
		Why: `A library that links its own copy of a registry (GoogleTest's, ExecuTorch's runtime
compiled in again) is one registry with the process's copy only while the loader binds
its registration calls to that copy: the program's exported copy interposes the
library's. When the static linker bound the library's calls to its own copy (hidden
visibility, -Wl,--exclude-libs, a version script's local:, -Bsymbolic, protected
visibility), its initializer registers into a second registry that the program never
reads: its tests never run, its backend is "not registered" although it was loaded.
etlink decides it per registry with the loader's rules: where each registering unit's
call lands, and which copy the output's lookups reach. Copies that are one registry only
by interposition are a note.`,
		Fix: `Link the registry once per process: the library uses the shared registry (the
runtime's shared library, or the program's exported copy) rather than a private static
copy. If it must carry a copy, do not hide it: drop --exclude-libs, -Bsymbolic and hidden
visibility for the registry's symbols, so that the loader binds its calls to the copy the
program reads.`,
		Before: `add_library(tests_more SHARED more_tests.cc)
target_link_libraries(tests_more PRIVATE GTest::gtest)
target_link_options(tests_more PRIVATE LINKER:--exclude-libs,ALL)
$ etlink retention build/
error ET103 testing::internal::MakeAndRegisterTestInfo: libtests_more.so registers 2 units into its own copy (bound at link time); runner reads runner's copy`,
		After: `add_library(tests_more SHARED more_tests.cc)
target_link_libraries(tests_more PRIVATE GTest::gtest)
$ etlink retention build/
note ET103 testing::internal::MakeAndRegisterTestInfo has 2 copies in runner's process, one registry: every registration lands in runner's copy, which it reads`,
	},
	Check: checkSplitRegistry,
}

// ET104 finds registering units whose initializer runs twice in one process.
var ET104 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET104",
		Name:     "double-registration",
		Severity: finding.Error,
		Summary:  "a registering translation unit is in two objects of one process and both register into the same registry",
		Why: `A unit linked into a program (whole-archived from libexecutorch.a) and also carried by a
shared library the program loads (libexecutorch.so's own copy) runs its static initializer
twice, and both runs register into the registry copy the loader binds them to. A registry
that rejects duplicates aborts before main: ExecuTorch's register_kernels ("already
registered"), gflags ("defined more than once"), protobuf's generated pool ("File already
exists in database"), LLVM's cl::opt ("registered more than once"); others list everything
twice. etlink recognises the unit by its initializer's name and what it registers, and
decides with the process model that both calls reach one copy. A stripped library's
initializers have no names (ExecuTorch's Release flags link with -s): when the session
read the link that made the library, its units are the ones that link puts in it. When every copy hands the
registry the same object (a global the loader binds to one definition), whether the
second registration is harmless depends on the registry: a note says so.`,
		Fix: `Link the registering code once per process: use the shared library and drop the
whole-archive of the archive (or the OBJECT library) that repeats it, or link the archive and
not the shared library. Do not whole-archive an archive whose registration a loaded library
already runs.`,
		Before: `target_link_libraries(executor_runner PRIVATE executorch
  "$<LINK_LIBRARY:WHOLE_ARCHIVE,executorch_static>")
$ ./executor_runner          # aborts: kernel already registered
$ etlink retention build/
error ET104 _GLOBAL__sub_I_register_prim_ops.cpp runs twice in executor_runner`,
		After: `target_link_libraries(executor_runner PRIVATE executorch)
$ etlink retention build/
no findings`,
	},
	Check: checkDoubleRegistrations,
}

func checkDoubleRegistrations(r *Rule, ctx *Context) []finding.Finding {
	var out []finding.Finding
	for _, f := range ctx.Retention {
		consumer := consumerName(f)
		for _, d := range f.Doubles {
			var where []string
			for _, c := range d.Copies {
				where = append(where, copyName(c))
			}
			subj := finding.Subject{File: d.Copies[0].Object.Path, Target: consumer, Symbol: d.Initializer}
			if c := d.Copies[0]; c.Object.Archive != "" {
				subj.File, subj.Member = c.Object.Archive, c.Object.Member
			}
			sev, what := r.Severity, fmt.Sprintf("%s runs twice in %s (%s): both register into %s's %s",
				d.Initializer, consumer, strings.Join(where, " and "), filepath.Base(d.Registry.Path), analyze.QualifiedName(demangle.Name(d.Call)))
			if d.Shared != "" {
				// The same object twice: the registry decides.
				sev = finding.Note
				what += fmt.Sprintf(", but both hand it the same %s (the loader binds every copy to one definition): etlink could not decide whether the registry takes it once (a registry that keys by the object) or rejects it (one that keys by name)", d.Shared)
			}
			fd := r.newFinding(sev, subj, what)
			for _, c := range d.Copies {
				if c.Input != nil {
					fd.Evidence = append(fd.Evidence, inputStep(*c.Input, f.Link))
					fd.Evidence = append(fd.Evidence, finding.Step{Text: fmt.Sprintf("%s is linked into %s", copyName(c), f.Link.Output), File: c.Object.Path})
					if fd.Location == nil {
						fd.Location = location(*c.Input, f.Link)
					}
				} else {
					fd.Evidence = append(fd.Evidence, finding.Step{Text: fmt.Sprintf("%s is loaded with %s (its DT_NEEDED closure) and carries the unit too", c.Object.Path, f.Link.Output), File: c.Object.Path})
					if b := c.Built; b != nil {
						st := finding.Step{Text: fmt.Sprintf("%s's initializers are unnamed (stripped): its own link puts %s in it (predicted from that link's line)", filepath.Base(c.Object.Path), copyName(*b)), File: c.Object.Path}
						if l := b.Input.Source; l.CMakeFile != "" {
							st.Text += fmt.Sprintf("; added by %s:%d %s", l.CMakeFile, l.CMakeLine, l.CMakeCommand)
						} else if l.File != "" {
							st.File, st.Line = l.File, l.Line
						}
						fd.Evidence = append(fd.Evidence, st)
					}
				}
				fd.Evidence = append(fd.Evidence, registrationSteps(c.Registrations[:1])...)
			}
			fd.Evidence = append(fd.Evidence, finding.Step{Text: fmt.Sprintf("every copy's call to %s binds to %s's definition: one registry, two registrations",
				demangle.Name(d.Call), filepath.Base(d.Registry.Path)), File: d.Registry.Path, Symbol: d.Call})
			fd.Fix = r.Fix
			out = append(out, fd)
		}
	}
	return out
}

func copyName(c analyze.Copy) string {
	if c.Object.Archive != "" {
		return fmt.Sprintf("%s(%s)", filepath.Base(c.Object.Archive), c.Object.Member)
	}
	return filepath.Base(c.Object.Path)
}

func consumerName(f *analyze.LinkFacts) string {
	if f.Link.Target != "" {
		return f.Link.Target
	}
	return filepath.Base(f.Link.Output)
}

// location is the CMakeLists.txt line that added an input when known, else
// the link command's file and line.
func location(in linkline.Input, l *linkline.Link) *finding.Location {
	switch {
	case in.Source.CMakeFile != "":
		return &finding.Location{File: in.Source.CMakeFile, Line: in.Source.CMakeLine}
	case in.Source.File != "":
		return &finding.Location{File: in.Source.File, Line: in.Source.Line}
	case l.Source.File != "":
		return &finding.Location{File: l.Source.File, Line: l.Source.Line}
	}
	return nil
}

func inputStep(in linkline.Input, l *linkline.Link) finding.Step {
	state := in.State.String()
	if in.State.AsNeeded && l.DefaultAsNeeded {
		state += " (the driver's default: " + l.DefaultAsNeededSource + ")"
	}
	st := finding.Step{Text: fmt.Sprintf("link of %s: argument %d `%s` is read with %s", l.Output, in.Index, in.Arg, state),
		File: in.Source.File, Line: in.Source.Line}
	if in.Source.CMakeFile != "" {
		st.Text += fmt.Sprintf("; added by %s:%d %s", in.Source.CMakeFile, in.Source.CMakeLine, in.Source.CMakeCommand)
	}
	return st
}

func registrationSteps(regs []analyze.Registration) []finding.Step {
	var out []finding.Step
	for _, r := range regs {
		text := fmt.Sprintf("%s: static initializer %s (%s, found by %s) calls %s", r.Object.Path, r.Initializer,
			r.Source, r.Method, demangle.Name(r.Call))
		switch {
		case r.Handed == "":
			text += ", a configured registration function"
		case r.HandedOn != "":
			text = fmt.Sprintf("%s: static initializer %s (%s, found by %s) runs %s on its object %s; the definition in %s",
				r.Object.Path, r.Initializer, r.Source, r.Method, demangle.Name(r.Call), demangle.Name(r.Handed), r.HandedOn)
		case r.Arg < 0:
			text = fmt.Sprintf("%s: static initializer %s (%s, found by %s) stores %s %s into %s, which it does not define",
				r.Object.Path, r.Initializer, r.Source, r.Method, r.Kind, demangle.Name(r.Handed), demangle.Name(r.Call))
		default:
			via := "as"
			if r.Indirect {
				via = "in what it passes as"
			}
			text += fmt.Sprintf(" (defined outside it) and hands it %s %s %s argument %d", r.Kind, demangle.Name(r.Handed), via, r.Arg+1)
		}
		out = append(out, finding.Step{Text: text, File: r.Object.Path, Symbol: r.Call})
	}
	return out
}

// registries says where a unit's registrations go, for a message: "2
// registrations into testing::internal::MakeAndRegisterTestInfo", and how
// many other registries.
func registries(regs []analyze.Registration) string {
	count := map[string]int{}
	var order []string
	for _, r := range regs {
		name := analyze.QualifiedName(demangle.Name(r.Call))
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
	}
	s := fmt.Sprintf("%d registration", count[order[0]])
	if count[order[0]] > 1 {
		s += "s"
	}
	s += " into " + order[0]
	if n := len(order) - 1; n == 1 {
		s += " and 1 other registry"
	} else if n > 1 {
		s += fmt.Sprintf(" and %d other registries", n)
	}
	return s
}

// lostUnit says what a lost unit loses: its first registry as the subject's
// symbol, the severity by intent, and the words of the message; for a unit
// etlink could not decide, a note with the reason.
func lostUnit(r *Rule, f *analyze.LinkFacts, in linkline.Input, unit *elfobj.Object, regs []analyze.Registration, undecided string) (finding.Subject, finding.Severity, string) {
	if len(regs) == 0 {
		return finding.Subject{Symbol: "undecided"}, finding.Note, "may register from a static initializer (etlink could not decide: " + undecided + ")"
	}
	return finding.Subject{Symbol: regs[0].Call, Demangled: demangle.Name(regs[0].Call)}, lostSeverity(r, f, in, unit, regs),
		"registers from a static initializer (" + registries(regs) + ")"
}

// lostSeverity grades a lost unit by intent: the rule's severity for a unit
// the project builds (f.ProjectBuilt), one nothing in any link could
// reference (it defines no global symbol: it exists only to register), or
// one whose registry another library of the output's process defines (an
// installed ExecuTorch backend registering into the libexecutorch.so the
// program uses: the program asks that registry and misses it); a note for a
// unit of a prebuilt library that also offers an API, which most programs
// use a part of, registering into its own or an unused registry
// (libprotobuf.a's well-known types, a logging library left unused).
func lostSeverity(r *Rule, f *analyze.LinkFacts, in linkline.Input, unit *elfobj.Object, regs []analyze.Registration) finding.Severity {
	if f.ProjectBuilt(in) {
		return r.Severity
	}
	if unit.Type == elf.ET_REL && !definesAny(unit) {
		return r.Severity
	}
	if registryElsewhere(f, unit, regs) {
		return r.Severity
	}
	return finding.Note
}

// registryElsewhere reports whether a registry the unit calls is defined
// by a library of the output's process other than the unit's own file.
func registryElsewhere(f *analyze.LinkFacts, unit *elfobj.Object, regs []analyze.Registration) bool {
	own := unit.Path
	if unit.Archive != "" {
		own = unit.Archive
	}
	for _, q := range f.LoadSet {
		if q == unit || q == f.Output || q.Path == own || q.Real != "" && q.Real == unit.Real {
			continue
		}
		for _, reg := range regs {
			for i := range q.Symbols {
				if s := &q.Symbols[i]; s.Name == reg.Call && s.Exported() {
					return true
				}
			}
		}
	}
	return false
}

// definesAny reports whether an object defines a global symbol another
// object could reference.
func definesAny(o *elfobj.Object) bool {
	for i := range o.Symbols {
		if s := &o.Symbols[i]; s.Defined() && s.Binding() == elf.STB_GLOBAL {
			return true
		}
	}
	return false
}

func checkDroppedLibraries(r *Rule, ctx *Context) []finding.Finding {
	var out []finding.Finding
	for _, f := range ctx.Retention {
		for _, lf := range f.Libraries {
			if lf.Observed && lf.Kept && !lf.Predicted {
				out = append(out, disagreement(r, f, lf.Input, lf.Object.Path, "", "dropped", "lists it in DT_NEEDED"))
			}
			// Dropped where the model saw no --as-needed: the output is
			// the fact (a driver's default etlink did not ask).
			if lf.Kept || lf.LoadedBy != nil || !lf.Input.State.AsNeeded && !lf.Observed {
				continue
			}
			consumer := consumerName(f)
			how, why := "predicted", "--as-needed and nothing references it"
			if lf.Observed {
				how = "observed"
			}
			if !lf.Input.State.AsNeeded {
				why = "nothing references it, and the output shows --as-needed in force (the driver's default, which etlink's model took for off)"
			}
			subj, sev, what := lostUnit(r, f, lf.Input, lf.Object, lf.Registrations, lf.Undecided)
			subj.File, subj.Target = lf.Object.Path, consumer
			fd := r.newFinding(sev, subj, fmt.Sprintf("%s %s but %s drops it from %s (%s): %s",
				filepath.Base(lf.Object.Path), what, f.Linker, consumer, how, why))
			fd.Location = location(lf.Input, f.Link)
			c := libraryChain(f, lf, ctx.Config)
			fd.Evidence, fd.Fix = c.Steps, c.Fix
			out = append(out, fd)
		}
	}
	return out
}

// disagreement is a note that the output contradicts what etlink's model
// of the linker predicted for an input kept or extracted after all: no
// registration is lost, but a prediction for an unbuilt tree would be wrong.
func disagreement(r *Rule, f *analyze.LinkFacts, in linkline.Input, file, member, predicted, observed string) finding.Finding {
	consumer := consumerName(f)
	name := filepath.Base(file)
	if member != "" {
		name += "(" + member + ")"
	}
	subj := finding.Subject{File: file, Member: member, Target: consumer, Symbol: "model-disagreement"}
	fd := r.newFinding(finding.Note, subj, fmt.Sprintf("etlink's model of %s predicted %s %s from %s, but the output %s: observed wins",
		f.Linker, name, predicted, consumer, observed))
	fd.Location = location(in, f.Link)
	fd.Evidence = []finding.Step{inputStep(in, f.Link), modelStep(f)}
	return fd
}

// outputStep states what the output's DT_NEEDED says, or that the fate is
// predicted.
func outputStep(f *analyze.LinkFacts, lf analyze.LibraryFate) finding.Step {
	name := filepath.Base(lf.Object.Path)
	if lf.Object.Soname != "" {
		name = lf.Object.Soname
	}
	if f.Output == nil {
		verb := "leaves " + name + " out of"
		if lf.Kept {
			verb = "records " + name + " in"
		}
		return finding.Step{Text: fmt.Sprintf("predicted: %s %s DT_NEEDED (output %s not built)", f.Linker, verb, f.Link.Output)}
	}
	verb := "lacks"
	if lf.Kept {
		verb = "lists"
	}
	return finding.Step{Text: fmt.Sprintf("DT_NEEDED of %s %s %s: [%s]", f.Output.Path, verb, name, strings.Join(f.Output.Needed, " ")),
		File: f.Output.Path}
}

func asNeededFix(cfg *Config, f *analyze.LinkFacts, lf analyze.LibraryFate) string {
	if h := cfg.fix("as-needed", consumerName(f), lf.Object.Path); h != "" {
		return h
	}
	on, off := "--push-state,--no-as-needed", "--pop-state"
	if lf.Input.Source.CMakeFile != "" || f.Link.Target != "" {
		return fmt.Sprintf(`target_link_libraries(%s PRIVATE "-Wl,%s" %s "-Wl,%s")`, consumerName(f), on, libTarget(lf), off)
	}
	return fmt.Sprintf("-Wl,%s %s -Wl,%s", on, lf.Input.Arg, off)
}

// libTarget names a library input in CMake terms: the target the File API
// says builds it, else the file name without lib prefix and .so suffix.
func libTarget(lf analyze.LibraryFate) string {
	if lf.Input.Target != "" {
		return lf.Input.Target
	}
	base := filepath.Base(lf.Object.Path)
	base = strings.TrimPrefix(base, "lib")
	if i := strings.Index(base, ".so"); i >= 0 {
		base = base[:i]
	}
	return base
}

func checkUnextractedMembers(r *Rule, ctx *Context) []finding.Finding {
	var out []finding.Finding
	for _, f := range ctx.Retention {
		for _, mf := range f.Members {
			if mf.Observed && mf.Extracted && !mf.Predicted {
				out = append(out, disagreement(r, f, mf.Input, mf.Object.Archive, mf.Object.Member, "not extracted", "holds it"))
			}
			if mf.Extracted || mf.Input.State.WholeArchive || mf.CarriedBy != nil {
				continue // a loaded library's copy of the unit registers: whole-archiving it would register twice
			}
			consumer := consumerName(f)
			how := "predicted from the archive's symbols and the undefined set"
			switch {
			case mf.Observed && f.Map != nil:
				how = "the map lists it nowhere"
			case mf.Observed:
				how = "the output's initializers do not include it"
			case f.Output != nil:
				how = "predicted from the archive's symbols: the output is stripped and no map was found"
			}
			subj, sev, what := lostUnit(r, f, mf.Input, mf.Object, mf.Registrations, mf.Undecided)
			subj.File, subj.Member, subj.Target = mf.Object.Archive, mf.Object.Member, consumer
			fd := r.newFinding(sev, subj, fmt.Sprintf("%s(%s) %s but is not extracted into %s (%s)",
				filepath.Base(mf.Object.Archive), mf.Object.Member, what, consumer, how))
			fd.Location = location(mf.Input, f.Link)
			c := memberChain(f, mf, ctx.Config)
			fd.Evidence, fd.Fix = c.Steps, c.Fix
			out = append(out, fd)
		}
	}
	return perArchive(out)
}

// perArchive folds the notes on a prebuilt archive's members left out of
// one link (libLLVMCore.a's cl::opt units, libprotobuf.a's well-known
// types) into one note per archive and link that counts them: a program
// uses a part of such a library, and each member left out is no bug.
func perArchive(fs []finding.Finding) []finding.Finding {
	type key struct{ archive, target string }
	groups := map[key][]int{}
	for i, fd := range fs {
		if fd.Severity == finding.Note && fd.Subject.Member != "" && fd.Subject.Symbol != "undecided" {
			k := key{fd.Subject.File, fd.Subject.Target}
			groups[k] = append(groups[k], i)
		}
	}
	var out []finding.Finding
	for i, fd := range fs {
		k := key{fd.Subject.File, fd.Subject.Target}
		g := groups[k]
		switch {
		case len(g) < 2 || fd.Severity != finding.Note || fd.Subject.Member == "" || fd.Subject.Symbol == "undecided":
			out = append(out, fd)
		case g[0] == i:
			var members []string
			for _, j := range g {
				members = append(members, fs[j].Subject.Member)
			}
			sum := fd
			sum.Subject.Member, sum.Subject.Symbol, sum.Subject.Demangled = "", "prebuilt-members", ""
			sum.Message = fmt.Sprintf("%d members of %s register from a static initializer and are not extracted into %s: a prebuilt library's units, of which a program uses a part (%s)",
				len(g), filepath.Base(k.archive), k.target, strings.Join(members, ", "))
			sum.Evidence = append(slices.Clone(fd.Evidence), finding.Step{Text: fmt.Sprintf("the other %d members are left out the same way (etlink why MEMBER for each)", len(g)-1)})
			out = append(out, sum)
		}
	}
	return out
}

func wholeArchiveFix(cfg *Config, f *analyze.LinkFacts, mf analyze.MemberFate) string {
	if h := cfg.fix("whole-archive", consumerName(f), mf.Object.Archive); h != "" {
		return h
	}
	lib := mf.Input.Target
	if lib == "" {
		lib = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(mf.Object.Archive), "lib"), ".a")
	}
	if mf.Input.Source.CMakeFile != "" || f.Link.Target != "" {
		return fmt.Sprintf(`target_link_libraries(%s PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,%s>")  # CMake >= 3.24`, consumerName(f), lib)
	}
	return fmt.Sprintf("-Wl,--whole-archive %s -Wl,--no-whole-archive", mf.Input.Arg)
}

func checkSplitRegistry(r *Rule, ctx *Context) []finding.Finding {
	var out []finding.Finding
	for _, f := range ctx.Retention {
		consumer := consumerName(f)
		for _, sp := range f.Splits {
			name := analyze.QualifiedName(demangle.Name(sp.Symbol))
			subj := finding.Subject{File: sp.Copies[0].Object.Path, Target: consumer, Symbol: sp.Symbol, Demangled: demangle.Name(sp.Symbol)}
			var apart []string
			for _, c := range sp.Copies {
				if len(c.Lands) > 0 && c.Object != sp.Reader {
					subj.File = c.Object.Path
					own := filepath.Base(c.Object.Path) + "'s"
					if c.Lands[0].Copy.Object == c.Object {
						own = "its own"
					}
					apart = append(apart, fmt.Sprintf("%s into %s copy (%s)", registrars(c), own, c.Lands[0].Bound))
				}
			}
			sev, what := r.Severity, ""
			switch {
			case !sp.Apart:
				sev = finding.Note
				what = fmt.Sprintf("%s has %d copies in %s's process, one registry: every registration lands in %s's copy, which it reads (the loader binds them there)",
					name, len(sp.Copies), consumer, pathOr(sp.Reader))
			case sp.Reader == nil:
				what = fmt.Sprintf("%s has %d copies in %s's process and registrations land in more than one: %s", name, len(sp.Copies), consumer, strings.Join(apart, "; "))
			default:
				what = fmt.Sprintf("%s has %d copies in %s's process: %s; %s reads %s's copy", name, len(sp.Copies), consumer, strings.Join(apart, "; "), consumer, filepath.Base(sp.Reader.Path))
			}
			fd := r.newFinding(sev, subj, what)
			for _, c := range sp.Copies {
				how := "not exported: only its own calls reach it"
				if c.Exported {
					how = "exported"
				}
				fd.Evidence = append(fd.Evidence, finding.Step{Text: fmt.Sprintf("%s defines a copy of %s (%s)", c.Object.Path, name, how), File: c.Object.Path, Symbol: sp.Symbol})
				for _, l := range c.Lands {
					step := registryStep(l.Copy.Object, sp.Symbol, c.Object)
					step.Text += " (" + l.Bound + ")"
					fd.Evidence = append(fd.Evidence, step)
				}
			}
			if sp.Reader != nil {
				fd.Evidence = append(fd.Evidence, finding.Step{Text: fmt.Sprintf("%s's lookups of %s reach %s's copy", consumer, name, filepath.Base(sp.Reader.Path)), File: sp.Reader.Path})
			}
			fd.Fix = r.Fix
			out = append(out, fd)
		}
	}
	return out
}

// registrars says who registers into a copy: "libx.so registers 2 units".
func registrars(c analyze.RegistryCopy) string {
	var who []string
	for _, l := range c.Lands {
		if n := filepath.Base(l.Copy.Object.Path); !slices.Contains(who, n) {
			who = append(who, n)
		}
	}
	units := "1 unit"
	if len(c.Lands) > 1 {
		units = fmt.Sprintf("%d units", len(c.Lands))
	}
	return fmt.Sprintf("%s registers %s", strings.Join(who, ", "), units)
}

func pathOr(o *elfobj.Object) string {
	if o == nil {
		return "no"
	}
	return filepath.Base(o.Path)
}

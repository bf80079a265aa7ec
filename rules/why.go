package rules

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/linkline"
)

// Chain is `etlink why`'s answer for one library or archive member in one
// consumer: the steps from the link line to the registry, and a verdict.
type Chain struct {
	Consumer string `json:"consumer"`
	Subject  string `json:"subject"`
	Kind     string `json:"kind"` // "shared library", "archive member", "input"
	Kept     bool   `json:"kept"`
	Observed bool   `json:"observed"`
	// Lost is set when what the unit registers is missing at run time.
	Lost bool `json:"lost"`
	// Twice is set when the unit also registers from another copy (ET104).
	Twice bool `json:"twice,omitempty"`
	// NotBuilt is set when the input is one the project builds and its
	// file does not exist yet: nothing is known of what it registers.
	NotBuilt bool           `json:"not_built,omitempty"`
	Steps    []finding.Step `json:"steps"`
	Verdict  string         `json:"verdict"`
	Fix      string         `json:"fix,omitempty"`
}

// Why explains what happened to every library, archive member or
// registration matching name (a case-insensitive substring of the file,
// SONAME, member, link argument, initializer or registration function),
// in the consumers matching in ("" for all).
func Why(facts []*analyze.LinkFacts, name, in string, cfg *Config) []Chain {
	var out []Chain
	for _, f := range facts {
		consumer := consumerName(f)
		if in != "" && !contains(consumer, in) && !contains(filepath.Base(f.Link.Output), in) {
			continue
		}
		out = append(out, staleSteps(whyIn(f, name, cfg), f)...)
	}
	return out
}

// whyIn is Why for the link of one consumer.
func whyIn(f *analyze.LinkFacts, name string, cfg *Config) []Chain {
	var out []Chain
	explained := map[int]bool{}
	for _, lf := range f.Libraries {
		if matchesLib(lf, name) {
			out = append(out, libraryChain(f, lf, cfg))
			for _, x := range f.Link.Inputs {
				if x.Index == lf.Input.Index || x.Kind == linkline.KindShared && namesFile(f, x, lf.Object.Path) {
					explained[x.Index] = true // one file, however spelled: one answer
				}
			}
		}
	}
	for _, mf := range f.Members {
		if matchesMember(mf, name) {
			out = append(out, memberChain(f, mf, cfg))
		}
	}
	for _, x := range f.Link.Inputs {
		if !explained[x.Index] && (!x.Implicit && contains(x.Arg, name) || contains(filepath.Base(x.Path), name)) && !memberOf(f, x) {
			out = append(out, plainChain(f, x))
		}
	}
	return out
}

// staleSteps add to the chains of a link read from a stale File API reply
// (ET004) that the CMakeLists.txt lines they name are unverified.
func staleSteps(chains []Chain, f *analyze.LinkFacts) []Chain {
	if f.Stale == nil {
		return chains
	}
	for i := range chains {
		chains[i].Steps = append(chains[i].Steps, finding.Step{
			Text: fmt.Sprintf("the CMakeLists.txt lines above are from a stale configure: %s (ET004); re-run cmake", f.Stale.Summary()),
			File: f.Stale.Changed})
	}
	return chains
}

func contains(s, sub string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(sub)) }

func matchesRegs(regs []analyze.Registration, name string) bool {
	for _, r := range regs {
		if contains(r.Initializer, name) || contains(demangle.Name(r.Call), name) {
			return true
		}
	}
	return false
}

func matchesLib(lf analyze.LibraryFate, name string) bool {
	return contains(filepath.Base(lf.Object.Path), name) || contains(lf.Object.Soname, name) ||
		contains(lf.Input.Arg, name) || matchesRegs(lf.Registrations, name)
}

func matchesMember(mf analyze.MemberFate, name string) bool {
	return contains(filepath.Base(mf.Object.Archive), name) || contains(mf.Object.Member, name) ||
		contains(mf.Input.Arg, name) || matchesRegs(mf.Registrations, name)
}

// memberOf reports whether input x is an archive some registering member
// of which was explained already.
func memberOf(f *analyze.LinkFacts, x linkline.Input) bool {
	for _, mf := range f.Members {
		if mf.Input.Index == x.Index || x.Kind == linkline.KindArchive && namesFile(f, x, mf.Object.Archive) {
			return true
		}
	}
	return false
}

// namesFile reports whether the input x names the file path, however it is
// spelled (an absolute path and a build-relative one).
func namesFile(f *analyze.LinkFacts, x linkline.Input, path string) bool {
	p := x.Path
	if p == "" {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.Link.Dir, p)
	}
	a, errA := filepath.EvalSymlinks(p)
	b, errB := filepath.EvalSymlinks(path)
	return errA == nil && errB == nil && a == b
}

// doubleSteps say that o's registering unit runs in another object of the
// process too (ET104).
func doubleSteps(f *analyze.LinkFacts, o *elfobj.Object) []finding.Step {
	var steps []finding.Step
	for _, d := range f.Doubles {
		var others []string
		mine := false
		for _, c := range d.Copies {
			if c.Object == o {
				mine = true
			} else {
				others = append(others, copyName(c))
			}
		}
		if mine {
			steps = append(steps, finding.Step{Text: fmt.Sprintf("%s runs in %s too, and both register into %s's %s: registered twice (ET104)",
				d.Initializer, strings.Join(others, " and "), filepath.Base(d.Registry.Path), analyze.QualifiedName(demangle.Name(d.Call))), Symbol: d.Initializer})
		}
	}
	return steps
}

// twiceVerdict adds to a chain's verdict that its unit registers twice.
func twiceVerdict(c Chain, twice []finding.Step) Chain {
	if len(twice) > 0 {
		c.Twice = true
		c.Verdict += ", and again from another copy: registered twice (ET104)"
	}
	return c
}

// againSteps name the other arguments of the link that name the same file
// as argument idx (an archive, or a library): one file, one fate.
func againSteps(f *analyze.LinkFacts, idx int, kind linkline.Kind, path string) []finding.Step {
	what := "archive again: one file, each member extracted at most once"
	if kind == linkline.KindShared {
		what = "library again: one file, recorded in DT_NEEDED at most once"
	}
	var steps []finding.Step
	for _, x := range f.Link.Inputs {
		if x.Index != idx && x.Kind == kind && namesFile(f, x, path) {
			steps = append(steps, finding.Step{Text: fmt.Sprintf("argument %d `%s` names the same %s", x.Index, x.Arg, what)})
		}
	}
	return steps
}

func libraryChain(f *analyze.LinkFacts, lf analyze.LibraryFate, cfg *Config) Chain {
	c := Chain{Consumer: consumerName(f), Subject: lf.Object.Path, Kind: "shared library", Kept: lf.Kept, Observed: lf.Observed}
	c.Steps = append(c.Steps, linkStep(f), inputStep(lf.Input, f.Link))
	lib := filepath.Base(lf.Object.Path)
	switch {
	case !lf.Input.State.AsNeeded:
		c.Steps = append(c.Steps, finding.Step{Text: "--as-needed is not in force there: the linker records it in DT_NEEDED whatever references it"})
	case len(lf.RefBy) > 0:
		r := lf.RefBy[0]
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s references %s, which %s defines: that keeps it", r.File, demangle.Name(r.Symbol), lib), File: r.File, Symbol: r.Symbol})
	default:
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("nothing the link loads references %s (%d exported symbols)", lib, lf.Object.Exports())})
	}
	c.Steps = append(c.Steps, againSteps(f, lf.Input.Index, linkline.KindShared, lf.Object.Path)...)
	c.Steps = append(c.Steps, mapStepLib(f, lf))
	c.Steps = append(c.Steps, outputStep(f, lf))
	if lf.Observed && lf.Predicted != lf.Kept {
		c.Steps = append(c.Steps, modelStep(f))
	}
	c.Steps = append(c.Steps, registrationSteps(lf.Registrations)...)
	c.Steps = append(c.Steps, undecidedSteps(lf.Undecided)...)
	twice := doubleSteps(f, lf.Object)
	c.Steps = append(c.Steps, twice...)
	switch {
	case lf.Kept && len(lf.Registrations) > 0:
		c.Steps = append(c.Steps, registryStep(lf.Object, lf.Registrations[0].Call, lf.Into))
		c.Verdict = fmt.Sprintf("kept: %s is loaded with %s and its initializer registers", lib, c.Consumer)
	case lf.LoadedBy != nil:
		by := filepath.Base(lf.LoadedBy.Path)
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s lists it in its own DT_NEEDED, and %s loads %s", by, c.Consumer, by), File: lf.LoadedBy.Path})
		c.Kept = true
		c.Verdict = fmt.Sprintf("loaded: %s is not in %s's DT_NEEDED, but %s loads it, so its initializer runs", lib, c.Consumer, by)
	default:
		c.Lost = true
		c.Verdict = fmt.Sprintf("dropped: %s is not loaded with %s, its initializer never runs, and what it registers is missing at run time", lib, c.Consumer)
		if lf.Input.State.AsNeeded {
			c.Fix = asNeededFix(cfg, f, lf)
		}
	}
	return twiceVerdict(c, twice)
}

func memberChain(f *analyze.LinkFacts, mf analyze.MemberFate, cfg *Config) Chain {
	name := fmt.Sprintf("%s(%s)", filepath.Base(mf.Object.Archive), mf.Object.Member)
	c := Chain{Consumer: consumerName(f), Subject: name, Kind: "archive member", Kept: mf.Extracted, Observed: mf.Observed}
	c.Steps = append(c.Steps, linkStep(f), inputStep(mf.Input, f.Link))
	switch {
	case mf.Input.State.WholeArchive:
		c.Steps = append(c.Steps, finding.Step{Text: "--whole-archive is in force there: every member is extracted"})
	case len(mf.RefBy) > 0:
		r := mf.RefBy[0]
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s references %s, which %s defines: that extracts it", r.File, demangle.Name(r.Symbol), mf.Object.Member), File: r.File, Symbol: r.Symbol})
	default:
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s defines no symbol that anything the link loads leaves undefined", mf.Object.Member)})
	}
	c.Steps = append(c.Steps, againSteps(f, mf.Input.Index, linkline.KindArchive, mf.Object.Archive)...)
	if mf.Observed && mf.Predicted != mf.Extracted {
		c.Steps = append(c.Steps, modelStep(f))
	}
	c.Steps = append(c.Steps, memberOutputStep(f, mf))
	c.Steps = append(c.Steps, registrationSteps(mf.Registrations)...)
	c.Steps = append(c.Steps, undecidedSteps(mf.Undecided)...)
	twice := doubleSteps(f, mf.Object)
	c.Steps = append(c.Steps, twice...)
	switch {
	case mf.Extracted && len(mf.Registrations) > 0:
		c.Steps = append(c.Steps, registryStep(mf.Object, mf.Registrations[0].Call, mf.Into))
		c.Verdict = fmt.Sprintf("kept: %s is linked into %s and its initializer registers", name, c.Consumer)
	case mf.CarriedBy != nil && mf.CarriedGuard != "":
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("its registration is the guarded initialization of %s, and %s defines that guard too (one COMDAT group): the process runs it from there",
			demangle.Name(mf.CarriedGuard), mf.CarriedBy.Path), File: mf.CarriedBy.Path, Symbol: mf.CarriedGuard})
		c.Kept = true
		c.Verdict = fmt.Sprintf("registered: %s is not linked into %s, but %s carries the same guarded registration", name, c.Consumer, filepath.Base(mf.CarriedBy.Path))
	case mf.CarriedBy != nil:
		c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s, which %s loads, carries the same registering unit", mf.CarriedBy.Path, c.Consumer), File: mf.CarriedBy.Path})
		c.Kept = true
		c.Verdict = fmt.Sprintf("registered: %s is not linked into %s, but %s, which it loads, runs the same registrations (whole-archiving it would run them twice)", name, c.Consumer, filepath.Base(mf.CarriedBy.Path))
	default:
		c.Lost = true
		c.Verdict = fmt.Sprintf("dropped: %s is not linked into %s, its initializer is not in the output, and what it registers is missing at run time", name, c.Consumer)
		c.Fix = wholeArchiveFix(cfg, f, mf)
	}
	return twiceVerdict(c, twice)
}

// undecidedSteps says why etlink could not decide whether a unit registers.
func undecidedSteps(why string) []finding.Step {
	if why == "" {
		return nil
	}
	return []finding.Step{{Text: "etlink found no registration but could not decide: " + why}}
}

// plainChain answers for an input whose initializers register nothing:
// what the link did with it (a shared library is kept only when DT_NEEDED
// lists it), and that its fate loses no registration.
func plainChain(f *analyze.LinkFacts, x linkline.Input) Chain {
	c := Chain{Consumer: consumerName(f), Subject: x.Arg, Kind: "input"}
	if x.Implicit {
		c.Subject = x.Path
	}
	c.Steps = append(c.Steps, linkStep(f), inputStep(x, f.Link))
	if f.NotBuilt(x) {
		return notBuiltChain(c, f, x)
	}
	fate := ""
	switch x.Kind {
	case linkline.KindShared:
		c.Kind = "shared library"
		kept, observed, known := f.LibraryKept(x)
		c.Kept, c.Observed = kept, observed
		switch {
		case !known:
			fate = "etlink could not read it; "
		case observed && kept:
			fate = fmt.Sprintf("kept: %s's DT_NEEDED lists it; ", f.Output.Path)
		case observed:
			fate = fmt.Sprintf("dropped: %s's DT_NEEDED does not list it; ", f.Output.Path)
		case kept:
			fate = "kept (predicted: the output is not built); "
		default:
			fate = "dropped (predicted: the output is not built); "
		}
	case linkline.KindObject:
		c.Kind, c.Kept = "object", true
		fate = "kept: an object on the line is always linked; "
	case linkline.KindArchive:
		c.Kind = "archive"
		fate = "its members are extracted as the link needs them; "
	}
	c.Verdict = fate + "etlink found no registration in its static initializers, so its fate loses none; " +
		"if it registers in a way etlink does not see, add the registry to etlink.toml [registration] patterns"
	return c
}

// notBuiltChain answers for an input the project has not built yet: its
// static initializers cannot be read, so neither what it registers nor
// whether the link keeps it is known.
func notBuiltChain(c Chain, f *analyze.LinkFacts, x linkline.Input) Chain {
	c.NotBuilt = true
	switch x.Kind {
	case linkline.KindShared:
		c.Kind = "shared library"
	case linkline.KindObject:
		c.Kind = "object"
	case linkline.KindArchive:
		c.Kind = "archive"
	}
	file := x.Path
	if file == "" {
		file = x.Arg
	}
	by := ""
	if x.Target != "" {
		by = " (target " + x.Target + ")"
	}
	c.Steps = append(c.Steps, finding.Step{Text: fmt.Sprintf("%s%s does not exist yet: the build directory is configured but the project has not built it", file, by)})
	c.Verdict = "not built yet: what its static initializers register, and so what its fate would lose, cannot be read; build the tree, then ask again"
	return c
}

func linkStep(f *analyze.LinkFacts) finding.Step {
	where := f.Link.Source.String()
	if s := f.Link.Source; s.CMakeFile != "" {
		where = fmt.Sprintf("%s:%d %s", s.CMakeFile, s.CMakeLine, s.CMakeCommand)
	}
	return finding.Step{Text: fmt.Sprintf("%s is linked by %s (%s) with %s", f.Link.Output, filepath.Base(f.Link.Driver), where, f.Linker),
		File: f.Link.Source.File, Line: f.Link.Source.Line}
}

func mapStepLib(f *analyze.LinkFacts, lf analyze.LibraryFate) finding.Step {
	if f.Map == nil {
		return finding.Step{Text: "no map for this link"}
	}
	if lf.MapLine > 0 && len(lf.RefBy) > 0 {
		return finding.Step{Text: fmt.Sprintf("map %s (%s) line %d: as-needed library included for %s from %s", f.Map.Path, f.Map.Format, lf.MapLine,
			demangle.Name(lf.RefBy[0].Symbol), lf.RefBy[0].File), File: f.Map.Path, Line: lf.MapLine}
	}
	return finding.Step{Text: fmt.Sprintf("map %s (%s) names no reference that kept it (maps list the as-needed libraries kept, never one dropped)", f.Map.Path, f.Map.Format), File: f.Map.Path}
}

// registryStep says which copy of a registration function the calls of
// from (a library, or an archive member's object) reach: the registry it
// fills. ET103 and why say it the same way.
func registryStep(from *elfobj.Object, call string, into *elfobj.Object) finding.Step {
	who := filepath.Base(from.Path) // lib.a(member.o) for a member
	if into == nil {
		return finding.Step{Text: fmt.Sprintf("%s's call to %s binds to no definition in the output's load set (output not built, or unresolved)", who, demangle.Name(call))}
	}
	return finding.Step{Text: fmt.Sprintf("%s's call to %s binds to %s's copy: the registry it fills", who, demangle.Name(call), filepath.Base(into.Path)), File: into.Path}
}

// memberOutputStep says how the member's fate is known: the map's line,
// the output's initializers, or a prediction.
func memberOutputStep(f *analyze.LinkFacts, mf analyze.MemberFate) finding.Step {
	switch {
	case f.Map != nil && mf.Extracted:
		return finding.Step{Text: fmt.Sprintf("map %s (%s) loads it", f.Map.Path, f.Map.Format), File: f.Map.Path, Line: mf.MapLine}
	case f.Map != nil:
		return finding.Step{Text: fmt.Sprintf("map %s (%s) does not load it", f.Map.Path, f.Map.Format), File: f.Map.Path}
	case mf.Observed && mf.Extracted:
		return finding.Step{Text: fmt.Sprintf("no map for this link; %s's initializers include %s's", f.Output.Path, mf.Object.Member), File: f.Output.Path}
	case mf.Observed:
		return finding.Step{Text: fmt.Sprintf("no map for this link; %s's initializers do not include %s's", f.Output.Path, mf.Object.Member), File: f.Output.Path}
	case f.Output != nil:
		return finding.Step{Text: strippedText(f) + ": extraction predicted from the members' symbols", File: f.Output.Path}
	}
	return finding.Step{Text: "no map for this link and no output: extraction predicted from the members' symbols"}
}

// strippedText says what an output without named initializers (stripped:
// -s, a Release link) still shows.
func strippedText(f *analyze.LinkFacts) string {
	return fmt.Sprintf("no map for this link, and %s names none of its %d static initializers (stripped); observed are its DT_NEEDED [%s] and dynamic symbols",
		f.Output.Path, len(f.Output.Initializers), strings.Join(f.Output.Needed, " "))
}

// modelStep owns up to a prediction the output contradicts.
func modelStep(f *analyze.LinkFacts) finding.Step {
	return finding.Step{Text: fmt.Sprintf("etlink's model of %s predicted the opposite from the inputs alone; the output above is what counts (please report this link)", f.Linker)}
}

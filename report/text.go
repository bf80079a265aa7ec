package report

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/etlink/etlink/finding"
)

// DefaultWidth is the width text is fitted to when the output is not a
// terminal.
const DefaultWidth = 120

// Text writes the report for a person to act on in ten seconds: rules in
// order of their worst finding, and in each rule the findings grouped by
// the object they are about and what it collides with (component, peer),
// one line a group: severity, the first finding's message, how many more
// and a few of their names. The fix is said once per group (not repeated
// within a rule). Notes are counted, not listed, unless opt.Verbose, which
// lists every finding of every group with its evidence. A finding with a
// source line starts its line with path:line:, as compilers print them.
// Lines fit opt.Width (DefaultWidth when 0): messages are wrapped at
// blanks, never a word cut (a fix is copied as printed); long symbol names
// are elided in the middle, never two alike (shortNames). The platform
// verdict comes last, one line each unless opt.Verbose.
func Text(w io.Writer, r *finding.Report, opt Options) error {
	t, err := newTextWriter(w, r, opt)
	if err != nil {
		return err
	}
	if len(r.Findings) == 0 {
		if err := noFindings(w, r.Inputs); err != nil {
			return err
		}
	}
	for _, rule := range ruleGroups(r.Findings) {
		t.rule(rule)
	}
	// The platform verdict after the findings: it is what a release gate
	// reads last, and a tree of packages needs hundreds of libraries.
	for _, p := range r.Platforms {
		t.platform(p)
	}
	if len(r.Findings) == 0 {
		return t.err
	}
	if len(r.Platforms) > 0 {
		t.line(0, 0, "")
	}
	s := finding.Summarize(r.Findings)
	line := fmt.Sprintf("%s: %s, %s, %s", count(len(r.Findings), "finding"),
		count(s["error"], "error"), count(s["warning"], "warning"), count(s["note"], "note"))
	if s["note"] > 0 && !opt.Verbose {
		line += " (-v lists the notes)"
	}
	t.line(0, 0, line)
	return t.err
}

// textWriter renders one report; the first write error sticks.
type textWriter struct {
	w     io.Writer
	opt   Options
	width int
	loc   locator
	roots []string // the inputs read, absolute: paths outside loc are named under them
	wheel bool     // one wheel was read: its entries are named without it
	// names is how a long symbol name is shown (shortNames); -v shows them whole.
	names map[string]string
	err   error
}

func newTextWriter(w io.Writer, r *finding.Report, opt Options) (*textWriter, error) {
	base := opt.BaseDir
	if base == "" {
		base = "."
	}
	loc, err := newLocator(base)
	if err != nil {
		return nil, err
	}
	t := &textWriter{w: w, opt: opt, width: opt.Width, loc: loc}
	if t.width <= 0 {
		t.width = DefaultWidth
	}
	wheels := 0
	for _, in := range r.Inputs {
		if in.Error != "" || strings.Contains(in.Path, "!") {
			continue
		}
		if abs, err := filepath.Abs(in.Path); err == nil {
			t.roots = append(t.roots, abs)
		}
		if hasSuffixFold(in.Path, ".whl", ".zip") {
			wheels++
		}
	}
	t.wheel = wheels == 1
	if !opt.Verbose {
		t.names = reportNames(r.Findings)
	}
	return t, nil
}

// platform says which platform tag a package's objects are consistent
// with, as auditwheel show does, and what they need from the system: in
// one line, with what keeps it from the next tag and how much it needs
// counted; -v lists them, and each external library with the file found,
// what needs it, the versions it needs and the policies it breaks.
func (t *textWriter) platform(p finding.Platform) {
	head := fmt.Sprintf("platform %s: consistent with %s", p.Arch, p.ConsistentWith)
	if p.Package != "" {
		head = t.loc.display(p.Package) + ": " + head
	}
	if len(p.Tags) > 0 {
		head += "; tagged " + strings.Join(p.Tags, ", ")
	}
	if !t.opt.Verbose {
		t.line(0, 2, head+platformBrief(p))
		return
	}
	t.line(0, 2, head)
	var parts []string
	if len(p.Needs) > 0 {
		parts = append(parts, "needs "+strings.Join(p.Needs, ", "))
	}
	if len(p.System) > 0 {
		parts = append(parts, "from the system: "+strings.Join(p.System, ", "))
	}
	if len(parts) > 0 {
		t.line(2, 4, strings.Join(parts, "; "))
	}
	if len(p.Blockers) > 0 {
		t.line(2, 4, "not "+p.Next+": "+strings.Join(p.Blockers, "; "))
	}
	if len(p.External) == 0 {
		return
	}
	if p.SymbolTag != "" && p.SymbolTag != p.ConsistentWith {
		t.line(2, 4, "with the external libraries grafted (auditwheel repair), the symbol versions allow "+p.SymbolTag+" at best")
	}
	t.line(2, 4, "external libraries (auditwheel repair grafts them):")
	for _, e := range p.External {
		t.line(4, 6, t.externalLine(e))
	}
}

// externalLine is one external library under -v.
func (t *textWriter) externalLine(e finding.ExternalLibrary) string {
	s := e.Soname + " => not found"
	if e.Path != "" {
		s = e.Soname + " => " + e.Path
	}
	if e.Through != "" {
		s += ", through " + e.Through
	} else {
		s += ", needed by " + t.short(e.NeededBy)
	}
	if len(e.Needs) > 0 {
		s += "; needs " + strings.Join(e.Needs, ", ")
	}
	switch {
	case e.Error != "":
		s += "; its versions unread: " + e.Error
	case len(e.Breaks) == 0:
	case e.AllowedFrom == "":
		s += "; no policy allows it"
	default:
		s += fmt.Sprintf("; breaks %s to %s, allowed from %s", e.Breaks[0], e.Breaks[len(e.Breaks)-1], e.AllowedFrom)
	}
	return s
}

// platformBrief is the rest of a platform's line without -v: the first
// thing that keeps it from the next tag (its subject: what needs it is
// for -v), what it needs, a few named and the rest counted, and the
// external libraries (auditwheel's list), else every library it needs
// from the system.
func platformBrief(p finding.Platform) string {
	var s string
	cut := false
	if len(p.Blockers) > 0 {
		first, _, _ := strings.Cut(p.Blockers[0], " (")
		s = "; not " + p.Next + ": " + first
		if cut = len(p.Blockers) > 1; cut {
			s += ", and more"
		}
	}
	var parts []string
	if len(p.Needs) > 0 {
		parts = append(parts, "needs "+firstOf(p.Needs, &cut))
	}
	if len(p.External) > 0 {
		names := make([]string, len(p.External))
		for i, e := range p.External {
			names[i] = e.Soname
		}
		parts = append(parts, "external: "+firstOf(names, &cut))
	} else if len(p.System) > 0 {
		parts = append(parts, "from the system: "+firstOf(p.System, &cut))
	}
	if len(parts) > 0 {
		s += "; " + strings.Join(parts, "; ")
	}
	if cut {
		s += " (-v lists them all)"
	}
	return s
}

// platformShown is how many needs, or system libraries, a platform's line
// names without -v.
const platformShown = 3

// firstOf names the first platformShown items and counts the rest, setting
// *cut when it leaves some out.
func firstOf(items []string, cut *bool) string {
	if len(items) <= platformShown {
		return strings.Join(items, ", ")
	}
	*cut = true
	return fmt.Sprintf("%s and %d more", strings.Join(items[:platformShown], ", "), len(items)-platformShown)
}

// ruleSet is one rule's findings, grouped.
type ruleSet struct {
	id, name string
	worst    finding.Severity
	groups   []*findingGroup
	n        map[finding.Severity]int
}

// findingGroup is the findings of one rule on one object that collide with
// the same thing, at one severity; a finding with a source line is a group
// of its own.
type findingGroup struct {
	sev      finding.Severity
	findings []*finding.Finding
}

// ruleGroups groups fs by rule, then by groupKey; rules come in order of
// their worst severity, then of how many findings they have at it, then ID;
// groups by severity, then size, then first-seen order (Run's sort).
func ruleGroups(fs []finding.Finding) []*ruleSet {
	byRule := map[string]*ruleSet{}
	var rules []*ruleSet
	index := map[string]*findingGroup{}
	for i := range fs {
		f := &fs[i]
		rs := byRule[f.Rule]
		if rs == nil {
			rs = &ruleSet{id: f.Rule, name: f.Name, n: map[finding.Severity]int{}}
			byRule[f.Rule] = rs
			rules = append(rules, rs)
		}
		rs.n[f.Severity]++
		rs.worst = max(rs.worst, f.Severity)
		k := f.Rule + "\x00" + groupKey(f)
		g := index[k]
		if g == nil {
			g = &findingGroup{sev: f.Severity}
			index[k] = g
			rs.groups = append(rs.groups, g)
		}
		g.findings = append(g.findings, f)
	}
	for _, rs := range rules {
		sort.SliceStable(rs.groups, func(i, j int) bool {
			a, b := rs.groups[i], rs.groups[j]
			if a.sev != b.sev {
				return a.sev > b.sev
			}
			return len(a.findings) > len(b.findings)
		})
	}
	sort.SliceStable(rules, func(i, j int) bool {
		a, b := rules[i], rules[j]
		if a.worst != b.worst {
			return a.worst > b.worst
		}
		if a.n[a.worst] != b.n[b.worst] {
			return a.n[a.worst] > b.n[b.worst]
		}
		return a.id < b.id
	})
	return rules
}

// groupKey says which findings of a rule read as one line: same severity,
// object, component, peer and target; a located finding stands alone.
func groupKey(f *finding.Finding) string {
	s := f.Subject
	k := strings.Join([]string{f.Severity.String(), s.File, s.Member, s.Component, s.Peer, s.Target}, "\x00")
	if f.Location != nil {
		k += "\x00" + f.Location.File + ":" + strconv.Itoa(f.Location.Line) + "\x00" + s.Symbol
	}
	return k
}

func (t *textWriter) rule(rs *ruleSet) {
	var parts []string
	for _, s := range []finding.Severity{finding.Error, finding.Warning, finding.Note} {
		if rs.n[s] > 0 {
			parts = append(parts, count(rs.n[s], s.String()))
		}
	}
	t.line(0, 0, fmt.Sprintf("%s %s: %s", rs.id, rs.name, strings.Join(parts, ", ")))
	doc := t.opt.doc(rs.id)
	if doc.Summary != "" {
		t.line(2, 2, doc.Summary)
	}
	lastFix := ""
	var notes []*findingGroup
	for _, g := range rs.groups {
		if g.sev <= finding.Note && !t.opt.Verbose {
			notes = append(notes, g)
			continue
		}
		t.group(g)
		fix := g.findings[0].Fix
		if fix == "" {
			fix = doc.Fix
		}
		if fix != "" && fix != lastFix {
			t.line(4, 9, "fix: "+collapse(fix))
			lastFix = fix
		}
	}
	if len(notes) > 0 {
		t.noteSummary(notes)
	}
	t.line(0, 0, "")
}

// group writes a group's line: [path:line: ]severity label: message, and
// how many more with a few of their names; with -v, every finding.
func (t *textWriter) group(g *findingGroup) {
	first := g.findings[0]
	sev := first.Severity.String()
	indent, lead := 2, t.paint(first.Severity, sev)+strings.Repeat(" ", max(1, 8-len(sev)))
	if at := location(first, t.loc); at != "" {
		indent, lead = 0, Visible(at)+": "+t.paint(first.Severity, sev)+" "
	}
	head := ""
	if label := t.label(first); label != "" {
		head = label + ": "
	}
	names := variantNames(g.findings)
	if t.opt.Verbose && len(g.findings) > 1 {
		t.lineLead(indent, 10, lead, head+count(len(g.findings), "finding"))
		for i, f := range g.findings {
			t.line(6, 10, "- "+named(names[i], f))
			t.evidence(f, 10)
		}
		return
	}
	msg := named(names[0], first)
	if d := first.Subject.Demangled; t.names[d] != "" {
		msg = strings.ReplaceAll(msg, d, t.names[d])
	}
	if n := len(g.findings) - 1; n > 0 {
		msg += fmt.Sprintf(" (+%d more: %s)", n, examples(names[1:], 3, t.names))
	}
	t.lineLead(indent, 10, lead, head+msg)
	if t.opt.Verbose {
		t.evidence(first, 6)
	}
}

// named is a finding's message, led by its name unless the message or the
// group's label already says it.
func named(name string, f *finding.Finding) string {
	msg := collapse(f.Message)
	base, _, _ := strings.Cut(name, " [")
	if name == "" || strings.Contains(msg, base) || name == lastElem(objectName(f.Subject)) || name == f.Subject.Target {
		return msg
	}
	return name + ": " + msg
}

func (t *textWriter) evidence(f *finding.Finding, indent int) {
	for _, s := range f.Evidence {
		at := ""
		if s.Line > 0 {
			at = fmt.Sprintf(" (%s:%d)", t.loc.display(s.File), s.Line)
		}
		t.line(indent, indent+2, "- "+collapse(s.Text)+at)
	}
}

// noteSummary counts the notes a rule has, by component when they have one
// (else by object), the biggest first.
func (t *textWriter) noteSummary(groups []*findingGroup) {
	by := map[string]int{}
	var order []string
	total := 0
	for _, g := range groups {
		for _, f := range g.findings {
			k := f.Subject.Component
			if k == "" {
				k = fileName(objectName(f.Subject))
			}
			if k == "" {
				k = findingName(f)
			}
			if by[k] == 0 {
				order = append(order, k)
			}
			by[k]++
			total++
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return by[order[i]] > by[order[j]] })
	var parts []string
	for i, k := range order {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(order)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
	}
	t.line(2, 4, fmt.Sprintf("+ %s: %s", count(total, "note"), strings.Join(parts, ", ")))
}

// label names what a group is about: the object (relative to the base or
// to the input holding it), its component, what it collides with, and the
// CMake target.
func (t *textWriter) label(f *finding.Finding) string {
	s := f.Subject
	var parts []string
	if f.Location == nil || s.Target == "" {
		if obj := objectName(s); obj != "" && (f.Location == nil || obj != f.Location.File) { // the line's lead names it already
			parts = append(parts, t.short(obj))
		}
	}
	if s.Target != "" && !strings.Contains(strings.Join(parts, " "), s.Target) && !strings.Contains(f.Message, s.Target) {
		parts = append(parts, s.Target)
	}
	if s.Component != "" {
		parts = append(parts, "["+s.Component+"]")
	}
	if s.Peer != "" && !strings.Contains(f.Message, s.Peer) {
		parts = append(parts, "<-> "+s.Peer)
	}
	return strings.Join(parts, " ")
}

// short names an object as a reader finds it: a wheel's entry alone when
// one wheel was read; relative to --srcroot when given; under the input
// that holds it (torch/lib/libc10.so); else relative to the current
// directory.
func (t *textWriter) short(name string) string {
	file, inner := container(name)
	if inner != "" && t.wheel && strings.Contains(name, "!") {
		return inner
	}
	if r, ok := t.loc.rel(file); ok && t.opt.BaseDir != "" {
		return r + name[len(file):]
	}
	if abs, err := filepath.Abs(file); err == nil {
		if r, ok := finding.UnderRoot(abs, t.roots); ok {
			return r + name[len(file):]
		}
	}
	if r, ok := t.loc.rel(file); ok {
		return r + name[len(file):]
	}
	return name
}

// line writes s fitted to the width: wrapped at blanks, continuation lines
// indented by cont. A word is never cut or elided (it may be a command to
// copy): one wider than a continuation line has a line of its own, moved
// left as far as it needs to fit, or at column 0 when it cannot.
func (t *textWriter) line(indent, cont int, s string) { t.lineLead(indent, cont, "", s) }

// lineLead is line with lead written as it is (a padded column, perhaps
// coloured) before s. Whether a word starts a line is kept as a flag: the
// column says nothing about it (taking a column equal to the lead's width
// for a line's start glued two words wherever a continuation line reached
// that column: "Python3::Python,pybind11::embed" at 71 columns).
func (t *textWriter) lineLead(indent, cont int, lead, s string) {
	if t.err != nil {
		return
	}
	var words []string
	if indent+plainWidth(lead) > t.width {
		words = strings.Fields(lead) // a location wider than the line: its words wrap too
		lead = ""
	}
	for _, word := range strings.Fields(s) {
		words = append(words, Visible(word))
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", indent) + lead)
	col := indent + plainWidth(lead)
	fresh := true // no word on this line yet
	for _, word := range words {
		ww := plainWidth(word)
		switch {
		case fresh && col+ww <= t.width:
		case !fresh && col+1+ww <= t.width:
			b.WriteByte(' ')
			col++
		default:
			if fresh && strings.TrimSpace(lead) == "" {
				b.Reset() // only the indent so far: take it back rather than leave a blank line
			} else {
				trimLine(&b)
				b.WriteByte('\n')
			}
			col = max(0, min(cont, t.width-ww))
			b.WriteString(strings.Repeat(" ", col))
		}
		b.WriteString(word)
		col += ww
		fresh = false
	}
	trimLine(&b)
	b.WriteByte('\n')
	_, t.err = io.WriteString(t.w, b.String())
}

// trimLine drops the blanks that end the line being built (a lead's
// padding when its first word went to the next line).
func trimLine(b *strings.Builder) {
	s := b.String()
	if t := strings.TrimRight(s, " "); len(t) < len(s) {
		b.Reset()
		b.WriteString(t)
	}
}

// elide shortens s to n columns by cutting its middle: the start and the
// end of a name are what tell it apart.
func elide(s string, n int) string {
	if displayWidth(s) <= n {
		return s
	}
	r := []rune(s)
	head := (n - 1) / 2
	tail := n - 1 - head
	for head > 0 && displayWidth(string(r[:head])) > (n-1)/2 {
		head--
	}
	for tail > 0 && displayWidth(string(r[len(r)-tail:])) > n-1-(n-1)/2 {
		tail--
	}
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// collapse puts text written over several lines on one.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// count is "1 error", "2 errors".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// fileName is an object's own name: the file, wheel entry or archive
// member without the directories and containers around it.
func fileName(obj string) string {
	if file, inner := container(obj); inner != "" {
		return lastElem(inner)
	} else if file != "" {
		return filepath.Base(file)
	}
	return ""
}

// findingName is what a finding of a group is called in a list: its
// symbol, else its member or target.
func findingName(f *finding.Finding) string {
	s := f.Subject
	for _, n := range []string{s.Demangled, s.Symbol, s.Member, s.Target, lastElem(s.File)} {
		if n != "" {
			return n
		}
	}
	return ""
}

// variantNames names each finding, telling apart the constructor and
// destructor variants (C1/C2, D0/D1/D2) that demangle alike by the
// variant their mangled names differ in.
func variantNames(fs []*finding.Finding) []string {
	names := make([]string, len(fs))
	same := map[string][]int{}
	for i, f := range fs {
		names[i] = findingName(f)
		same[names[i]] = append(same[names[i]], i)
	}
	for name, idx := range same {
		if len(idx) < 2 {
			continue
		}
		for k, i := range idx {
			other := idx[0]
			if k == 0 {
				other = idx[1]
			}
			if tag := variantTag(fs[i].Subject.Symbol, fs[other].Subject.Symbol); tag != "" {
				names[i] = name + " [" + tag + "]"
			}
		}
	}
	return names
}

// variantTag is the ctor/dtor variant code where mangled a first differs
// from b (C1 in _ZN3FooC1Ev against _ZN3FooC2Ev), or "".
func variantTag(a, b string) string {
	isCode := func(s string, i int) bool {
		return i >= 0 && i+1 < len(s) && (s[i] == 'C' || s[i] == 'D') && s[i+1] >= '0' && s[i+1] <= '9'
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		for _, at := range []int{i, i - 1} { // differing in the letter, or in the digit
			if isCode(a, at) && isCode(b, at) {
				return a[at : at+2]
			}
		}
		return ""
	}
	return ""
}

// examples lists up to n distinct names, as short shows them; the variants
// of one name are listed once with their tags (c10::IValue::IValue() [C2 D0]).
func examples(names []string, n int, short map[string]string) string {
	var order []string
	tags := map[string][]string{}
	for _, name := range names {
		base, tag, _ := strings.Cut(name, " [")
		if _, ok := tags[base]; !ok {
			order = append(order, base)
			tags[base] = nil
		}
		if tag != "" {
			tags[base] = append(tags[base], strings.TrimSuffix(tag, "]"))
		}
	}
	var out []string
	for i, base := range order {
		if i == n {
			out = append(out, "…")
			break
		}
		s := base
		if e := short[base]; e != "" {
			s = e
		}
		if len(tags[base]) > 0 {
			s += " [" + strings.Join(tags[base], " ") + "]"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

package report

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/jsonw"
)

// SARIFSchema is the schema URI written in SARIF output's $schema.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/os/schemas/sarif-schema-2.1.0.json"

// srcRoot is the uriBaseId of paths under Options.BaseDir.
const srcRoot = "%SRCROOT%"

// fingerprintKey names etlink's fingerprint in partialFingerprints; the
// version changes if finding.Fingerprint ever hashes differently.
const fingerprintKey = "etlink/v1"

// SARIF writes the report as a SARIF 2.1.0 log with one run. opt.Rules
// becomes tool.driver.rules; a finding of a rule missing from it gets a bare
// descriptor so that every ruleIndex is valid. Paths under opt.BaseDir are
// written relative to %SRCROOT%, others as file: URIs, or as given when
// opt.BaseDir is empty. A wheel entry or archive member is located at its
// wheel or archive, with the entry or member as a logical location.
func SARIF(w io.Writer, r *finding.Report, opt Options) error {
	loc, err := newLocator(opt.BaseDir)
	if err != nil {
		return err
	}
	run := sarifRun{Results: []sarifResult{}}
	name := r.Tool.Name
	if name == "" {
		name = "etlink"
	}
	run.Tool.Driver = sarifDriver{Name: name, Version: r.Tool.Version}
	ruleIndex := map[string]int{}
	for _, ri := range opt.Rules {
		if _, dup := ruleIndex[ri.ID]; dup {
			continue
		}
		ruleIndex[ri.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, ruleDescriptor(ri))
	}
	indexes := make([]int, len(r.Findings))
	for i := range r.Findings {
		f := &r.Findings[i]
		idx, ok := ruleIndex[f.Rule]
		if !ok {
			idx = len(run.Tool.Driver.Rules)
			ruleIndex[f.Rule] = idx
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, ruleDescriptor(finding.RuleDoc{ID: f.Rule, Name: f.Name}))
		}
		indexes[i] = idx
	}
	run.Invocations = []sarifInvocation{loc.invocation(r.Inputs)}
	if loc.base != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{
			srcRoot: {URI: strings.TrimSuffix(fileURI(loc.base), "/") + "/"},
		}
	}
	// The results, megabytes for thousands of conflicts, are written one
	// at a time as they are made (runs[0].results: three levels deep).
	var jw *jsonw.Writer
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}}
	return encodeDocument(w, log, "results", 3, len(r.Findings), func(i int, bw *bufio.Writer) error {
		if jw == nil {
			jw = jsonw.NewWriter(4, func(b []byte) { bw.Write(b) })
		}
		res := loc.result(&r.Findings[i], indexes[i])
		res.WriteJSON(jw)
		jw.Flush()
		return jw.Err()
	})
}

// WriteJSON writes the result as encoding/json would (jsonw.Value), its
// details through their own WriteJSON where they have one.
func (r *sarifResult) WriteJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("ruleId", r.RuleID)
	w.Key("ruleIndex")
	w.Int(r.RuleIndex)
	w.Field("level", r.Level)
	w.Key("message")
	w.Any(r.Message)
	if len(r.Locations) > 0 {
		w.Key("locations")
		w.Any(r.Locations)
	}
	if len(r.RelatedLocations) > 0 {
		w.Key("relatedLocations")
		w.Any(r.RelatedLocations)
	}
	if len(r.PartialFingerprints) > 0 {
		w.Key("partialFingerprints")
		w.Any(r.PartialFingerprints)
	}
	if p := r.Properties; p != nil {
		w.Key("properties")
		w.Open('{')
		p.Subject.WriteFields(w)
		if p.Details != nil {
			w.Key("details")
			w.Any(p.Details)
		}
		w.Close('}')
	}
	w.Close('}')
}

// The SARIF 2.1.0 objects etlink writes: only the properties it fills.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                        `json:"tool"`
		Invocations        []sarifInvocation                `json:"invocations,omitempty"`
		OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
		Results            []sarifResult                    `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name    string      `json:"name"`
		Version string      `json:"version,omitempty"`
		Rules   []sarifRule `json:"rules,omitempty"`
	}
	sarifRule struct {
		ID                   string             `json:"id"`
		Name                 string             `json:"name,omitempty"`
		ShortDescription     *sarifMultiformat  `json:"shortDescription,omitempty"`
		FullDescription      *sarifMultiformat  `json:"fullDescription,omitempty"`
		Help                 *sarifMultiformat  `json:"help,omitempty"`
		DefaultConfiguration *sarifRuleDefaults `json:"defaultConfiguration,omitempty"`
	}
	sarifRuleDefaults struct {
		Level string `json:"level"`
	}
	sarifMultiformat struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifMessage struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifMessage      `json:"message"`
		Locations           []sarifLocation   `json:"locations,omitempty"`
		RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints,omitempty"`
		Properties          *resultProperties `json:"properties,omitempty"`
	}
	// resultProperties flattens the subject into the result's property bag.
	resultProperties struct {
		finding.Subject
		Details any `json:"details,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
		Message          *sarifMessage          `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
		Region           *sarifRegion          `json:"region,omitempty"`
	}
	sarifArtifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogicalLocation struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifInvocation struct {
		ExecutionSuccessful        bool                `json:"executionSuccessful"`
		ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
	}
	sarifNotification struct {
		Level     string          `json:"level"`
		Message   sarifMessage    `json:"message"`
		Locations []sarifLocation `json:"locations,omitempty"`
	}
)

func ruleDescriptor(ri finding.RuleDoc) sarifRule {
	d := sarifRule{ID: ri.ID, Name: ri.Name}
	if ri.Summary != "" {
		d.ShortDescription = &sarifMultiformat{Text: ri.Summary}
	}
	if ri.Why != "" {
		d.FullDescription = &sarifMultiformat{Text: strings.TrimSpace(ri.Why)}
	}
	if ri.Why != "" || ri.Fix != "" || ri.Before != "" || ri.After != "" {
		d.Help = &sarifMultiformat{Text: helpText(ri), Markdown: helpMarkdown(ri)}
	}
	if ri.Severity != finding.None {
		d.DefaultConfiguration = &sarifRuleDefaults{Level: sarifLevel(ri.Severity)}
	}
	return d
}

func helpText(ri finding.RuleDoc) string {
	var parts []string
	if s := strings.TrimSpace(ri.Why); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(ri.Fix); s != "" {
		parts = append(parts, "Fix: "+s)
	}
	if s := strings.TrimSpace(ri.Before); s != "" {
		parts = append(parts, "Before:\n"+s)
	}
	if s := strings.TrimSpace(ri.After); s != "" {
		parts = append(parts, "After:\n"+s)
	}
	return strings.Join(parts, "\n\n")
}

func helpMarkdown(ri finding.RuleDoc) string {
	var parts []string
	if s := strings.TrimSpace(ri.Why); s != "" {
		parts = append(parts, s)
	}
	if s := strings.TrimSpace(ri.Fix); s != "" {
		parts = append(parts, "**Fix:** "+s)
	}
	if s := strings.TrimSpace(ri.Before); s != "" {
		parts = append(parts, "**Before:**\n\n"+codeBlock(s))
	}
	if s := strings.TrimSpace(ri.After); s != "" {
		parts = append(parts, "**After:**\n\n"+codeBlock(s))
	}
	return strings.Join(parts, "\n\n")
}

// codeBlock fences s with more backticks than any run inside it.
func codeBlock(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + s + "\n" + fence
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Error:
		return "error"
	case finding.Warning:
		return "warning"
	case finding.Note:
		return "note"
	}
	return "none"
}

func (l locator) result(f *finding.Finding, ruleIndex int) sarifResult {
	res := sarifResult{
		RuleID:              f.Rule,
		RuleIndex:           ruleIndex,
		Level:               sarifLevel(f.Severity),
		Message:             sarifMessage{Text: VisibleLines(f.Message)},
		PartialFingerprints: map[string]string{fingerprintKey: fingerprint(f)},
	}
	subject := objectName(f.Subject)
	_, inner := container(subject)
	seen := map[string]bool{}
	var related []sarifLocation
	for _, st := range f.Evidence {
		if st.File == "" {
			continue
		}
		rl := l.location(st.File, st.Line, st.Text)
		if k := locationKey(rl); !seen[k] {
			seen[k] = true
			seen[locationKey(l.location(st.File, st.Line, ""))] = true
			related = append(related, rl)
		}
	}
	switch {
	case f.Location != nil && f.Location.File != "":
		// A source line (CMakeLists.txt, a map) is where the reviewer acts;
		// the object it concerns is related, unless the evidence has it.
		line := f.Location.Line
		if f.Location.Unverified {
			line = 0 // a region past the file's end, or at another command
		}
		res.Locations = []sarifLocation{l.location(f.Location.File, line, "")}
		if subject != "" {
			if !seen[locationKey(l.location(subject, 0, ""))] {
				related = append([]sarifLocation{l.location(subject, 0, "subject: "+l.display(subject))}, related...)
			}
			res.Message.Text = withObject(f.Message, l.display(subject))
		}
		res.Message.Text += VisibleLines(unverifiedLine(f.Location))
	case subject != "":
		res.Locations = []sarifLocation{l.location(subject, 0, "")}
		if inner != "" {
			// Code scanning shows physical locations only: name the entry.
			res.Message.Text = withObject(f.Message, l.display(subject))
		}
	}
	res.RelatedLocations = related
	if f.Subject != (finding.Subject{}) || f.Details != nil {
		res.Properties = &resultProperties{Subject: f.Subject, Details: f.Details}
	}
	return res
}

// location places an object name or source file, with an optional line and
// message. A wheel entry or archive member is located at its container with
// the entry or member as a logical location of kind "module".
func (l locator) location(name string, line int, msg string) sarifLocation {
	file, inner := container(name)
	loc := sarifLocation{PhysicalLocation: &sarifPhysicalLocation{ArtifactLocation: l.artifact(file)}}
	if inner != "" {
		loc.LogicalLocations = []sarifLogicalLocation{{Name: inner, FullyQualifiedName: l.display(name), Kind: "module"}}
	} else if line > 0 {
		loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
	}
	if msg != "" {
		loc.Message = &sarifMessage{Text: VisibleLines(msg)}
	}
	return loc
}

// artifact is the artifactLocation of a file on disk.
func (l locator) artifact(p string) sarifArtifactLocation {
	if r, ok := l.rel(p); ok {
		return sarifArtifactLocation{URI: escapeURIPath(r), URIBaseID: srcRoot}
	}
	if filepath.IsAbs(p) {
		return sarifArtifactLocation{URI: fileURI(p)}
	}
	return sarifArtifactLocation{URI: escapeURIPath(filepath.ToSlash(filepath.Clean(p)))}
}

// locationKey identifies a location for de-duplication: SARIF wants the
// members of relatedLocations unique.
func locationKey(loc sarifLocation) string {
	b, _ := json.Marshal(loc)
	return string(b)
}

// invocation says whether every input was read, and why not for the others.
func (l locator) invocation(inputs []finding.Input) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: true}
	for _, in := range inputs {
		if in.Error == "" {
			continue
		}
		inv.ExecutionSuccessful = false
		n := sarifNotification{Level: "error", Message: sarifMessage{Text: VisibleLines(l.display(in.Path) + ": " + in.Error)}}
		if in.Path != "" {
			n.Locations = []sarifLocation{l.location(in.Path, 0, "")}
		}
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
	}
	return inv
}

// fingerprint is f's fingerprint, computed when a hand-made finding lacks one.
func fingerprint(f *finding.Finding) string {
	if f.Fingerprint != "" {
		return f.Fingerprint
	}
	return finding.Fingerprint(f.Rule, f.Subject)
}

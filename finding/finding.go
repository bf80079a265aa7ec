// Package finding holds the wire types etlink's rules emit and its renderers
// read. It is a leaf: a saved JSON report can be re-rendered without the engine.
//
// JSON schema (schema_version 1). A report is
//
//	{
//	  "schema_version": 1,
//	  "tool": {"name": "etlink", "version": "..."},
//	  "command": "conflicts",
//	  "inputs": [{"path": "...", "error": "..."}],   // error only for inputs that failed
//	  "findings": [Finding...],
//	  "summary": {"error": N, "warning": N, "note": N},
//	  "platforms": [Platform...],                     // check: the manylinux verdict per architecture
//	  "config": {"path": "...", "found_by": "flag|search|none", "searched": ["from", "up to"]}
//	}
//
// and a Finding is
//
//	{
//	  "rule": "ET301", "name": "defined-by-peer", "severity": "warning",
//	  "subject": {"file": "...", "member": "...", "target": "...", "symbol": "...",
//	              "demangled": "...", "component": "...", "peer": "..."},
//	  "message": "...",
//	  "evidence": [{"text": "...", "file": "...", "line": 0, "symbol": "..."}],
//	  "fix": "...",
//	  "location": {"file": "...", "line": 0, "unverified": true}, // unverified: a line from a stale configure
//	  "fingerprint": "...",
//	  "details": {...}                                 // rule-specific, documented by the rule
//	}
//
// Fields are omitted when empty. New fields may be added; existing ones keep
// their meaning while schema_version stays 1.
package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/etlink/etlink/internal/jsonw"
)

// Severity orders findings; --fail-on compares against it.
type Severity int

// Severities, lowest first.
const (
	None Severity = iota
	Note
	Warning
	Error
)

var severityNames = [...]string{"none", "note", "warning", "error"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity name as used by --fail-on.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(name, n) {
			return Severity(i), nil
		}
	}
	return None, fmt.Errorf("unknown severity %q (want error, warning, note or none)", name)
}

// MarshalText makes severities read as names in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Subject is what a finding is about.
type Subject struct {
	File      string `json:"file,omitempty"`
	Member    string `json:"member,omitempty"`
	Target    string `json:"target,omitempty"`
	Symbol    string `json:"symbol,omitempty"`
	Demangled string `json:"demangled,omitempty"`
	Component string `json:"component,omitempty"`
	// Peer is what the subject collides with: the peer's library that also
	// defines the symbol (ET301), the wheel's other objects exporting it
	// (ET302). The text report groups by it; fingerprints ignore it.
	Peer string `json:"peer,omitempty"`
}

// Step is one link of the evidence chain that makes a finding checkable.
type Step struct {
	Text   string `json:"text"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Symbol string `json:"symbol,omitempty"`
}

// Location points at a source line (CMakeLists.txt, a map file) when there is one.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Unverified is set when Line was not read from File as it is now: a
	// CMake File API reply older than File (a stale configure), or a line
	// past File's end.
	Unverified bool `json:"unverified,omitempty"`
}

// Finding is one problem a rule found.
type Finding struct {
	Rule        string    `json:"rule"`
	Name        string    `json:"name"`
	Severity    Severity  `json:"severity"`
	Subject     Subject   `json:"subject"`
	Message     string    `json:"message"`
	Evidence    []Step    `json:"evidence,omitempty"`
	Fix         string    `json:"fix,omitempty"`
	Location    *Location `json:"location,omitempty"`
	Fingerprint string    `json:"fingerprint"`
	Details     any       `json:"details,omitempty"`
}

// Fingerprint identifies a finding across runs: rule, subject and symbol, not
// the message or evidence, so rewording or a moved line keeps a baseline valid.
func Fingerprint(rule string, s Subject) string {
	h := sha256.New()
	for _, part := range []string{rule, s.File, s.Member, s.Target, s.Symbol} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Input records one input and, when it could not be read, why.
type Input struct {
	Path  string `json:"path"`
	Error string `json:"error,omitempty"`
}

// Report is everything one command found.
type Report struct {
	SchemaVersion int            `json:"schema_version"`
	Tool          Tool           `json:"tool"`
	Command       string         `json:"command"`
	Inputs        []Input        `json:"inputs"`
	Findings      []Finding      `json:"findings"`
	Summary       map[string]int `json:"summary"`
	// Platforms says, for check, which platform tag the package's objects
	// of each architecture are consistent with.
	Platforms []Platform `json:"platforms,omitempty"`
	// Config names the configuration the run read, or that it read none;
	// absent for a command that reads none.
	Config *ConfigSource `json:"config,omitempty"`
}

// ConfigSource says which configuration a run used and how it was found.
type ConfigSource struct {
	Path string `json:"path,omitempty"` // "" when none was found
	// FoundBy is "flag" (--config), "search" or "none".
	FoundBy string `json:"found_by"`
	// Searched are the first and last directories searched (FoundBy
	// "search" or "none").
	Searched []string `json:"searched,omitempty"`
}

// Platform is the manylinux or musllinux verdict on a package's objects of
// one architecture, as auditwheel show gives it.
type Platform struct {
	// Package is the wheel or tree the verdict is about, when the run
	// checked several (each wheel of dist/*.whl is a package).
	Package string `json:"package,omitempty"`
	Arch    string `json:"arch"`
	Libc    string `json:"libc"`
	// ConsistentWith is the most compatible tag the objects satisfy
	// (manylinux_2_17_x86_64), or linux_ARCH when they satisfy none.
	ConsistentWith string `json:"consistent_with"`
	// Tags are the wheel's own platform tags for the architecture.
	Tags []string `json:"tags,omitempty"`
	// Needs are the newest symbol versions needed from the system, one per
	// namespace (GLIBC_2.17, GLIBCXX_3.4.19).
	Needs []string `json:"needs,omitempty"`
	// Blockers say what keeps the objects from Next, the next more
	// compatible tag.
	Next     string   `json:"next,omitempty"`
	Blockers []string `json:"blockers,omitempty"`
	// System are the libraries the objects need from the system.
	System []string `json:"system_libraries,omitempty"`
	// Versioned are the symbol versions the objects need from each
	// library, sorted: auditwheel show's versioned_symbols for the objects
	// themselves (each external library's are its own). Those needed from
	// the package's own libraries constrain no tag.
	Versioned map[string][]string `json:"versioned_symbols,omitempty"`
	// SymbolTag is the most compatible tag the symbol versions allow, the
	// external libraries' counted: auditwheel show's sym_tag, the tag
	// auditwheel repair can reach by grafting them.
	SymbolTag string `json:"symbol_tag,omitempty"`
	// External are the libraries of the system that some policy does not
	// allow, needed by the objects or, through one another, in turn, by
	// soname: auditwheel show's external_libs, which auditwheel repair
	// grafts.
	External []ExternalLibrary `json:"external_libraries,omitempty"`
}

// ExternalLibrary is one library of the system a policy does not allow.
type ExternalLibrary struct {
	// Soname is the DT_NEEDED name; Path the file the loader's search
	// finds, absent when it finds none.
	Soname string `json:"soname"`
	Path   string `json:"path,omitempty"`
	// NeededBy is the first object seen needing it: the package's, or
	// the external library named by Through.
	NeededBy string `json:"needed_by"`
	Through  string `json:"through,omitempty"`
	// Needs are the newest versions it needs, one per namespace;
	// Versioned every version it needs, per library (the dynamic
	// loader's left out, as auditwheel leaves it out).
	Needs     []string            `json:"needs,omitempty"`
	Versioned map[string][]string `json:"versioned_symbols,omitempty"`
	// Breaks are the policies it keeps the objects from, the most
	// compatible first; AllowedFrom is the most compatible policy that
	// allows it, absent when none does.
	Breaks      []string `json:"breaks"`
	AllowedFrom string   `json:"allowed_from,omitempty"`
	// Error says why its versions could not be read.
	Error string `json:"error,omitempty"`
}

// Tool names the producer of a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// SchemaVersion is the version of the JSON report format above.
const SchemaVersion = 1

// Summarize counts findings by severity name.
func Summarize(fs []Finding) map[string]int {
	m := map[string]int{"error": 0, "warning": 0, "note": 0}
	for _, f := range fs {
		m[f.Severity.String()]++
	}
	return m
}

// Max returns the highest severity among fs.
func Max(fs []Finding) Severity {
	max := None
	for _, f := range fs {
		if f.Severity > max {
			max = f.Severity
		}
	}
	return max
}

// UnderRoot names the absolute path p by the deepest of roots (absolute
// input paths: a directory, a wheel, a file) that holds it: the root's own
// name, then the path below it, so that loc1/PIL/_imaging.so under the root
// loc1/PIL reads PIL/_imaging.so wherever the package is unpacked. ok is
// false when no root holds p.
func UnderRoot(p string, roots []string) (string, bool) {
	best := ""
	for _, r := range roots {
		if (p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "/")+"/")) && len(r) > len(best) {
			best = r
		}
	}
	if best == "" {
		return "", false
	}
	parent := best[:strings.LastIndexByte(strings.TrimSuffix(best, "/"), '/')+1]
	return p[len(parent):], true
}

// WriteJSON writes f as encoding/json would (jsonw.Value): a report holds
// thousands of findings, their Details written by their own WriteJSON where
// they have one.
func (f *Finding) WriteJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("rule", f.Rule)
	w.Field("name", f.Name)
	w.Field("severity", f.Severity.String())
	w.Key("subject")
	f.Subject.writeJSON(w)
	w.Field("message", f.Message)
	if len(f.Evidence) > 0 {
		w.Key("evidence")
		jsonw.Slice(w, f.Evidence, (*Step).writeJSON)
	}
	w.OmitEmpty("fix", f.Fix)
	if l := f.Location; l != nil {
		w.Key("location")
		w.Open('{')
		w.Field("file", l.File)
		omitZero(w, "line", l.Line)
		if l.Unverified {
			w.Key("unverified")
			w.Any(true)
		}
		w.Close('}')
	}
	w.Field("fingerprint", f.Fingerprint)
	if f.Details != nil {
		w.Key("details")
		w.Any(f.Details)
	}
	w.Close('}')
}

func (s *Subject) writeJSON(w *jsonw.Writer) {
	w.Open('{')
	s.WriteFields(w)
	w.Close('}')
}

// WriteFields writes the subject's members into the object open in w, as
// encoding/json writes a Subject embedded in another struct.
func (s *Subject) WriteFields(w *jsonw.Writer) {
	w.OmitEmpty("file", s.File)
	w.OmitEmpty("member", s.Member)
	w.OmitEmpty("target", s.Target)
	w.OmitEmpty("symbol", s.Symbol)
	w.OmitEmpty("demangled", s.Demangled)
	w.OmitEmpty("component", s.Component)
	w.OmitEmpty("peer", s.Peer)
}

func (s *Step) writeJSON(w *jsonw.Writer) {
	w.Open('{')
	w.Field("text", s.Text)
	w.OmitEmpty("file", s.File)
	omitZero(w, "line", s.Line)
	w.OmitEmpty("symbol", s.Symbol)
	w.Close('}')
}

func omitZero(w *jsonw.Writer, k string, n int) {
	if n != 0 {
		w.Key(k)
		w.Int(n)
	}
}

package rules

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/reporoot"
)

// Config is the user's etlink.toml, or the [tool.etlink] table of a
// pyproject.toml (the same keys). No key names a path; one that does must
// resolve a relative path against the directory of Path.
//
//	# Extra component patterns: "prefix_" matches raw names, "ns::" namespaces.
//	[components]
//	mylib = ["mylib_", "mylib::"]
//
//	[conflicts]
//	# Symbols meant to be defined by both sides (globs on raw or demangled names).
//	allow = ["my_shared_abi_*"]
//
//	[registration]
//	# etlink finds registrations from the objects: a static initializer
//	# handing the unit's functions, vtables or objects to code outside it.
//	# Extra registries (globs over demangled qualified names, C names too),
//	# and registries a handoff to which registers nothing.
//	patterns = ["mylib::registry::add_*"]
//	exclude = ["mylib::log::describe"]
//
//	[retention]
//	# The project's own helpers, suggested as fixes ({target}, {library}).
//	fix_as_needed = "executorch_target_link_options_shared_lib({library})"
//	fix_whole_archive = "target_link_libraries({target} PRIVATE $<LINK_LIBRARY:WHOLE_ARCHIVE,{library}>)"
//
//	[soname]
//	# Require versioned file names (libfoo.so.1) for shipped libraries (ET403).
//	versioned = true
//
//	# Ownership manifest: each group of symbols has one owning library.
//	[[owner]]
//	library = "libexecutorch_threadpool.so*"   # glob on the file name
//	components = ["pthreadpool", "cpuinfo"]
//	symbols = ["et_threadpool_*"]
type Config struct {
	// Path is the file the configuration was read from ("" for none).
	Path string `toml:"-"`
	// Budget raises or lowers the run's limits (internal/budget's kinds:
	// read = "64GiB", objects = 200000, ...); --budget overrides it.
	Budget     map[string]any      `toml:"budget"`
	Components map[string][]string `toml:"components"`
	Conflicts  struct {
		Allow []string `toml:"allow"`
	} `toml:"conflicts"`
	Owners       []Owner `toml:"owner"`
	Registration struct {
		Patterns []string `toml:"patterns"`
		Exclude  []string `toml:"exclude"`
	} `toml:"registration"`
	Retention struct {
		FixAsNeeded     string `toml:"fix_as_needed"`
		FixWholeArchive string `toml:"fix_whole_archive"`
	} `toml:"retention"`
	Soname struct {
		Versioned bool `toml:"versioned"`
	} `toml:"soname"`
}

// Owner names the one library that may export a group of symbols.
type Owner struct {
	Library    string   `toml:"library"`
	Components []string `toml:"components"`
	Symbols    []string `toml:"symbols"`
}

// LoadConfig reads an etlink.toml, or the [tool.etlink] table of a
// pyproject.toml (the same keys).
func LoadConfig(file string) (*Config, error) {
	var c Config
	data, err := datafile.ReadFile(file, datafile.SmallText)
	if err != nil {
		return nil, err
	}
	if err := decodeConfig(file, string(data), &c); err != nil {
		return nil, err
	}
	c.Path = file
	return &c, c.validate(file)
}

// decodeConfig decodes an etlink.toml, or a pyproject.toml's [tool.etlink]
// table, into c; a key etlink does not know is an error (a misspelt key
// would otherwise configure nothing without a word).
func decodeConfig(file, data string, c *Config) error {
	if !isPyproject(file) {
		md, err := toml.Decode(data, c)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		return unknownKey(file, md.Undecoded(), "")
	}
	var py struct {
		Tool struct {
			Etlink toml.Primitive `toml:"etlink"`
		} `toml:"tool"`
	}
	md, err := toml.Decode(data, &py)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if !md.IsDefined("tool", "etlink") {
		return fmt.Errorf("%s: no [tool.etlink] table", file)
	}
	if err := md.PrimitiveDecode(py.Tool.Etlink, c); err != nil {
		return fmt.Errorf("%s: [tool.etlink] %w", file, err)
	}
	return unknownKey(file, md.Undecoded(), "tool.etlink.")
}

// unknownKey reports the first undecoded key under prefix (a pyproject's
// other tools' tables are not etlink's to judge).
func unknownKey(file string, keys []toml.Key, prefix string) error {
	for _, k := range keys {
		if name := k.String(); strings.HasPrefix(name, prefix) {
			return fmt.Errorf("%s: unknown key %q", file, strings.TrimPrefix(name, prefix))
		}
	}
	return nil
}

func isPyproject(file string) bool { return filepath.Base(file) == "pyproject.toml" }

// FindConfig returns the configuration nearest dir: in dir, then each
// parent up to and including top, the first etlink.toml, or pyproject.toml
// with a [tool.etlink] table (etlink.toml first in one directory); "" when
// there is none. A pyproject.toml that is not TOML is an error: whether it
// configures etlink cannot be told.
func FindConfig(dir, top string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if f := filepath.Join(d, "etlink.toml"); isFile(f) {
			return f, nil
		}
		if f := filepath.Join(d, "pyproject.toml"); isFile(f) {
			ok, err := configuresEtlink(f)
			if err != nil || ok {
				return f, err
			}
		}
		if d == top || filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// ConfigTop is where FindConfig stops for dir (absolute): the root of the
// repository holding it (its .git; git is never run), else the home
// directory when dir is below it, else the filesystem root. A file above
// a checkout belongs to no project of it, and neither does one above $HOME.
func ConfigTop(dir string) string {
	if root := reporoot.Find(dir); root != "" {
		return root
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" && within(dir, home) {
		return filepath.Clean(home)
	}
	return string(filepath.Separator)
}

// within reports whether p is dir or below it (both absolute and clean).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// configuresEtlink reports whether a pyproject.toml has a [tool.etlink] table.
func configuresEtlink(file string) (bool, error) {
	data, err := datafile.ReadFile(file, datafile.SmallText)
	if err != nil {
		return false, err
	}
	var doc map[string]any
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return false, fmt.Errorf("%s: %w (looking for a [tool.etlink] table)", file, err)
	}
	return md.IsDefined("tool", "etlink"), nil
}

func (c *Config) validate(file string) error {
	globs := append([]string(nil), c.Conflicts.Allow...)
	for i, o := range c.Owners {
		if o.Library == "" {
			return fmt.Errorf("%s: [[owner]] #%d has no library", file, i+1)
		}
		if len(o.Components) == 0 && len(o.Symbols) == 0 {
			return fmt.Errorf("%s: [[owner]] %s names no components or symbols", file, o.Library)
		}
		globs = append(globs, o.Library)
		globs = append(globs, o.Symbols...)
	}
	for _, g := range globs {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("%s: bad pattern %q: %w", file, g, err)
		}
	}
	if _, err := c.ComponentTable(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if _, err := c.RegistrationPatterns(); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// ComponentTable returns the default components extended by the config.
func (c *Config) ComponentTable() (*demangle.Components, error) {
	t := demangle.DefaultComponents()
	for name, pats := range c.Components {
		if err := t.Add(name, pats...); err != nil {
			return nil, fmt.Errorf("[components] %s: %w", name, err)
		}
	}
	return t, nil
}

// Allowed reports whether the config allow-lists a symbol for ET301/ET302.
func (c *Config) Allowed(sym string) bool {
	if len(c.Conflicts.Allow) == 0 {
		return false
	}
	return matchAny(c.Conflicts.Allow, sym) || matchAny(c.Conflicts.Allow, demangle.Name(sym))
}

func matchAny(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
			return true
		}
	}
	return false
}

// covers reports whether the owner's group holds sym (of component comp).
func (o *Owner) covers(sym, comp string) bool {
	for _, c := range o.Components {
		if comp != "" && strings.EqualFold(c, comp) {
			return true
		}
	}
	return matchAny(o.Symbols, sym)
}

// RegistrationPatterns returns the default registration patterns extended
// by the config, with its excludes.
func (c *Config) RegistrationPatterns() (*analyze.Patterns, error) {
	p := analyze.DefaultPatterns()
	if err := p.Add(c.Registration.Patterns...); err != nil {
		return nil, fmt.Errorf("[registration] %w", err)
	}
	if err := p.Exclude(c.Registration.Exclude...); err != nil {
		return nil, fmt.Errorf("[registration] exclude: %w", err)
	}
	return p, nil
}

// ET003 reports configured registration patterns that matched nothing.
var ET003 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET003",
		Name:     "unmatched-registration-pattern",
		Severity: finding.Note,
		Summary:  "an etlink.toml [registration] pattern or exclude that matches no function any static initializer calls",
		Why: `etlink finds registrations from the objects without configuration; a pattern adds a
registry it would not see, an exclude removes one. A pattern that matches nothing (a
misspelt namespace, an inline namespace such as absl::debian3:: that nm shows and the
header hides, a registry renamed since) silently adds nothing, and the registrations it
was written for may be missed without a word.`,
		Fix: `Write the pattern as the demangled qualified name the objects hold (nm -C on the
archive or library), or delete it.`,
		Before: `[registration]
patterns = ["absl::flags_internal::RegisterCommandLineFlag"]
$ etlink retention build/
note ET003 registration pattern "absl::flags_internal::RegisterCommandLineFlag" (etlink.toml) matches nothing`,
		After: `[registration]
patterns = ["absl::*::flags_internal::RegisterCommandLineFlag"]
$ etlink retention build/
no findings`,
	},
	Check: func(r *Rule, ctx *Context) []finding.Finding {
		if len(ctx.Retention) == 0 || ctx.Config == nil || ctx.Config.Path == "" {
			return nil
		}
		var out []finding.Finding
		for _, g := range ctx.Retention[0].Patterns().Unmatched() {
			f := r.newFinding(r.Severity, finding.Subject{File: ctx.Config.Path, Symbol: g},
				fmt.Sprintf("registration pattern %q (%s) matches no function a static initializer of these links calls", g, ctx.Config.Path))
			f.Location = &finding.Location{File: ctx.Config.Path, Line: lineOf(ctx.Config.Path, g)}
			f.Fix = r.Fix
			out = append(out, f)
		}
		return out
	},
}

// lineOf is the line of file that quotes s, 0 when none does.
func lineOf(file, s string) int {
	data, err := datafile.ReadFile(file, datafile.SmallText)
	if err != nil {
		return 0
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, strconv.Quote(s)) || strings.Contains(line, "'"+s+"'") {
			return i + 1
		}
	}
	return 0
}

// fix expands the project's own fix helper for kind ("as-needed" or
// "whole-archive"), or returns "" when none is configured.
func (c *Config) fix(kind, target, library string) string {
	if c == nil {
		return ""
	}
	tmpl := c.Retention.FixAsNeeded
	if kind == "whole-archive" {
		tmpl = c.Retention.FixWholeArchive
	}
	if tmpl == "" {
		return ""
	}
	lib := strings.TrimPrefix(path.Base(library), "lib")
	if i := strings.IndexAny(lib, "."); i > 0 {
		lib = lib[:i]
	}
	return strings.NewReplacer("{target}", target, "{library}", lib).Replace(tmpl)
}

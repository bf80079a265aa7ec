package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"

	"github.com/etlink/etlink/datafile"
)

// Config is the user's etlink.toml.
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
//	# Extra registration functions: globs over demangled qualified names.
//	patterns = ["mylib::registry::add_*"]
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
	Components map[string][]string `toml:"components"`
	Conflicts  struct {
		Allow []string `toml:"allow"`
	} `toml:"conflicts"`
	Owners       []Owner `toml:"owner"`
	Registration struct {
		Patterns []string `toml:"patterns"`
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

// LoadConfig reads an etlink.toml.
func LoadConfig(file string) (*Config, error) {
	var c Config
	data, err := datafile.ReadFile(file, datafile.SmallText)
	if err != nil {
		return nil, err
	}
	md, err := toml.Decode(string(data), &c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return nil, fmt.Errorf("%s: unknown key %q", file, keys[0].String())
	}
	return &c, c.validate(file)
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
// by the config.
func (c *Config) RegistrationPatterns() (*analyze.Patterns, error) {
	p := analyze.DefaultPatterns()
	if err := p.Add(c.Registration.Patterns...); err != nil {
		return nil, fmt.Errorf("[registration] %w", err)
	}
	return p, nil
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

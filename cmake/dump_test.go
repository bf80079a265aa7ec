package cmake

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// dump renders a project as text for golden files: every target with its
// kind, creator, extension verdict, definition and link items, then the
// notes. Paths are shown relative to the project root, with slashes.
func dump(p *Project) string {
	var b strings.Builder
	rel := func(path string) string {
		if r, err := filepath.Rel(p.Root, path); err == nil {
			return filepath.ToSlash(r)
		}
		return path
	}
	loc := func(l Location) string {
		s := fmt.Sprintf("%s:%d:%d", rel(l.File), l.Line, l.Col)
		for _, f := range l.Via {
			s += fmt.Sprintf(" via %s@%s:%d", f.Function, rel(f.File), f.Line)
		}
		for _, c := range l.Under {
			s += fmt.Sprintf(" under %s@%s:%d", c.Text, rel(c.File), c.Line)
		}
		return s
	}
	for _, t := range p.Targets {
		fmt.Fprintf(&b, "target %s %s by %s at %s\n", t.Name, t.Kind, t.Creator, loc(t.Def))
		if t.Extension {
			fmt.Fprintf(&b, "  extension: %s\n", t.ExtensionWhy)
		}
		if t.Aliased != "" {
			fmt.Fprintf(&b, "  aliases %s\n", t.Aliased)
		}
		var keys []string
		for k := range t.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  property %s=%q\n", k, t.Properties[k])
		}
		for _, l := range t.Links {
			fmt.Fprintf(&b, "  link %q", l.Item)
			if l.Raw != "" && l.Raw != l.Item {
				fmt.Fprintf(&b, " raw=%q", l.Raw)
			}
			if l.Scope != "" {
				fmt.Fprintf(&b, " %s", l.Scope)
			}
			if l.Unknown {
				b.WriteString(" unknown")
			}
			if l.Form != "" {
				fmt.Fprintf(&b, " form=%s", l.Form)
			}
			if l.Feature != "" {
				fmt.Fprintf(&b, " feature=%s", l.Feature)
			}
			if len(l.Parts) > 0 {
				fmt.Fprintf(&b, " parts=%q", l.Parts)
			}
			if l.Config != "" {
				fmt.Fprintf(&b, " config=%s", l.Config)
			}
			if l.Implicit != "" {
				fmt.Fprintf(&b, " implicit=%q", l.Implicit)
			}
			fmt.Fprintf(&b, " at %s\n", loc(l.Loc))
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note %s: %s\n", loc(n.Loc), n.Msg)
	}
	return b.String()
}

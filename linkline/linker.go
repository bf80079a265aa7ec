package linkline

import (
	"os"
	"strings"
)

// item is one argument as the linker sees it.
type item struct {
	text  string
	arg   string // as written when it differs from text ("-l foo")
	kind  Kind   // known before lookup (a source file after -x)
	index int    // Input.Index; -1 for what the driver adds
	src   Source
}

// machine is the linker's positional state while it reads its arguments.
type machine struct {
	s      *session
	link   *Link
	dir    string
	st     State
	stack  []State
	groups int
	// inputs wait for -l lookup, which needs every -L first (GNU ld
	// applies all -L options to all -l options, wherever they stand);
	// isLib marks the -l ones.
	inputs []Input
	isLib  []bool
	wlDirs []string // -L seen by the linker itself (-Wl,-L), searched after the driver's dirs
	depth  int      // response files expanded by the linker
	err    error
}

// Long linker options (one or two dashes, GNU ld style) that take a value:
// attached with '=' or as the next argument.
var ldArgOpts = map[string]bool{
	"rpath": true, "rpath-link": true, "soname": true, "Map": true, "script": true,
	"library": true, "library-path": true, "output": true, "dynamic-linker": true,
	"entry": true, "undefined": true, "trace-symbol": true, "version-script": true,
	"dynamic-list": true, "defsym": true, "wrap": true, "hash-style": true, "format": true,
	"oformat": true, "architecture": true, "sysroot": true, "plugin": true, "plugin-opt": true,
	"filter": true, "auxiliary": true, "audit": true, "depaudit": true, "exclude-libs": true,
	"just-symbols": true, "retain-symbols-file": true, "section-start": true, "image-base": true,
	"out-implib": true, "dependency-file": true, "mri-script": true, "Tbss": true, "Tdata": true,
	"Ttext": true, "Ttext-segment": true, "Trodata-segment": true, "Tldata-segment": true,
	"sort-section": true, "require-defined": true, "export-dynamic-symbol": true,
	"export-dynamic-symbol-list": true, "mllvm": true, "thread-count": true, "dT": true,
	"default-script": true, "emulation": true, "fuse-ld": true, "ld-path": true,
	"package-metadata": true, "error-limit": true, "icf": true, "z": false,
}

// Long linker options without a value that the model reads.
var ldFlagOpts = map[string]bool{
	"as-needed": true, "no-as-needed": true, "whole-archive": true, "no-whole-archive": true,
	"Bstatic": true, "dn": true, "non_shared": true, "static": true,
	"Bdynamic": true, "dy": true, "call_shared": true, "push-state": true, "pop-state": true,
	"start-group": true, "end-group": true, "shared": true, "Bshareable": true,
	"pie": true, "pic-executable": true, "no-pie": true, "relocatable": true, "Ur": true,
	"r": true, "i": true,
}

// Single-letter linker options that take a value, attached or next.
const ldShortArg = "lLoTRhzeuymIFfPAbcGYO"

// run feeds linker arguments through the state machine.
func (m *machine) run(items []item, implicit bool) {
	for i := 0; i < len(items); i++ {
		it := items[i]
		next := func() (string, bool) {
			if i+1 < len(items) {
				i++
				return items[i].text, true
			}
			m.warn(it, "missing value for "+it.text)
			return "", false
		}
		m.one(it, next, implicit)
	}
}

func (m *machine) warn(it item, msg string) {
	if s := it.src.String(); s != "" {
		msg = s + ": " + msg
	}
	m.link.Warnings = append(m.link.Warnings, msg)
}

// one handles one linker argument; next takes the following one as its value.
func (m *machine) one(it item, next func() (string, bool), implicit bool) {
	t := it.text
	switch {
	case t == "":
		return
	case t == "-(":
		m.startGroup(it)
		return
	case t == "-)":
		m.endGroup(it)
		return
	case t[0] == '@' && len(t) > 1:
		m.rsp(it, implicit)
		return
	case t[0] != '-' || t == "-":
		m.add(it, t, false, implicit)
		return
	}
	body := strings.TrimPrefix(t[1:], "-")
	name, val, hasEq := strings.Cut(body, "=")
	if ldFlagOpts[name] && !hasEq {
		m.flag(it, name)
		return
	}
	if takes, known := ldArgOpts[name]; known && takes {
		if !hasEq {
			v, ok := next()
			if !ok {
				return
			}
			val = v
		}
		m.valued(it, name, val, !hasEq, implicit)
		return
	}
	if strings.HasPrefix(t, "--") || !strings.ContainsRune(ldShortArg, rune(body[0])) {
		return // an option the model does not need
	}
	// A single-letter option with its value attached or next.
	letter := body[:1]
	val = body[1:]
	sep := val == ""
	if sep {
		v, ok := next()
		if !ok {
			return
		}
		val = v
	}
	m.valued(it, letter, val, sep, implicit)
}

func (m *machine) flag(it item, name string) {
	switch name {
	case "as-needed":
		m.st.AsNeeded = true
	case "no-as-needed":
		m.st.AsNeeded = false
	case "whole-archive":
		m.st.WholeArchive = true
	case "no-whole-archive":
		m.st.WholeArchive = false
	case "Bstatic", "dn", "non_shared":
		m.st.Static = true
	case "static":
		m.st.Static = true
		m.link.Static = true
	case "Bdynamic", "dy", "call_shared":
		m.st.Static = false
	case "push-state":
		m.stack = append(m.stack, m.st)
	case "pop-state":
		if len(m.stack) == 0 {
			m.warn(it, "--pop-state without a matching --push-state (the linker rejects this)")
			return
		}
		top := m.stack[len(m.stack)-1]
		m.stack = m.stack[:len(m.stack)-1]
		top.Group = m.st.Group // groups are not part of the pushed state
		m.st = top
	case "start-group":
		m.startGroup(it)
	case "end-group":
		m.endGroup(it)
	case "shared", "Bshareable":
		m.link.Shared = true
	case "pie", "pic-executable":
		m.link.PIE = true
	case "no-pie":
		m.link.PIE = false
	case "relocatable", "Ur", "r", "i":
		m.link.Relocatable = true
	}
}

func (m *machine) startGroup(it item) {
	if m.st.Group > 0 {
		m.warn(it, "--start-group inside a group (groups may not nest)")
		return
	}
	m.groups++
	m.st.Group = m.groups
}

func (m *machine) endGroup(it item) {
	if m.st.Group == 0 {
		m.warn(it, "--end-group without --start-group")
		return
	}
	m.st.Group = 0
}

// valued handles an option with its value: long names and single letters.
// sep says the value was the next argument, not attached.
func (m *machine) valued(it item, name, val string, sep, implicit bool) {
	if sep && it.arg == "" && (name == "l" || name == "library" || name == "T" || name == "script" || name == "dT" || name == "default-script") {
		it.arg = it.text + " " + val
	}
	switch name {
	case "l", "library":
		m.add(it, val, true, implicit)
	case "L", "library-path":
		m.wlDirs = append(m.wlDirs, val)
		m.link.LibDirs = append(m.link.LibDirs, val)
	case "o", "output":
		m.link.Output = val
	case "T", "script", "dT", "default-script":
		m.addScript(it, val, implicit)
	case "rpath":
		m.link.Rpath = append(m.link.Rpath, val)
	case "R":
		// -R DIR is -rpath; -R FILE is --just-symbols.
		if fi, err := os.Stat(m.abs(val)); err == nil && !fi.IsDir() {
			return
		}
		m.link.Rpath = append(m.link.Rpath, val)
	case "rpath-link":
		m.link.RpathLink = append(m.link.RpathLink, val)
	case "h", "soname":
		m.link.Soname = val
	case "Map":
		m.link.MapFile = val
	case "u", "undefined", "require-defined":
		m.link.Undefined = append(m.link.Undefined, val)
	case "sysroot":
		m.link.Sysroot = val
	case "fuse-ld", "ld-path":
		m.link.Linker = linkerName(val)
	}
}

// rsp expands a response file given to the linker (-Wl,@file).
func (m *machine) rsp(it item, implicit bool) {
	words, err := m.s.expandRsp([]word{{it.text, it.src}}, m.dir, nil)
	if err != nil {
		if m.err == nil {
			m.err = err
		}
		return
	}
	sub := make([]item, len(words))
	for i, w := range words {
		sub[i] = item{text: w.text, index: it.index, src: w.src}
	}
	m.run(sub, implicit)
}

func (m *machine) add(it item, name string, isLib, implicit bool) {
	arg := it.text
	if it.arg != "" {
		arg = it.arg
	}
	if isLib && !strings.HasPrefix(arg, "-l") && !strings.HasPrefix(arg, "--library") {
		arg = "-l" + name
	}
	if isLib && (strings.HasPrefix(name, "LINKER:") || strings.HasPrefix(name, "SHELL:")) {
		m.warn(it, "-l"+name+": a CMake "+strings.SplitN(name, ":", 2)[0]+
			": item passed as a library name (target_link_libraries does not expand it: use -Wl, or target_link_options); the link fails")
	}
	src := it.src
	if implicit {
		src = m.link.Source
	}
	m.inputs = append(m.inputs, Input{
		Arg: arg, Index: it.index, Name: name, Kind: it.kind, State: m.st,
		Implicit: implicit, Source: src,
	})
	m.isLib = append(m.isLib, isLib)
}

func (m *machine) addScript(it item, name string, implicit bool) {
	arg := it.text
	if it.arg != "" {
		arg = it.arg
	}
	m.inputs = append(m.inputs, Input{
		Arg: arg, Index: it.index, Name: name, Kind: KindScript, State: m.st,
		Implicit: implicit, Source: it.src,
	})
	m.isLib = append(m.isLib, false)
}

func (m *machine) abs(p string) string {
	if p == "" || p[0] == '/' || m.dir == "" {
		return p
	}
	return m.dir + "/" + p
}

package linkline

import (
	"sort"
	"strings"
)

// specSet is a GCC spec file as `gcc -dumpspecs` prints it: *name: followed
// by the body up to a blank line.
type specSet map[string]string

func parseSpecs(text string) specSet {
	out := specSet{}
	var name string
	var body []string
	flush := func() {
		if name != "" {
			out[name] = strings.Join(body, "\n")
		}
		name, body = "", nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case name == "" && strings.HasPrefix(line, "*") && strings.HasSuffix(line, ":"):
			name = line[1 : len(line)-1]
		case name != "" && line == "":
			flush()
		case name != "":
			body = append(body, line)
		}
	}
	flush()
	return out
}

// specIncludes are the spec files link_command reads with %:include, which
// -dumpspecs does not print (it shows link_gomp empty): what they define.
var specIncludes = map[string]map[string]string{
	"libgomp.spec": {"link_gomp": "-lgomp %{static: -ldl }"},
	"libitm.spec":  {"link_itm": "-litm"},
}

// oMarker stands for %o (the user's objects and libraries) in evaluated
// link_command output.
const oMarker = "\x00%o\x00"

// specEval evaluates spec strings against the switches of one driver
// command, keeping only the text: enough to see which linker options and
// libraries the driver adds around the user's inputs. Files (%s), functions
// (%:...) and substitutions of the user's own switches (%{L*}) produce
// nothing.
type specEval struct {
	specs    specSet
	included map[string]string // specs defined by %:include
	switches []string          // the driver's switches, without the leading dash
	sanitize map[string]bool   // what -fsanitize= leaves enabled
	out      strings.Builder
	depth    int
	star     string // the suffix %* stands for inside %{S*:...}
}

func (e *specEval) has(name string) bool {
	for _, s := range e.switches {
		if s == name {
			return true
		}
	}
	return false
}

func (e *specEval) hasPrefix(p string) (string, bool) {
	for _, s := range e.switches {
		if strings.HasPrefix(s, p) {
			return s[len(p):], true
		}
	}
	return "", false
}

// run evaluates the named spec (or fallback) and appends its text.
func (e *specEval) run(name string) {
	body, ok := e.included[name]
	if !ok {
		body = e.specs[name]
	}
	e.eval(body)
}

func (e *specEval) eval(s string) {
	if e.depth > 40 { // specs referring to themselves
		return
	}
	e.depth++
	defer func() { e.depth-- }()
	for i := 0; i < len(s); {
		c := s[i]
		if c != '%' || i+1 >= len(s) {
			e.out.WriteByte(c)
			i++
			continue
		}
		d := s[i+1]
		i += 2
		switch d {
		case '%':
			e.out.WriteByte('%')
		case '{':
			end := matchBrace(s, i)
			e.conditional(s[i:end])
			i = end + 1
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return
			}
			e.run(s[i : i+end])
			i += end + 1
		case ':':
			// %:function(args): skip the call, args may nest; an
			// include defines the specs its file holds.
			j := skipCall(s, i)
			if file, ok := strings.CutPrefix(s[i:j], "include("); ok {
				for k, v := range specIncludes[strings.TrimSuffix(file, ")")] {
					if e.included == nil {
						e.included = map[string]string{}
					}
					e.included[k] = v
				}
			}
			i = j
		case 'G':
			e.run("libgcc")
		case 'L':
			e.run("lib")
		case 'l':
			e.run("link")
		case 'o':
			e.out.WriteString(" " + oMarker + " ")
		case 'e':
			return // an error message runs to the end of the body
		case '<', '>':
			for i < len(s) && !isSpace(s[i]) && s[i] != '}' {
				i++
			}
		case '@', 'W', 'x':
			if i < len(s) && s[i] == '{' {
				i = matchBrace(s, i+1) + 1
			}
		case '*':
			e.out.WriteString(e.star)
		default:
			// %s %O %u %b %d %D %S %E %X ...: files and passes, not modelled.
		}
	}
}

// matchBrace returns the index of the '}' closing a '{' that ends just
// before s[i], or len(s) if unbalanced.
func matchBrace(s string, i int) int {
	depth := 1
	for ; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s)
}

// skipCall skips "name(args)" starting at s[i], with nested parentheses.
func skipCall(s string, i int) int {
	for i < len(s) && s[i] != '(' && !isSpace(s[i]) && s[i] != '}' {
		i++
	}
	if i >= len(s) || s[i] != '(' {
		return i
	}
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// conditional evaluates the inside of %{...}: "cond:body;cond:body;:else",
// or a substitution of the user's switches ("S*"), which adds nothing here.
func (e *specEval) conditional(c string) {
	for len(c) > 0 {
		ok, body, rest, isCond := e.alternative(c)
		if !isCond {
			return
		}
		if ok {
			saved := e.star
			e.eval(body)
			e.star = saved
			return
		}
		c = rest
	}
}

// alternative parses one "cond:body" of c and whether cond holds; rest is
// what follows its ';'. isCond is false for a substitution without ':'.
func (e *specEval) alternative(c string) (ok bool, body, rest string, isCond bool) {
	i := 0
	result := true
	first := true
	op := byte('|')
	for {
		// One atom: [!] (%:func(args) | .suffix | ,lang | name[*]).
		neg := false
		if i < len(c) && c[i] == '!' {
			neg = true
			i++
		}
		var val bool
		switch {
		case strings.HasPrefix(c[i:], "%:"):
			j := skipCall(c, i+2)
			val = e.call(c[i+2 : j])
			i = j
		default:
			j := i
			for j < len(c) && !strings.ContainsRune("|&:;}", rune(c[j])) {
				j++
			}
			name := c[i:j]
			i = j
			switch {
			case strings.HasPrefix(name, ".") || strings.HasPrefix(name, ","):
				val = false // input suffix or language: not modelled
			case strings.HasSuffix(name, "*"):
				var suf string
				suf, val = e.hasPrefix(name[:len(name)-1])
				if val && !neg {
					e.star = suf
				}
			case name == "":
				val = true // the default branch ";:else"
			default:
				val = e.has(name)
			}
		}
		if neg {
			val = !val
		}
		if first {
			result, first = val, false
		} else if op == '|' {
			result = result || val
		} else {
			result = result && val
		}
		if i >= len(c) {
			return false, "", "", false
		}
		switch c[i] {
		case '|', '&':
			op = c[i]
			i++
			continue
		case ':':
			i++
		default:
			return false, "", "", false
		}
		break
	}
	// The body runs to the next ';' at this nesting level.
	depth := 0
	j := i
	for ; j < len(c); j++ {
		switch c[j] {
		case '{':
			depth++
		case '}':
			depth--
		case ';':
			if depth == 0 {
				return result, c[i:j], c[j+1:], true
			}
		}
	}
	return result, c[i:], "", true
}

// call evaluates a spec function used as a condition. Only sanitize() is
// modelled; any other (gt(), ...) is false.
func (e *specEval) call(fn string) bool {
	if strings.HasPrefix(fn, "sanitize(") && strings.HasSuffix(fn, ")") {
		return e.sanitize[fn[len("sanitize("):len(fn)-1]]
	}
	return false
}

// sanitizers folds -fsanitize= and -fno-sanitize= switches, in order.
func sanitizers(switches []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range switches {
		var on bool
		var list string
		switch {
		case strings.HasPrefix(s, "fsanitize="):
			on, list = true, s[len("fsanitize="):]
		case strings.HasPrefix(s, "fno-sanitize="):
			list = s[len("fno-sanitize="):]
		default:
			continue
		}
		for _, v := range strings.Split(list, ",") {
			if v == "all" && !on {
				clear(out)
				continue
			}
			out[v] = on
		}
	}
	return out
}

// linkerStateWords are the linker options a driver's specs may add that
// change which inputs are kept; anything else a spec adds (crt files,
// -plugin, -m, --hash-style) is not modelled.
func isStateWord(w string) bool {
	switch w {
	case "--push-state", "--pop-state", "--as-needed", "--no-as-needed",
		"-Bstatic", "-Bdynamic", "--whole-archive", "--no-whole-archive",
		"--start-group", "--end-group", "-(", "-)", "-static", "-pie", "-shared", "-no-pie":
		return true
	}
	return strings.HasPrefix(w, "-l") && len(w) > 2
}

// evalLinkCommand evaluates spec "link_command" and returns the linker
// options and libraries the driver puts before and after the user's inputs.
func evalLinkCommand(specs specSet, switches []string) (before, after []string) {
	// The driver folds -fsanitize= and -fno-sanitize= before matching
	// specs: what is left enabled is one fsanitize= switch.
	san := sanitizers(switches)
	var sw []string
	for _, s := range switches {
		if !strings.HasPrefix(s, "fsanitize=") && !strings.HasPrefix(s, "fno-sanitize=") {
			sw = append(sw, s)
		}
	}
	var on []string
	for k, v := range san {
		if v {
			on = append(on, k)
		}
	}
	if len(on) > 0 {
		sort.Strings(on)
		sw = append(sw, "fsanitize="+strings.Join(on, ","))
	}
	e := &specEval{specs: specs, switches: sw, sanitize: san}
	e.run("link_command")
	seenO := false
	for _, w := range strings.Fields(e.out.String()) {
		if w == strings.TrimSpace(oMarker) {
			seenO = true
			continue
		}
		if !isStateWord(w) {
			continue
		}
		if seenO {
			after = append(after, w)
		} else {
			before = append(before, w)
		}
	}
	return before, after
}

package pyload

import "bytes"

// triggers are the words of Python code that opens native code or
// changes how it is opened, besides importing an extension module.
var triggers = []string{"setdlopenflags", "RTLD_GLOBAL", "CDLL", "cdll", "LoadLibrary", "PyDLL",
	"import_module", "__import__", "exec(", "load_library"}

// triggerPairs has bit a<<8|b set for each trigger's first two bytes a, b.
var triggerPairs = func() (bits [1 << 16 / 64]uint64) {
	for _, t := range triggers {
		p := uint16(t[0])<<8 | uint16(t[1])
		bits[p/64] |= 1 << (p % 64)
	}
	return bits
}()

// matters reports whether a module's source can open native code: it
// holds a trigger word or names an extension module of the package not
// imported yet. A module that does neither is run only when a name is
// asked of it (a constant another module imports): reading all of torch's
// Python to find the two imports that open its libraries would take
// longer than everything else etlink does.
//
// One pass over the source does it: every trigger starts with a name
// character (looked for only there, where its first two bytes are a
// trigger's), and a module name mentioned as a whole word (Mentions) is
// a whole run of name characters.
func (r *reader) matters(src []byte) bool {
	for i := 0; i < len(src); {
		if !nameChars[src[i]] {
			i++
			continue
		}
		start := i
		for ; i < len(src) && nameChars[src[i]]; i++ {
			if i+1 < len(src) {
				if p := uint16(src[i])<<8 | uint16(src[i+1]); triggerPairs[p/64]&(1<<(p%64)) != 0 && triggerAt(src[i:]) {
					return true
				}
			}
		}
		if r.names.unopened(r, src[start:i]) {
			return true
		}
	}
	for _, n := range r.names.odd {
		if !r.isOpened(n) && Mentions(src, n.module) {
			return true
		}
	}
	return false
}

// triggerAt reports whether src starts with a trigger.
func triggerAt(src []byte) bool {
	for _, t := range triggers {
		if len(src) >= len(t) && string(src[:len(t)]) == t {
			return true
		}
	}
	return false
}

// nativeNames are the package's native modules by the name an import
// gives them, for matters to look each name of a source up.
type nativeNames struct {
	byName map[string][]native
	lens   uint64    // bit n: a name of n bytes (n < 64) is in byName
	first  [256]bool // the first bytes of those names
	odd    []native  // those whose name is no identifier: looked for with Mentions
}

func indexNatives(natives []native) nativeNames {
	ix := nativeNames{byName: map[string][]native{}}
	for _, n := range natives {
		if len(n.module) == 0 || len(n.module) >= 64 || !isName(n.module) {
			ix.odd = append(ix.odd, n)
			continue
		}
		ix.byName[n.module] = append(ix.byName[n.module], n)
		ix.lens |= 1 << len(n.module)
		ix.first[n.module[0]] = true
	}
	return ix
}

func isName(s string) bool {
	for i := range len(s) {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// unopened reports whether name is a native module's not imported yet.
func (ix *nativeNames) unopened(r *reader, name []byte) bool {
	if len(name) >= 64 || ix.lens&(1<<len(name)) == 0 || !ix.first[name[0]] {
		return false
	}
	for _, n := range ix.byName[string(name)] {
		if !r.isOpened(n) {
			return true
		}
	}
	return false
}

// isOpened reports whether a native was opened on the default import.
func (r *reader) isOpened(n native) bool { return r.opened[n.path+"\x00\x00"] }

// Mentions reports whether word occurs in src as a whole name (not a part
// of a longer identifier). An empty word is looked for at each position
// in turn (it was looked for at the first forever).
func Mentions(src []byte, word string) bool {
	for i := 0; i <= len(src); {
		j := bytes.Index(src[i:], []byte(word))
		if j < 0 {
			return false
		}
		j += i
		end := j + len(word)
		if (j == 0 || !isNameChar(src[j-1])) && (end == len(src) || !isNameChar(src[end])) {
			return true
		}
		i = j + max(len(word), 1)
	}
	return false
}

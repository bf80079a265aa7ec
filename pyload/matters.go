package pyload

import (
	"bytes"
	"sync"
)

// triggers are the words of Python code that opens native code or
// changes how it is opened, besides importing an extension module.
var triggers = []string{"setdlopenflags", "RTLD_GLOBAL", "CDLL", "cdll", "LoadLibrary", "PyDLL",
	"import_module", "__import__", "exec(", "load_library"}

// What a pair of adjacent bytes a, b says (pairs[a<<8|b]): a name ends
// at a, a name starts at b, and in the low bits which trigger starts with
// a, b (its index plus one; no two start alike).
const (
	pairEnd   = 1 << 6
	pairStart = 1 << 7
	pairWhich = pairEnd - 1
)

var (
	pairsOnce sync.Once
	pairs     *[1 << 16]uint8
)

func pairTable() *[1 << 16]uint8 {
	pairsOnce.Do(func() {
		pairs = new([1 << 16]uint8)
		for p := range pairs {
			a, b := byte(p>>8), byte(p)
			switch {
			case nameChars[a] && !nameChars[b]:
				pairs[p] = pairEnd
			case !nameChars[a] && nameChars[b]:
				pairs[p] = pairStart
			}
		}
		for i, t := range triggers {
			pairs[uint16(t[0])<<8|uint16(t[1])] |= uint8(i + 1)
		}
	})
	return pairs
}

// matters reports whether a module's source can open native code: it
// holds a trigger word or names an extension module of the package not
// imported yet. A module that does neither is run only when a name is
// asked of it (a constant another module imports): reading all of torch's
// Python to find the two imports that open its libraries would take
// longer than everything else etlink does.
//
// One pass over the source's pairs of bytes does it: most say nothing
// (inside a name, between names); a trigger is compared where its first
// two bytes are, and a module name mentioned as a whole word (Mentions)
// is a whole name, looked up where the name ends.
func (r *reader) matters(src []byte) bool {
	tab := pairTable()
	start := 0 // where the name being read starts, if one is
	for i := 0; i+1 < len(src); i++ {
		f := tab[uint16(src[i])<<8|uint16(src[i+1])]
		if f == 0 {
			continue
		}
		if w := f & pairWhich; w != 0 {
			if t := triggers[w-1]; len(src)-i >= len(t) && string(src[i:i+len(t)]) == t {
				return true
			}
		}
		switch {
		case f&pairStart != 0:
			start = i + 1
		case f&pairEnd != 0 && r.names.unopened(r, src[start:i+1]):
			return true
		}
	}
	if n := len(src); n > 0 && nameChars[src[n-1]] && r.names.unopened(r, src[start:]) {
		return true // a name at the end
	}
	for _, n := range r.names.odd {
		if !r.isOpened(n) && Mentions(src, n.module) {
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

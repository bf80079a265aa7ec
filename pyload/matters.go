package pyload

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// triggers are the words of Python code that opens native code or
// changes how it is opened, besides importing an extension module.
var triggers = []string{"setdlopenflags", "RTLD_GLOBAL", "CDLL", "cdll", "LoadLibrary", "PyDLL",
	"import_module", "__import__", "exec(", "load_library"}

// matters reports whether a module's source can open native code: it
// holds a trigger word or names an extension module of the package not
// imported yet. A module that does neither is run only when a name is
// asked of it (a constant another module imports): reading all of torch's
// Python to find the two imports that open its libraries would take
// longer than everything else etlink does.
func (r *reader) matters(src []byte) bool {
	if r.names.words(r).in(src) {
		return true
	}
	for _, n := range r.names.odd {
		if !r.isOpened(n) && Mentions(src, n.module) {
			return true
		}
	}
	return false
}

// word is one word matters looks for, found by its two bytes from at.
type word struct {
	s     string
	at    int
	whole bool // a module's name, a whole name only; a trigger anywhere
}

// wordSet finds any of its words in a source: each word by the pair of
// its adjacent bytes least common in Python source, the source's pairs
// tested against a table of those eight at a time (one load), a word
// compared only where its pair is (a few times in a thousand bytes).
// A pass that decided at every byte whether a name ends there took a
// quarter of reading torch; searching each word by its rarest byte
// (bytes.IndexByte) as long, for the words of common letters only
// (import_module, cdll, libtorch).
type wordSet struct {
	pairs  *[1 << 16]bool    // by the pair's bytes as binary.LittleEndian.Uint16 reads them
	byPair map[uint16][]word // the words found by each pair
}

func pairOf(s string, at int) uint16 { return uint16(s[at]) | uint16(s[at+1])<<8 }

// add adds a word of two bytes or more.
func (ws *wordSet) add(w word) {
	best := -1
	for i := 0; i+1 < len(w.s); i++ {
		if sc := pairScore(w.s[i : i+2]); sc > best {
			w.at, best = i, sc
		}
	}
	p := pairOf(w.s, w.at)
	ws.pairs[p] = true
	ws.byPair[p] = append(ws.byPair[p], w)
}

// clear empties the set, keeping its table.
func (ws *wordSet) clear() {
	for p := range ws.byPair {
		ws.pairs[p] = false
	}
	clear(ws.byPair)
}

// in reports whether one of the words occurs in src.
func (ws *wordSet) in(src []byte) bool {
	pairs := ws.pairs
	i := 0
	for ; i+9 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:]) // the pairs at i, i+2, ...
		y := x>>8 | uint64(src[i+8])<<56         // at i+1, i+3, ...
		if pairs[uint16(x)] || pairs[uint16(x>>16)] || pairs[uint16(x>>32)] || pairs[uint16(x>>48)] ||
			pairs[uint16(y)] || pairs[uint16(y>>16)] || pairs[uint16(y>>32)] || pairs[uint16(y>>48)] {
			if ws.at(src, i, i+8) {
				return true
			}
		}
	}
	return ws.at(src, i, len(src)-1)
}

// at reports whether a word occurs with its pair at i up to j.
func (ws *wordSet) at(src []byte, i, j int) bool {
	for ; i < j; i++ {
		p := binary.LittleEndian.Uint16(src[i:])
		if !ws.pairs[p] {
			continue
		}
		for _, w := range ws.byPair[p] {
			start, end := i-w.at, i-w.at+len(w.s)
			if start < 0 || end > len(src) || string(src[start:end]) != w.s {
				continue
			}
			if !w.whole || wholeName(src, start, end) {
				return true
			}
		}
	}
	return false
}

// commonPairs are the commonest pairs of name bytes in Python source,
// the commonest first, and commonBytes its bytes of names so (both
// counted over torch's 15 MB of it): a word is found by its pair that is
// not listed, the one of the rarest bytes among those.
const (
	commonPairs = "orinonreseeratteenarstdetolethalestirapenselchanutheetismeednte_amt_iorocondasdiodtarccenetr" +
		"itsosiimnalftyctypngicpumpounomaulpafolaefrt_sunadncurplhamo_triloeclid_ifporgcatuacaps_gernnpvezessllomts_" +
		"iizopexote(duuegreaigkeprilrsgs_clsfir__aup_d_fofbeNo_psu"
	commonBytes = "etrasonil_dpcumfh(gybwvkTxN1zC0EISDAPqR2OFLMU3VB46GH5W8K79YXQJZ"
)

// pairScore is how rare a pair of bytes is: the higher, the rarer.
func pairScore(p string) int {
	for k := 0; k < len(commonPairs); k += 2 {
		if commonPairs[k:k+2] == p {
			return k / 2
		}
	}
	return len(commonPairs)/2 + byteScore(p[0]) + byteScore(p[1])
}

func byteScore(c byte) int {
	if k := strings.IndexByte(commonBytes, c); k >= 0 {
		return k
	}
	return len(commonBytes) // rarer than any listed
}

// nativeNames are the package's native modules by the name an import
// gives them, and the words matters looks for.
type nativeNames struct {
	byName map[string][]native
	order  []string // byName's names, in the natives' order
	odd    []native // those whose name is no identifier or one byte: looked for with Mentions
	// set holds the triggers and the names not imported when it was made,
	// with len(r.opened) then: a name is dropped once imported.
	set    wordSet
	opened int
}

func indexNatives(natives []native) nativeNames {
	ix := nativeNames{byName: map[string][]native{}, opened: -1}
	for _, n := range natives {
		if len(n.module) < 2 || !isName(n.module) {
			ix.odd = append(ix.odd, n)
			continue
		}
		if ix.byName[n.module] == nil {
			ix.order = append(ix.order, n.module)
		}
		ix.byName[n.module] = append(ix.byName[n.module], n)
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

// words is the set of the triggers and the names not imported yet.
func (ix *nativeNames) words(r *reader) *wordSet {
	if ix.opened == len(r.opened) {
		return &ix.set
	}
	ix.opened = len(r.opened)
	if ix.set.pairs == nil {
		ix.set = wordSet{pairs: new([1 << 16]bool), byPair: map[uint16][]word{}}
	}
	ix.set.clear()
	for _, t := range triggers {
		ix.set.add(word{s: t})
	}
	for _, name := range ix.order {
		if ix.unopened(r, name) {
			ix.set.add(word{s: name, whole: true})
		}
	}
	return &ix.set
}

// unopened reports whether name is a native module's not imported yet.
func (ix *nativeNames) unopened(r *reader, name string) bool {
	for _, n := range ix.byName[name] {
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
		if wholeName(src, j, end) {
			return true
		}
		i = j + max(len(word), 1)
	}
	return false
}

// wholeName reports whether src[start:end] is a whole name: no name byte
// just before or just after it.
func wholeName(src []byte, start, end int) bool {
	return (start == 0 || !isNameChar(src[start-1])) && (end == len(src) || !isNameChar(src[end]))
}

package analyze

import "unsafe"

// nameIDs numbers names (names[id] is the name numbered id), looked up by
// where a name's bytes lie before the name itself: the commands read the
// closures keeping the wheel's names only, each symbol kept under the name
// set's copy (elfobj.Options.Only), the very bytes of one of the wheel's
// names. A lookup then loads a pointer instead of hashing a long mangled
// name: a bundled runtime's thousands of names are looked up in every
// library of torch's closure, twice.
type nameIDs struct {
	byName map[string]int32
	// byData numbers the names by unsafe.StringData, for a name of that
	// length only: bytes that lie at one place and have one length are
	// one name. nil where names are looked up by name only (Index).
	byData map[*byte]int32
	names  []string
}

func newNameIDs(n int) *nameIDs {
	return &nameIDs{byName: make(map[string]int32, n), byData: make(map[*byte]int32, n), names: make([]string, 0, n)}
}

// add numbers name, when it is new (added), and notes where its bytes
// lie: another copy of a name numbered before is found by its bytes too.
func (m *nameIDs) add(name string) (id int32, added bool) {
	id, ok := m.byName[name]
	if !ok {
		id = int32(len(m.names))
		m.byName[name] = id
		m.names = append(m.names, name)
	}
	if p := unsafe.StringData(name); len(name) > 0 && m.byData != nil {
		if _, taken := m.byData[p]; !taken {
			m.byData[p] = id
		}
	}
	return id, !ok
}

// lookup returns name's number.
func (m *nameIDs) lookup(name string) (int32, bool) {
	if len(name) > 0 {
		if id, ok := m.byData[unsafe.StringData(name)]; ok && len(m.names[id]) == len(name) {
			return id, true
		}
	}
	id, ok := m.byName[name]
	return id, ok
}

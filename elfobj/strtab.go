package elfobj

import (
	"strings"
	"unsafe"
)

// strTable is a string table as the readers ask it: the NUL-terminated
// string at an offset. Whole, it is the table read at once. Sparse, each
// string is read where it lies when asked: a read of the few symbols the
// index picks (Options.picks) of a large library asks a few dozen of its
// names (libtorch_cpu: 50 of 35,000, in 2.5 MB of names).
type strTable struct {
	tab    string         // the table, when whole
	src    *sectionSource // the image, when sparse
	off    uint64         // where the table starts in it
	size   int
	sparse bool
	// win is the last window read, from winAt: a library's needed names
	// lie together, as do its version names.
	win   string
	winAt int
}

func wholeTable(tab string) *strTable { return &strTable{tab: tab, size: len(tab)} }

// len is the table's size in bytes.
func (s *strTable) len() int { return s.size }

// at is the string at start and whether it is terminated inside the table
// (tabStringOK's answer).
func (s *strTable) at(start int) (string, bool) {
	rest, at := s.window(start)
	if at < 0 {
		return "", false
	}
	return tabStringOK(rest, at)
}

// window returns a string holding the table's bytes from start to its
// first NUL (included) or to the table's end, and where start is in it;
// -1 when start is outside the table (or the image could not be read).
// Whole, that is the table itself.
func (s *strTable) window(start int) (string, int) {
	if start < 0 || start >= s.size {
		return "", -1
	}
	if !s.sparse {
		return s.tab, start
	}
	if at := start - s.winAt; at >= 0 && at < len(s.win) && strings.IndexByte(s.win[at:], 0) >= 0 {
		return s.win, at
	}
	// Most names are short; a mangled C++ name can run to kilobytes.
	n := min(s.size-start, 256)
	for {
		b, ok := s.src.read(s.off+uint64(start), uint64(n))
		if !ok {
			return "", -1
		}
		w := unsafe.String(unsafe.SliceData(b), len(b))
		if strings.IndexByte(w, 0) >= 0 || start+n == s.size {
			s.win, s.winAt = w, start
			return w, 0
		}
		n = min(s.size-start, 4*n)
	}
}

// terminated reports whether the table ends in a NUL byte, as the ELF
// specification asks of every string table: else its last string runs
// past its end (debug/elf reads it as empty; the loader reads on into
// whatever follows the table).
func (s *strTable) terminated() bool {
	if s.size == 0 {
		return true
	}
	w, at := s.window(s.size - 1)
	return at < 0 || w[at] == 0 // unreadable: the read that needs it declines
}

// string is tabString's: the string at start, "" when there is none.
func (s *strTable) string(start int) string {
	str, _ := s.at(start)
	return str
}

//go:build !linux

package elfobj

import "github.com/etlink/etlink/datafile"

// mapFile maps nothing here: the tables are read.
func (src *sectionSource) mapFile(lo, hi uint64) bool { return false }

func unmap([]byte) {}

// mapWhole reads the file here.
func mapWhole(path string, limit int64) ([]byte, func(), error) {
	data, err := datafile.ReadFile(path, limit)
	return data, func() {}, err
}

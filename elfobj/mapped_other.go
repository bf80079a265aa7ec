//go:build !linux

package elfobj

// mapFile maps nothing here: the tables are read.
func (src *sectionSource) mapFile(lo, hi uint64) bool { return false }

func unmap([]byte) {}

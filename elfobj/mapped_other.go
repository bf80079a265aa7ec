//go:build !linux

package elfobj

// mapFile maps nothing here: the tables are read.
func (src *sectionSource) mapFile() bool { return false }

func unmap([]byte) {}

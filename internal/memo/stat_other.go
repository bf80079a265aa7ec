//go:build !linux

package memo

import "os"

// inodeAndChange are 0 here: size and modification time witness alone.
func inodeAndChange(os.FileInfo) (uint64, int64) { return 0, 0 }

// statWitness is p as a stat of it says (not followed if link).
func statWitness(p string, link bool) Witness {
	stat := os.Stat
	if link {
		stat = os.Lstat
	}
	fi, err := stat(p)
	if err != nil {
		return Witness{Path: p, Link: link}
	}
	w := WitnessOfInfo(p, fi)
	w.Link = link
	return w
}

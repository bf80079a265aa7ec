//go:build !linux

package elfobj

import "github.com/etlink/etlink/datafile"

// mapWhole reads the file here.
func mapWhole(path string, limit int64) ([]byte, func(), error) {
	data, err := datafile.ReadFile(path, limit)
	return data, func() {}, err
}

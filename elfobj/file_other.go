//go:build !linux

package elfobj

import (
	"io/fs"
	"os"
)

// openRead opens p for reading; it returns the file's size and type.
func openRead(p string) (readFile, int64, fs.FileMode, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, 0, err
	}
	return f, fi.Size(), fi.Mode().Type(), nil
}

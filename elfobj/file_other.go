//go:build !linux

package elfobj

import (
	"io/fs"
	"os"
)

// openRead opens p for reading; it returns the file's size and type, and
// no identity (the index is not used).
func openRead(p string) (readFile, int64, fs.FileMode, fileID, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, 0, fileID{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, 0, fileID{}, err
	}
	return f, fi.Size(), fi.Mode().Type(), fileID{}, nil
}

// statID gives no identity here (the index is not used).
func statID(string) (fileID, bool) { return fileID{}, false }

// infoID gives no identity here either.
func infoID(fs.FileInfo) (fileID, bool) { return fileID{}, false }

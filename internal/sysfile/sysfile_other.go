//go:build !linux

package sysfile

import (
	"io/fs"
	"os"
)

// Scan is the Linux one's through os.Stat and os.ReadDir (sorted).
func Scan(dir string, buf []byte, each func(name []byte, typ fs.FileMode)) (fs.FileInfo, []byte, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, buf, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, buf, err
	}
	for _, e := range entries {
		each([]byte(e.Name()), e.Type())
	}
	return info, buf, nil
}

// Append is the Linux one's through os.Open.
func Append(path string, buf []byte, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	buf = ReadUpTo(f, buf, limit)
	return buf, nil
}

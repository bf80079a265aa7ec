package datafile

import "strconv"

// Error is an input etlink could not use: the file it names (with the line,
// when one line of a text file is at fault) and why. Every reader of
// inputs returns it, so that a command lists the failed input by its path
// without taking the message apart.
type Error struct {
	Path string
	Line int // 0: the file as a whole
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return e.Path + ":" + strconv.Itoa(e.Line) + ": " + e.Err.Error()
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

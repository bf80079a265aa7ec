package elfobj

import (
	"debug/elf"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// VersionNeed is one library an image needs symbol versions from, as its
// .gnu.version_r records them (readelf -V): libc.so.6, [GLIBC_2.14 ...].
type VersionNeed struct {
	Library  string
	Versions []string
}

// ReadVersionNeeds reads the version needs of o's file. It is for the few
// libraries a question reaches that the search may have read only in part
// (the index answers for their names, not their needs): the headers, the
// needs table (a few hundred bytes) and each name where it lies in the
// string table (the file was charged to the run's budget when the search
// opened it). An object inside a wheel or an archive has no file of its
// own; its needs are its symbols'.
func ReadVersionNeeds(o *Object) (needs []VersionNeed, err error) {
	if o.Wheel != "" || o.Archive != "" {
		return nil, errorf(o.Path, "not a file of its own")
	}
	path := o.Real
	if path == "" {
		path = o.Path
	}
	f, fi, err := datafile.Open(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	defer f.Close()
	defer func() {
		if p := recover(); p != nil {
			needs, err = nil, errorf(path, "malformed ELF (reader panicked: %v)", p)
		}
	}()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil, errorf(path, "%v", err)
	}
	vn := ef.SectionByType(elf.SHT_GNU_VERNEED)
	if vn == nil {
		return nil, nil
	}
	malformed := errorf(path, "malformed ELF: unreadable version needs (%s)", vn.Name)
	if !plain(vn) || vn.Link == 0 || int(vn.Link) >= len(ef.Sections) || !plain(ef.Sections[vn.Link]) {
		return nil, malformed
	}
	src := newSource(f, fi.Size())
	defer src.close()
	strSec := ef.Sections[vn.Link]
	data, ok := src.bytes(vn)
	if !ok || !src.inFile(strSec) {
		return nil, malformed
	}
	str := &strTable{src: src, off: strSec.Offset, size: int(strSec.FileSize), sparse: true}
	at := map[string]int{}
	ok = versionRecords(ef.ByteOrder, nil, data, func(uint16, uint32, bool) {}, func(_ uint16, file, name uint32) {
		lib := strings.Clone(str.string(int(file)))
		i, seen := at[lib]
		if !seen {
			i = len(needs)
			at[lib] = i
			needs = append(needs, VersionNeed{Library: lib})
		}
		needs[i].Versions = append(needs[i].Versions, strings.Clone(str.string(int(name))))
	})
	if !ok {
		return nil, malformed
	}
	return needs, nil
}

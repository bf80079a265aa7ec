package linkline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/etlink/etlink/datafile"
)

// kindByName classifies a path by its name: .o, .a, .so and .so.N.
func kindByName(p string) Kind {
	base := filepath.Base(p)
	switch ext := filepath.Ext(base); ext {
	case ".o", ".obj", ".lo":
		return KindObject
	case ".a":
		return KindArchive
	case ".so":
		return KindShared
	case ".ld", ".lds", ".x":
		return KindScript
	}
	if isSourceFile(base) {
		return KindObject
	}
	if i := strings.Index(base, ".so."); i > 0 && isVersion(base[i+4:]) {
		return KindShared
	}
	return KindUnknown
}

// isSourceFile reports whether the driver would compile the file before
// linking the object it makes.
func isSourceFile(p string) bool {
	switch filepath.Ext(p) {
	case ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP", ".m", ".mm", ".M",
		".s", ".S", ".sx", ".asm", ".f", ".f90", ".F", ".F90", ".for", ".i", ".ii":
		return true
	}
	return false
}

// sniff classifies an existing file by its contents: ELF type, ar magic,
// and text (a linker script, as Debian's libc.so is). ok is false when the
// file cannot be read.
func sniff(p string) (Kind, bool) {
	f, _, err := datafile.Open(p)
	if err != nil {
		return KindUnknown, false
	}
	defer f.Close()
	var head [64]byte
	n, _ := f.Read(head[:])
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte("!<arch>\n")), bytes.HasPrefix(b, []byte("!<thin>\n")):
		return KindArchive, true
	case bytes.HasPrefix(b, []byte("\x7fELF")) && n >= 18:
		var typ uint16
		if b[5] == 2 {
			typ = binary.BigEndian.Uint16(b[16:])
		} else {
			typ = binary.LittleEndian.Uint16(b[16:])
		}
		switch typ {
		case 1:
			return KindObject, true
		case 3:
			return KindShared, true
		}
		return KindUnknown, true
	case n > 0 && isText(b):
		return KindScript, true
	}
	return KindUnknown, true
}

func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && !isSpace(c) {
			return false
		}
	}
	return true
}

// fileKind is the cached sniff of a path; found is false when the path
// does not exist.
func (s *session) fileKind(p string) (k Kind, found bool) {
	if r, ok := s.kinds[p]; ok {
		return r.kind, r.found
	}
	if !s.mayExist(p) {
		s.kinds[p] = kindResult{}
		return KindUnknown, false
	}
	fi, err := os.Stat(p)
	if err == nil && fi.Mode().IsRegular() {
		k, found = sniff(p)
	}
	s.kinds[p] = kindResult{k, found}
	return k, found
}

// mayExist answers from cached directory listings whether p can exist: a
// configured but unbuilt tree names thousands of files in directories that
// do not exist yet, and one listing answers for all of them.
func (s *session) mayExist(p string) bool {
	dir, base := filepath.Split(filepath.Clean(p))
	if dir == "" || base == "" || dir == "/" {
		return true
	}
	names, ok := s.listDir(filepath.Clean(dir))
	return !ok || names[base]
}

// listDir returns the names in dir; ok is false when it cannot tell (the
// directory exists but cannot be listed, or is too large to keep).
func (s *session) listDir(dir string) (names map[string]bool, ok bool) {
	if d, seen := s.dirs[dir]; seen {
		return d.names, d.ok
	}
	var res dirListing
	parent, base := filepath.Split(dir)
	if parent != "" && base != "" && parent != "/" {
		if pn, pok := s.listDir(filepath.Clean(parent)); pok && !pn[base] {
			res = dirListing{names: map[string]bool{}, ok: true} // the dir does not exist
			s.dirs[dir] = res
			return res.names, res.ok
		}
	}
	f, err := os.Open(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res = dirListing{names: map[string]bool{}, ok: true}
	case err != nil:
	default:
		list, err := f.Readdirnames(maxListing + 1)
		f.Close()
		if (err == nil || errors.Is(err, io.EOF)) && len(list) <= maxListing {
			res = dirListing{names: make(map[string]bool, len(list)), ok: true}
			for _, n := range list {
				res.names[n] = true
			}
		}
	}
	s.dirs[dir] = res
	return res.names, res.ok
}

// maxListing bounds the directories mayExist keeps in memory.
const maxListing = 20000

type dirListing struct {
	names map[string]bool
	ok    bool
}

type kindResult struct {
	kind  Kind
	found bool
}

// lookup finds -lNAME (or -l:FILE) in dirs as GNU ld does: in each dir in
// turn libNAME.so then libNAME.a, only libNAME.a under -Bstatic.
func (s *session) lookup(name string, static bool, dirs []string, dirsKey string) string {
	key := lookupKey{name, static, dirsKey}
	if p, ok := s.found[key]; ok {
		return p
	}
	var cands []string
	switch {
	case strings.HasPrefix(name, ":"):
		cands = []string{name[1:]}
	case static:
		cands = []string{"lib" + name + ".a"}
	default:
		cands = []string{"lib" + name + ".so", "lib" + name + ".a"}
	}
	found := ""
search:
	for _, d := range dirs {
		for _, c := range cands {
			p := filepath.Join(d, c)
			if _, ok := s.fileKind(p); ok {
				found = p
				break search
			}
		}
	}
	s.found[key] = found
	return found
}

type lookupKey struct {
	name    string
	static  bool
	dirsKey string
}

// withSysroot applies ld's "=" prefix (relative to the sysroot) to a dir.
func withSysroot(d, sysroot string) string {
	if rest, ok := strings.CutPrefix(d, "="); ok {
		if sysroot == "" {
			sysroot = "/"
		}
		return filepath.Join(sysroot, rest)
	}
	return d
}

// resolve fills Path and Kind of every input, now that all -L are known.
// dirs is the search order: the driver's -L, the driver's own dirs, the
// linker's -L, the linker's built-in dirs.
func (m *machine) resolve(dirs []string) {
	for i := range dirs {
		dirs[i] = withSysroot(dirs[i], m.link.Sysroot)
		if !filepath.IsAbs(dirs[i]) && m.dir != "" {
			dirs[i] = filepath.Join(m.dir, dirs[i])
		}
	}
	key := strings.Join(dirs, "\x00")
	for i := range m.inputs {
		in := &m.inputs[i]
		switch {
		case m.isLib[i]:
			in.Path = m.s.lookup(in.Name, in.State.Static, dirs, key)
			if in.Path == "" {
				in.Kind = KindLib
				break
			}
			in.Kind = kindByName(in.Path)
			if k, _ := m.s.fileKind(in.Path); k != KindUnknown {
				in.Kind = k
			}
		case isSourceFile(in.Name) && in.Kind == KindUnknown:
			// Compiled by the driver into a temporary object.
			in.Kind = KindObject
		default:
			if in.Kind == KindUnknown {
				in.Kind = kindByName(in.Name)
			}
			path := in.Name
			if !filepath.IsAbs(path) && m.dir != "" {
				path = filepath.Join(m.dir, path)
			}
			if k, ok := m.s.fileKind(path); ok {
				in.Path = path
				if k != KindUnknown && in.Kind != KindScript {
					in.Kind = k
				}
			}
		}
	}
	m.link.Inputs = m.inputs
}

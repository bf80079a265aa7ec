package elfobj

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"github.com/etlink/etlink/internal/budget"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/symset"
)

// Options tune Open.
type Options struct {
	// Budget is the run's (nil: no limits): every ELF file and archive
	// opened is charged its size (a wheel, by ReadWheel) and each ELF
	// file and archive member one object, whether or not the index
	// answers for it, so that the cache never changes whether it trips.
	Budget *budget.Budget
	// Limits bound what reading a wheel may decompress; zero fields take
	// DefaultLimits.
	Limits Limits
	// Workers is how many files are read at once; 0 means as many as
	// Procs gives.
	Workers int
	// Procs are the processors the run gives its reads (nil: GOMAXPROCS,
	// as it stands): the session decides how many, not the reader.
	Procs Processors
	// Initializers also reads each object's static initializers and what
	// they call (relocations, and for shared objects disassembly): the
	// retention rules need it, the symbol comparisons do not.
	Initializers bool
	// References also reads the dynamic relocation sections of shared
	// objects and executables, for Symbol.Relocated and Symbol.Copied: the
	// binding model needs them for the objects it compares, not for every
	// library of a closure.
	References bool
	// Only, when set, keeps in Symbols only the symbols it holds (and
	// marks the Object Partial): a conflict check needs a few thousand of
	// the hundreds of thousands of symbols a large closure holds. Where a
	// shared object has a GNU hash table and Only no prefixes, its names
	// are looked up in the table as ld.so looks them up, and only the
	// symbols the table leaves out (the undefined ones) are read one by
	// one; elsewhere every symbol is read and tested.
	Only *symset.Set
	// OnlyDefs, with Only, also keeps the definitions (not the references)
	// of the names it holds: check asks where the wheel's undefined names
	// are defined, not which other library refers to them.
	OnlyDefs *symset.Set
	// ModuleInit, with Only, also keeps each file's PyInit_ function
	// (ModuleInit): the one Python calls to import it.
	ModuleInit bool
	// Index, with Only, answers for the libraries OpenFile reads that it
	// knows hold none of the names asked for, and learns the others: the
	// hash of every name, which picks the symbols a read keeps, so that
	// the learning read itself reads only the picked symbols' names.
	Index *Index
	// picks, set by the index for a library it knows, are the symbols
	// that may hold a name asked for: only they are decoded, each read
	// where it lies when they are few (sparsePicks).
	picks []int
}

// Processors are a run's processors, as the session that reads decides
// them (analyze keeps a run that looks up on one until it reads): Max is
// how many a read may spread over, Widen says a file is being read, not
// looked up in the index.
type Processors interface {
	Max() int
	Widen()
}

// maxProcs is how many processors opt's reads may use.
func (o Options) maxProcs() int {
	if o.Procs == nil {
		return runtime.GOMAXPROCS(0)
	}
	return o.Procs.Max()
}

// widen tells opt's processors a file is read.
func (o Options) widen() {
	if o.Procs != nil {
		o.Procs.Widen()
	}
}

// keeps says whether a symbol of this name, a definition or not, is kept
// by Only, OnlyDefs and init (the file's ModuleInit name, or "").
func (o Options) keeps(name string, defined bool, init string) bool {
	return o.Only.Has(name) || defined && o.OnlyDefs != nil && o.OnlyDefs.Has(name) || init != "" && name == init
}

// ModuleInit is the function Python's import calls in the extension module
// at path: PyInit_ and the file's name up to its first dot (a module
// foo.cpython-311-x86_64-linux-gnu.so or foo.so is the module foo). A path
// inside a wheel names its entry after the "!".
func ModuleInit(path string) string {
	base := path[strings.LastIndexAny(path, "/!")+1:]
	stem, _, _ := strings.Cut(base, ".")
	return "PyInit_" + stem
}

// initName is the PyInit_ name kept with Only for the file at path, or "".
func (o Options) initName(path string) string {
	if o.Only == nil || !o.ModuleInit {
		return ""
	}
	return ModuleInit(path)
}

// input is one file Open reads, or the error of a path it could not list.
type input struct {
	path     string
	real     string // absolute, symlinks resolved: identifies the file
	explicit bool   // named by the caller, so not recognising it is an error
	size     int64  // when a stat on the way told it, else 0
	err      error
}

// result is what reading one input produced.
type result struct {
	objs []*Object
	errs []error
}

// Open reads every ELF image reachable from paths: ELF files, ar archives
// (each member an Object with Path "lib.a(member.o)", Archive and Member
// set), .whl files, and directories walked recursively, where ELF files and
// archives are found by magic (not by name) and wheels by name and zip magic.
// Symlinks to files are followed, symlinked directories are not (so links
// cannot make the walk loop); a symlinked directory named in paths is walked.
// A link found while walking that leads to no file comes back as an error
// wrapping ErrDanglingLink.
//
// Objects come back sorted by Path (archive members in archive order) and deduplicated by Real: a file reached
// under several names (libfoo.so.1 -> libfoo.so.1.2) appears once, under the
// name that sorts first. errs holds one *Error per input (per wheel entry,
// per archive member) that could not be read; one bad input never stops the
// others. A path given explicitly that is not ELF, an archive or a wheel is an
// error; such a file found while walking a directory is skipped.
func Open(paths []string, opt Options) (objs []*Object, errs []error) {
	return OpenStream(paths, opt, Stream{})
}

// Stream lets a caller act on what Open reads while it is still reading:
// the loader starts on a library's DT_NEEDED entries as soon as it is read.
type Stream struct {
	// Listed, when set, receives the files about to be read, once, before
	// any is read: their real paths, and the paths their objects will be
	// named by (paths[i] is the file reals[i]).
	Listed func(reals, paths []string)
	// Read, when set, receives each listed file's objects as soon as it
	// has been read (none when it failed or is not ELF), from the
	// goroutine that read it; exactly once per real path Listed gave.
	Read func(real string, objs []*Object)
	// Drop keeps nothing Read was given: OpenStream returns the errors
	// only, and memory holds the files being read, not every file read.
	Drop bool
}

// OpenStream is Open, telling s what it reads as it reads it. It returns
// what Open returns.
func OpenStream(paths []string, opt Options, s Stream) (objs []*Object, errs []error) {
	inputs := dedupe(collect(paths))
	if s.Listed != nil {
		var reals, named []string
		for _, in := range inputs {
			if in.err == nil {
				reals, named = append(reals, in.real), append(named, in.path)
			}
		}
		s.Listed(reals, named)
	}
	results := make([]result, len(inputs))
	workers := opt.Workers
	if workers <= 0 {
		var size int64
		for _, in := range inputs {
			size += in.size
		}
		if size > wideInputs && !opt.Index.indexable(opt) { // read in full, the index never asked
			opt.widen()
		}
		workers = opt.maxProcs() // on one processor while narrowed, on all once a read widens it
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(inputs)) {
		wg.Go(func() {
			for i := range jobs {
				results[i] = readInput(inputs[i], opt)
				if s.Read != nil && inputs[i].err == nil {
					s.Read(inputs[i].real, results[i].objs)
				}
				if s.Drop {
					results[i].objs = nil
				}
			}
		})
	}
	// Largest first: a large library read last keeps one worker busy
	// while the others have nothing left. Sizes not known come after.
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(inputs[b].size, inputs[a].size) })
	for _, i := range order {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, r := range results {
		objs = append(objs, r.objs...)
		errs = append(errs, r.errs...)
	}
	return sortObjects(objs), errs
}

// wideInputs is the size of inputs read in full worth every processor
// (Processors.Widen).
const wideInputs = 8 << 20

// SortKey is what Open orders objects by (stably, in reading order
// otherwise): the Path, or an archive member's archive.
func SortKey(o *Object) string {
	if o.Archive != "" {
		return o.Archive
	}
	return o.Path
}

// sortObjects orders objects by Path, archive members by their archive's
// path and then in archive order (the order a linker scans them), and keeps
// the first of those sharing a Real file.
func sortObjects(objs []*Object) []*Object {
	return Order(objs, SortKey, func(o *Object) string { return o.Real })
}

// Order sorts items that stand for objects, given in reading order, as Open
// orders the objects (stably by key: SortKey) and keeps the first of those
// sharing a real file ("" is no file).
func Order[T any](items []T, key, real func(T) string) []T {
	slices.SortStableFunc(items, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	seen := make(map[string]bool, len(items))
	out := items[:0]
	for _, it := range items {
		if r := real(it); r != "" {
			if seen[r] {
				continue
			}
			seen[r] = true
		}
		out = append(out, it)
	}
	return out
}

// collect lists the files named by paths and found under the directories
// among them, in order, and the errors of the paths that could not be listed.
func collect(paths []string) []input {
	var in []input
	for _, p := range paths {
		p = filepath.Clean(p)
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			in = append(in, input{path: p, err: ioError(p, err)})
		case fi.IsDir():
			in = walk(p, in)
		case !fi.Mode().IsRegular():
			in = append(in, input{path: p, err: errorf(p, "not a regular file but %s", datafile.Kind(fi.Mode()))})
		default:
			in = append(in, input{path: p, explicit: true, size: fi.Size()})
		}
	}
	return in
}

// walk appends the regular files under dir, in lexical order. Symlinks to
// directories are not followed; devices, pipes and sockets are skipped (a
// FIFO would block the read).
func walk(dir string, in []input) []input {
	ents, err := os.ReadDir(dir)
	if err != nil {
		in = append(in, input{path: dir, err: ioError(dir, err)})
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch t := e.Type(); {
		case t.IsDir():
			in = walk(p, in)
		case t.IsRegular():
			in = append(in, input{path: p})
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(p)
			switch {
			case err == nil && fi.Mode().IsRegular():
				in = append(in, input{path: p, size: fi.Size()})
			case err != nil:
				in = append(in, input{path: p, err: dangling(p, err)})
			}
		}
	}
	return in
}

// ErrDanglingLink is the reason of an *Error for a symbolic link, found
// while walking a directory, that leads to no file (its target is missing,
// or links loop). It is reported, not read: callers decide whether a tree
// that ships one is broken.
var ErrDanglingLink = errors.New("symbolic link leads to no file")

func dangling(p string, err error) *Error {
	target, _ := os.Readlink(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{Path: p, Err: fmt.Errorf("%w: %s does not exist", ErrDanglingLink, target)}
	}
	return &Error{Path: p, Err: fmt.Errorf("%w: %s: %v", ErrDanglingLink, target, unwrapPathError(err))}
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// dedupe resolves each file's real path and keeps one input per real file:
// the one whose name sorts first, explicit if any of its names was.
func dedupe(in []input) []input {
	first := map[string]int{}
	out := in[:0]
	for _, x := range in {
		if x.err != nil {
			out = append(out, x)
			continue
		}
		x.real = realPath(x.path)
		i, ok := first[x.real]
		if !ok {
			first[x.real] = len(out)
			out = append(out, x)
			continue
		}
		if x.path < out[i].path {
			out[i].path = x.path
		}
		out[i].explicit = out[i].explicit || x.explicit
	}
	return out
}

// realPath identifies a file: absolute, symlinks resolved. It falls back to
// the absolute path when resolution fails (the file vanished meanwhile).
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// readInput reads one file by its magic. A panic is a bug in this package,
// but one input must not take the others down with it.
func readInput(in input, opt Options) (res result) {
	if in.err != nil {
		return result{errs: []error{in.err}}
	}
	defer func() {
		if p := recover(); p != nil {
			res = result{errs: []error{errorf(in.path, "internal error reading the file: %v", p)}}
		}
	}()
	file, size, id, err := openRegular(in.path)
	if err != nil {
		return result{errs: []error{err}}
	}
	x := opt.Index
	o, opt := x.consult(in.path, in.real, id, opt)
	if o != nil {
		// Charged as the read it saves (below): the index knows ELF files
		// only.
		file.Close()
		if err := charge(opt.Budget, in.path, size, true); err != nil {
			return result{errs: []error{err}}
		}
		return result{objs: []*Object{o}}
	}
	f, size, err := readHead(in.path, file, size)
	if err != nil {
		return result{errs: []error{err}}
	}
	defer f.Close()
	head := f.head
	// A wheel is charged by ReadWheel, a file of another kind not at all
	// (only its head is read).
	isELF, isAr := IsELF(head), IsArchive(head)
	if isELF || isAr {
		if err := charge(opt.Budget, in.path, size, isELF); err != nil {
			return result{errs: []error{err}}
		}
	}
	switch {
	case isELF:
		o, err := Parse(in.path, originDir(in.path), f.headReader, size, opt)
		if err != nil {
			return result{errs: []error{err}}
		}
		o.Real = in.real
		x.learn(id, o, opt)
		return result{objs: []*Object{o}}
	case isAr:
		a, err := ReadArchive(in.path, f, size)
		if err != nil {
			return result{errs: []error{err}}
		}
		objs, errs := memberObjects(a, f, opt)
		return result{objs, errs}
	case isWheel(in.path, head):
		objs, errs := ReadWheel(in.path, f, size, opt)
		return result{objs, errs}
	case in.explicit:
		return result{errs: []error{errorf(in.path, "not an ELF file, ar archive or wheel")}}
	}
	return result{}
}

// isWheel: wheels are zips named *.whl; a zip starts with a local file header,
// or with the end-of-directory record when empty.
func isWheel(name string, head []byte) bool {
	return strings.EqualFold(filepath.Ext(name), ".whl") &&
		(bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06")))
}

// readFile is an open input: read at offsets, then closed.
type readFile interface {
	io.ReaderAt
	io.Closer
}

// headFile is an open input and its first bytes (head), read at once:
// every magic Open knows, and the ELF and program headers Parse decodes,
// which it serves from them.
type headFile struct {
	*headReader
	f   readFile
	buf *[headSize]byte // head's array, from headBufs
}

// headBufs holds the arrays heads are read into: one per file being read.
var headBufs = sync.Pool{New: func() any { return new([headSize]byte) }}

// Close closes the file; its head may not be used after.
func (h headFile) Close() error {
	headBufs.Put(h.buf)
	return h.f.Close()
}

// openHead opens a regular file and reads its head.
func openHead(p string) (headFile, int64, error) {
	f, size, _, err := openRegular(p)
	if err != nil {
		return headFile{}, 0, err
	}
	return readHead(p, f, size)
}

// openRegular opens a regular file; it returns its size and identity.
func openRegular(p string) (readFile, int64, fileID, error) {
	f, size, mode, id, err := openRead(p)
	if err != nil {
		return nil, 0, id, ioError(p, err)
	}
	if !mode.IsRegular() {
		f.Close()
		return nil, 0, id, ioError(p, fmt.Errorf("not a regular file but %s", datafile.Kind(mode)))
	}
	return f, size, id, nil
}

// readHead reads the head of f, the file p of size bytes; f is closed on
// an error.
func readHead(p string, f readFile, size int64) (headFile, int64, error) {
	buf := headBufs.Get().(*[headSize]byte)
	n, err := f.ReadAt(buf[:min(size, headSize)], 0)
	if err != nil && err != io.EOF {
		f.Close()
		headBufs.Put(buf)
		return headFile{}, 0, ioError(p, err)
	}
	return headFile{&headReader{r: f, head: buf[:n]}, f, buf}, size, nil
}

// memberObjects parses the ELF members of an archive whose data r holds (or,
// for thin archives, the files they name). Other members (LTO bitcode, Go's
// __.PKGDEF, text) are skipped: they are not ELF images.
func memberObjects(a *Archive, r io.ReaderAt, opt Options) ([]*Object, []error) {
	var objs []*Object
	var errs []error
	for _, m := range a.Members {
		name := a.Path + "(" + m.Name + ")"
		if err := opt.Budget.Charge(budget.Objects, 1, name); err != nil {
			// Every later member would fail the same way: one error.
			return objs, append(errs, &Error{Path: name, Err: err})
		}
		o, err := parseMember(name, m, r, opt)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if o != nil {
			o.Archive, o.Member = a.Path, m.Name
			objs = append(objs, o)
		}
	}
	return objs, errs
}

// parseMember parses one archive member; nil without error when it is not ELF.
func parseMember(name string, m Member, r io.ReaderAt, opt Options) (*Object, error) {
	size := m.Size
	if m.External != "" {
		f, fsize, err := openHead(m.External)
		if err != nil {
			return nil, errorf(name, "thin archive member: %w", err)
		}
		defer f.Close()
		r, size = f.headReader, fsize
	} else {
		r = io.NewSectionReader(r, m.DataOffset, m.Size)
	}
	head := make([]byte, len(elfMagic))
	if n, _ := r.ReadAt(head, 0); !IsELF(head[:n]) {
		return nil, nil
	}
	return Parse(name, "", r, size, opt)
}

// OpenFile reads one ELF file on disk, for the loader's search. Dir is the
// directory of path as given, not of the file symlinks lead to: glibc sets a
// library's $ORIGIN from the name it opened (elf/dl-object.c, _dl_new_object
// strips the last component of realname, the search result, without
// resolving links). Only the main program's origin comes from
// /proc/self/exe, which resolves them; loader searches open libraries.
//
// real is the file after symlinks when the caller knows it ("": resolved here).
func OpenFile(path, real string, opt Options) (*Object, error) {
	return openFile(path, real, nil, opt)
}

// OpenStat is OpenFile for a regular file the caller has just looked at:
// fi is the Lstat of real. A library the index answers is identified by
// it, not looked at again.
func OpenStat(path, real string, fi fs.FileInfo, opt Options) (*Object, error) {
	return openFile(path, real, fi, opt)
}

func openFile(path, real string, fi fs.FileInfo, opt Options) (*Object, error) {
	asked := opt
	if real == "" && asked.Index.indexable(asked) {
		real = realPath(path)
	}
	// A library the index answers is not even opened: a stat identifies
	// it (one system call for open, fstat and close; most of a closure).
	// It is charged its size all the same, before the index is asked:
	// whether the budget trips does not depend on the cache.
	var o *Object
	var statted fileID
	charged := false
	if asked.Index.indexable(asked) {
		id, ok := infoID(fi)
		if !ok {
			id, ok = statID(real)
		}
		if ok {
			if err := charge(opt.Budget, path, id.size, true); err != nil {
				return nil, err
			}
			charged = true
			if o, opt = asked.Index.consult(path, real, id, asked); o != nil {
				return o, nil
			}
			statted = id
		}
	}
	file, size, id, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	if !charged {
		if err := charge(opt.Budget, path, size, true); err != nil {
			file.Close()
			return nil, err
		}
	}
	if id != statted { // not looked up yet, or replaced since the stat
		if o, opt = asked.Index.consult(path, real, id, asked); o != nil {
			file.Close()
			return o, nil
		}
	}
	f, size, err := readHead(path, file, size)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !IsELF(f.head) {
		return nil, errorf(path, "not an ELF file")
	}
	o, err = Parse(path, originDir(path), f.headReader, size, opt)
	if err != nil {
		return nil, err
	}
	if o.Real = real; real == "" {
		o.Real = realPath(path)
	}
	asked.Index.learn(id, o, asked)
	return o, nil
}

// charge spends on the run's budget what reading the file at path costs:
// its size, and an object for an ELF image (an archive's are charged as
// its members are read). Past the budget, the error names the file.
func charge(b *budget.Budget, path string, size int64, image bool) error {
	err := b.Charge(budget.Read, size, path)
	if err == nil && image {
		err = b.Charge(budget.Objects, 1, path)
	}
	if err != nil {
		return &Error{Path: path, Err: err}
	}
	return nil
}

// ioError words an os error as "PATH: op: reason"; *fs.PathError would
// repeat the path.
func ioError(path string, err error) *Error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &Error{Path: path, Err: fmt.Errorf("%s: %w", pe.Op, pe.Err)}
	}
	return &Error{Path: path, Err: err}
}

// originDir is the directory $ORIGIN expands to for the file at path:
// absolute, whatever the path the user typed (etlink check out/stage and
// etlink check /abs/out/stage find the same libraries, as ld.so does).
func originDir(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return filepath.Dir(abs)
	}
	return filepath.Dir(path)
}

package elfobj

import (
	"archive/zip"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/internal/budget"
)

// Limits bound what reading one wheel may decompress. Entries are inflated
// as streams, keeping only the ranges Parse reads (sparse.go), so the
// limits bound time, not memory: a zip bomb or a lying size header would
// otherwise cost minutes; a zero field means the default.
type Limits struct {
	// MaxEntry is the most bytes one entry may inflate to.
	MaxEntry int64
	// MaxTotal is the most bytes all entries read from one wheel may inflate to.
	MaxTotal int64
	// MaxRatio is the highest uncompressed:compressed ratio accepted for an
	// entry larger than ratioFloor. Real shared libraries deflate 2:1 to
	// 6:1 (every library over 1 MB of Debian 12's /usr/lib, libtorch_cpu
	// and libLLVM included); deflate reaches 1032:1 only on padding crafted
	// to expand.
	MaxRatio int64
}

// DefaultLimits admit the largest real wheels (torch ships single libraries
// of several hundred MB).
var DefaultLimits = Limits{MaxEntry: 4 << 30, MaxTotal: 16 << 30, MaxRatio: 200}

// inflight bounds the bytes of wheel entries kept at once across the run
// (an ELF entry's kept ranges, an archive entry whole): readers of several
// wheels (Open reads inputs in parallel) wait for each other rather than
// hold gigabytes together. With the garbage collector's headroom (the heap
// grows to twice what is live) it keeps a run under 1 GB.
var inflight = newByteBudget(maxKept)

type byteBudget struct {
	mu   sync.Mutex
	cond *sync.Cond
	free int64
	max  int64
}

func newByteBudget(n int64) *byteBudget {
	b := &byteBudget{free: n, max: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire waits until n bytes (at most the whole budget) are free, takes
// them and returns what release must give back.
func (b *byteBudget) acquire(n int64) int64 {
	n = min(n, b.max)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	return n
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// ratioFloor exempts small entries from the ratio check: a 1 MiB entry cannot
// be a bomb whatever its ratio, and tiny entries compress unpredictably.
const ratioFloor = 1 << 20

func (l Limits) withDefaults() Limits {
	if l.MaxEntry <= 0 {
		l.MaxEntry = DefaultLimits.MaxEntry
	}
	if l.MaxTotal <= 0 {
		l.MaxTotal = DefaultLimits.MaxTotal
	}
	if l.MaxRatio <= 0 {
		l.MaxRatio = DefaultLimits.MaxRatio
	}
	return l
}

// WheelEntry is one entry of a wheel as its central directory records it.
type WheelEntry struct {
	Name             string
	Mode             fs.FileMode
	UncompressedSize int64
}

// ListWheel lists the entries of the wheel at path without decompressing
// anything: rules about entry modes and tags need no data.
func ListWheel(path string) ([]WheelEntry, error) {
	f, fi, err := datafile.Open(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	defer f.Close()
	if err != nil {
		return nil, ioError(path, err)
	}
	zr, err := openZip(path, f, fi.Size())
	if err != nil {
		return nil, err
	}
	out := make([]WheelEntry, 0, len(zr.File))
	for _, e := range zr.File {
		size := int64(math.MaxInt64)
		if e.UncompressedSize64 < math.MaxInt64 {
			size = int64(e.UncompressedSize64)
		}
		out = append(out, WheelEntry{Name: e.Name, Mode: e.Mode(), UncompressedSize: size})
	}
	return out, nil
}

// openZip opens a wheel's central directory. Insecure names are not fatal
// here: ReadWheel reports them per entry.
func openZip(path string, r io.ReaderAt, size int64) (*zip.Reader, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, errorf(path, "corrupt wheel: %w", err)
	}
	return zr, nil
}

// checkOverlap refuses a wheel whose entries share compressed bytes, as
// CPython's zipfile (pip's reader) does: there, each entry's data must end
// before the next local header in file order ("Overlapped entries ...
// (possible zip bomb)"). Without it a 1 MB wheel of 16,000 directory
// records pointing at one bomb costs 16,000 inflations. Entries whose
// local header cannot be read, or whose data runs past the wheel, are
// left to the per-entry errors.
func checkOverlap(path string, zr *zip.Reader) error {
	type extent struct {
		f    *zip.File
		data int64 // where its compressed bytes start
	}
	exts := make([]extent, 0, len(zr.File))
	for _, f := range zr.File {
		if off, err := f.DataOffset(); err == nil && f.CompressedSize64 < math.MaxInt64-uint64(off) {
			exts = append(exts, extent{f, off})
		}
	}
	slices.SortStableFunc(exts, func(a, b extent) int { return cmp.Compare(a.data, b.data) })
	for i := 1; i < len(exts); i++ {
		prev, next := exts[i-1], exts[i]
		// The next local header: 30 bytes and the name, before its data.
		if prev.data+int64(prev.f.CompressedSize64) > next.data-localHeaderLen-int64(len(next.f.Name)) {
			return errorf(path, "corrupt wheel: entries %q and %q overlap (possible zip bomb; pip refuses it too)", prev.f.Name, next.f.Name)
		}
	}
	return nil
}

// localHeaderLen is the fixed part of a zip local file header.
const localHeaderLen = 30

// wheelReader reads the ELF entries of one wheel within its limits.
type wheelReader struct {
	path  string
	size  int64
	opt   Options
	lim   Limits
	total uint64 // bytes inflated so far, peeks excluded
}

// ReadWheel reads every ELF image in the wheel of size bytes in r: ELF
// entries and the ELF members of ar archive entries. Entries are decompressed
// in memory, never to disk; only those whose first bytes are an ELF or ar
// magic are inflated past them: ELF entries as streams that keep the ranges
// Parse reads (sparse.go), archives whole. A wheel whose entries share
// data is refused (checkOverlap). path names the wheel in Object paths
// (wheel.whl!dir/lib.so) and errors; each unreadable entry yields one error
// and the others are still read.
func ReadWheel(path string, r io.ReaderAt, size int64, opt Options) ([]*Object, []error) {
	if err := opt.Budget.Charge(budget.Read, size, path); err != nil {
		return nil, []error{&Error{Path: path, Err: err}}
	}
	zr, err := openZip(path, r, size)
	if err != nil {
		return nil, []error{err}
	}
	if err := checkOverlap(path, zr); err != nil {
		return nil, []error{err}
	}
	w := &wheelReader{path: path, size: size, lim: opt.Limits.withDefaults(), opt: opt}
	// In entry order: which entries are ELF files or archives (their first
	// bytes, the only part of a .py file inflated) and whether the limits
	// let each be inflated; then those are inflated and read, several at
	// once, and their results put back in entry order.
	jobs := make([]wheelJob, len(zr.File))
	var todo []int
	for i, f := range zr.File {
		jobs[i].f = f
		if w.vet(&jobs[i]) {
			todo = append(todo, i)
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(todo)) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < len(todo); k = int(next.Add(1) - 1) {
				w.read(&jobs[todo[k]])
			}
		})
	}
	wg.Wait()
	var objs []*Object
	var errs []error
	for i := range jobs {
		objs = append(objs, jobs[i].objs...)
		errs = append(errs, jobs[i].errs...)
	}
	return objs, errs
}

// wheelJob is one entry of a wheel: what vet decided of it, and what read
// found in it.
type wheelJob struct {
	f         *zip.File
	name, dir string // the entry in Object paths, and its directory
	declared  int64
	isELF     bool // else an ar archive
	objs      []*Object
	errs      []error
}

// vet decides whether an entry is read: not a directory, a safe name, an
// ELF file or archive by its first bytes, within the limits (which count
// the entries vetted before it). An entry it refuses may carry an error.
func (w *wheelReader) vet(j *wheelJob) bool {
	f := j.f
	if strings.HasSuffix(f.Name, "/") {
		return false
	}
	if unsafeName(f.Name) {
		j.errs = []error{errorf(w.path+"!"+f.Name, "unsafe entry name")}
		return false
	}
	clean := path.Clean(f.Name)
	j.name, j.dir = w.path+"!"+clean, w.path+"!"+path.Dir(clean)
	head, err := peek(f, 8)
	if err != nil {
		j.errs = []error{&Error{Path: j.name, Err: err}}
		return false
	}
	j.isELF = IsELF(head)
	if !j.isELF && !IsArchive(head) {
		return false
	}
	if j.declared, err = w.check(f); err != nil {
		j.errs = []error{&Error{Path: j.name, Err: err}}
		return false
	}
	w.total += uint64(j.declared)
	return true
}

// read inflates a vetted entry and reads its objects.
func (w *wheelReader) read(j *wheelJob) {
	if !j.isELF {
		j.objs, j.errs = w.archive(j)
		return
	}
	if err := w.opt.Budget.Charge(budget.Objects, 1, j.name); err != nil {
		j.errs = []error{&Error{Path: j.name, Err: err}}
		return
	}
	o, err := w.readELF(j)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{Path: j.name, Err: err}
		}
		j.errs = []error{err}
		return
	}
	o.Wheel, o.Entry = w.path, j.f.Name
	j.objs = []*Object{o}
}

// readELF reads an ELF entry in passes (sparse.go): memory holds the
// ranges Parse reads, never the entry, and each pass holds its ranges'
// bytes of the inflight budget.
func (w *wheelReader) readELF(j *wheelJob) (*Object, error) {
	head, err := peek(j.f, min(headSize, j.declared))
	if err != nil {
		return nil, err
	}
	whole := []span{{0, j.declared}}
	want := normalize(headPlan(head, w.opt), j.declared)
	if j.declared <= smallEntry {
		want = whole
	}
	for pass := 1; ; pass++ {
		if n := total(want); n > maxKept {
			return nil, keptTooMuch(n)
		}
		held := inflight.acquire(total(want))
		o, next, err := w.pass(j, want, pass == 1)
		inflight.release(held)
		switch {
		case err != nil || next == nil:
			return o, err
		case pass == maxPasses:
			return nil, fmt.Errorf("reading it needs more than %d passes over the entry", maxPasses)
		case pass == maxPasses-1 && j.declared <= maxKept:
			// A layout the plans do not foresee (patchelf, as auditwheel
			// runs it, moves .dynstr and .gnu.hash into a segment it adds
			// at the end): the last pass keeps the whole entry, which fits.
			next = whole
		}
		want = next
	}
}

// pass inflates the entry once, keeping want, and reads what it kept:
// first the section headers, whose sections Parse reads are planned
// before Parse runs; then Parse. It returns Parse's answer, or what the
// next pass must keep.
func (w *wheelReader) pass(j *wheelJob, want []span, first bool) (*Object, []span, error) {
	img, err := w.inflate(j, want, first)
	if err != nil {
		return nil, nil, err
	}
	f, plan := sectionFile(img)
	if f != nil {
		plan = append(plan, sectionPlan(f, w.opt)...)
	}
	if next := normalize(append(plan, want...), j.declared); !covers(want, next) {
		return nil, next, nil
	}
	img.missed = nil
	o, err := Parse(j.name, j.dir, img, j.declared, w.opt)
	if len(img.missed) == 0 {
		return o, nil, err
	}
	return nil, normalize(append(widen(img.missed, f), want...), j.declared), nil
}

// inflate streams the entry once and keeps the bytes of want. The first
// pass reads to the end, which checks the entry's size and checksum;
// later ones stop after the last byte kept. Each pass is charged to the
// run's budget: it is work, whatever it keeps.
func (w *wheelReader) inflate(j *wheelJob, want []span, full bool) (*sparseImage, error) {
	last := j.declared
	if !full && len(want) > 0 {
		last = want[len(want)-1].end
	}
	if err := w.opt.Budget.Charge(budget.Inflated, last, j.name); err != nil {
		return nil, err
	}
	rc, err := j.f.Open()
	if err != nil {
		return nil, entryError(j.f, err)
	}
	defer rc.Close()
	img := newSparseImage(j.declared, want)
	buf := make([]byte, streamChunk)
	var pos int64
	for k := 0; pos < last; {
		n, err := rc.Read(buf)
		if pos+int64(n) > j.declared {
			return nil, pastDeclared(j.declared)
		}
		k = img.fill(k, buf[:n], pos)
		pos += int64(n)
		switch {
		case err == io.EOF:
			if pos < j.declared {
				return nil, fmt.Errorf("truncated entry: %d of its declared %d bytes", pos, j.declared)
			}
			return img, nil
		case errors.Is(err, zip.ErrFormat):
			return nil, pastDeclared(j.declared)
		case err != nil:
			return nil, entryError(j.f, err)
		}
	}
	if full { // the size is declared, the checksum still to come
		if _, err := rc.Read(buf[:1]); err != io.EOF {
			return nil, endError(j.f, err, j.declared)
		}
	}
	return img, nil
}

// streamChunk is how much a pass inflates at a time.
const streamChunk = 256 << 10

func pastDeclared(declared int64) error {
	return fmt.Errorf("entry inflates past its declared size of %d bytes", declared)
}

// endError words what reading past an entry's declared size returned
// instead of io.EOF.
func endError(f *zip.File, err error, declared int64) error {
	if err == nil || errors.Is(err, zip.ErrFormat) {
		return pastDeclared(declared)
	}
	return entryError(f, err)
}

// archive reads the ELF members of an archive entry. Archives are held
// whole (their members' headers lie all over them), within maxKept and
// the inflight budget.
func (w *wheelReader) archive(j *wheelJob) ([]*Object, []error) {
	fail := func(err error) ([]*Object, []error) { return nil, []error{&Error{Path: j.name, Err: err}} }
	if j.declared > maxKept {
		return fail(fmt.Errorf("archive entry of %d bytes: archives are read whole, and the limit is %d", j.declared, int64(maxKept)))
	}
	if err := w.opt.Budget.Charge(budget.Inflated, j.declared, j.name); err != nil {
		return fail(err)
	}
	defer inflight.release(inflight.acquire(j.declared))
	data, err := w.load(j.f, j.declared)
	if err != nil {
		return fail(err)
	}
	a, err := ReadArchive(j.name, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, []error{err}
	}
	if a.Thin {
		return nil, []error{errorf(j.name, "thin archive: its members' data is not in the wheel")}
	}
	objs, errs := memberObjects(a, bytes.NewReader(data), w.opt)
	for _, o := range objs {
		o.Wheel, o.Entry = w.path, j.f.Name
	}
	return objs, errs
}

// unsafeName reports entry names that would escape an unpack directory:
// absolute paths (Unix, or Windows C:/) and ".." components, with either slash.
func unsafeName(name string) bool {
	n := strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(n, "/") || (len(n) > 2 && n[1] == ':' && n[2] == '/') {
		return true
	}
	for _, c := range strings.Split(n, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}

// peek returns the first n bytes of an entry (fewer if it is shorter):
// all a .py file costs is its magic.
func peek(f *zip.File, n int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, entryError(f, err)
	}
	defer rc.Close()
	head := make([]byte, n)
	k, err := io.ReadFull(rc, head)
	switch {
	case errors.Is(err, zip.ErrFormat):
		return nil, pastDeclared(int64(f.UncompressedSize64))
	case err != nil && err != io.EOF && err != io.ErrUnexpectedEOF:
		return nil, entryError(f, err)
	}
	return head[:k], nil
}

// load inflates an entry into memory, its declared size checked against
// the limits (check). Memory grows with what really inflates, never ahead
// of it: a header that declares 4 GiB over a few bytes costs a few bytes;
// the read stops past the declared size, so a header that understates
// cannot make it inflate further either.
func (w *wheelReader) load(f *zip.File, declared int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, entryError(f, err)
	}
	defer rc.Close()
	buf, err := readUpTo(rc, declared)
	switch {
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return nil, entryError(f, err)
	case int64(len(buf)) < declared:
		return nil, fmt.Errorf("truncated entry: %d of its declared %d bytes", len(buf), declared)
	}
	// One byte more: archive/zip reports data past the declared size as
	// ErrFormat, with nothing read.
	var extra [1]byte
	if n, err := rc.Read(extra[:]); n > 0 || err != io.EOF {
		return nil, endError(f, err, declared)
	}
	return buf, nil
}

// readUpTo reads r to its end or limit bytes, whichever comes first. The
// buffer doubles as data arrives, from 1 MiB, but never past limit: what
// it allocates follows what is read, at most twice over.
func readUpTo(r io.Reader, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(limit, 1<<20))
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(limit, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// check applies the limits to an entry's declared sizes.
func (w *wheelReader) check(f *zip.File) (int64, error) {
	size, comp := f.UncompressedSize64, f.CompressedSize64
	switch {
	case size > uint64(w.lim.MaxEntry):
		return 0, fmt.Errorf("declared size of %d bytes exceeds the per-entry limit of %d bytes", size, w.lim.MaxEntry)
	case w.total+size > uint64(w.lim.MaxTotal):
		return 0, fmt.Errorf("declared size of %d bytes would take the wheel past its limit of %d uncompressed bytes", size, w.lim.MaxTotal)
	case comp > uint64(w.size):
		return 0, fmt.Errorf("compressed size of %d bytes runs past the end of the %d-byte wheel", comp, w.size)
	case size > ratioFloor && (comp == 0 || size/comp > uint64(w.lim.MaxRatio)):
		return 0, fmt.Errorf("compression ratio of %d:%d exceeds the limit of %d:1 (zip bomb?)", size, comp, w.lim.MaxRatio)
	}
	return int64(size), nil
}

// entryError words archive/zip's errors for people.
func entryError(f *zip.File, err error) error {
	switch {
	case errors.Is(err, zip.ErrAlgorithm):
		return fmt.Errorf("unsupported compression method %d: %w", f.Method, err)
	case errors.Is(err, zip.ErrChecksum):
		return fmt.Errorf("corrupt entry (checksum mismatch): %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, zip.ErrFormat):
		return fmt.Errorf("corrupt entry: %w", err)
	}
	return fmt.Errorf("cannot read entry: %w", err)
}

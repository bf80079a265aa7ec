package analyze

import (
	"debug/elf"
	"path/filepath"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
)

// definers answers, for one link, which of its inputs defines a symbol,
// and so whether a toolchain or system runtime does (Runtime): the library
// decides, never a list of function names. Inputs are searched in line
// order, the files a runtime's linker script names (Debian's libc.so:
// GROUP ( libc.so.6 libc_nonshared.a AS_NEEDED ( ld-linux-x86-64.so.2 ) ))
// included.
type definers struct {
	objs  []*elfobj.Object
	index map[string]*elfobj.Object // built on the first question
	code  *codeCache
}

func newDefiners(inputs []loadedInput, scripts []string, read func(string) ([]*elfobj.Object, error), code *codeCache) *definers {
	d := &definers{code: code}
	for _, li := range inputs {
		d.objs = append(d.objs, li.objs...)
	}
	for _, s := range scripts {
		for _, p := range scriptInputs(s) {
			if objs, err := read(p); err == nil {
				d.objs = append(d.objs, objs...)
			}
		}
	}
	return d
}

// Runtime reports whether sym is reserved to the implementation or the
// input that defines it is a runtime library. A symbol no input defines is
// not a runtime's: the link's runtime libraries are on its line.
func (d *definers) Runtime(sym string) bool {
	if demangle.Reserved(sym) {
		return true
	}
	o, ok := d.definer(sym)
	return ok && IsRuntimeLibrary(o)
}

// HandsOn reads the definition of the method sym in the input of the link
// that defines it, and says what it hands on of the object it runs on (a
// later argument of a call, a store into static storage): the cl::opt
// shape, whose constructor registers the option through methods defined in
// libLLVM. ok is false when no input defines sym or its code cannot be read.
func (d *definers) HandsOn(sym string) (hs []elfobj.Handoff, in *elfobj.Object, undecided string, ok bool) {
	o, found := d.definer(sym)
	if !found || IsRuntimeLibrary(o) {
		return nil, nil, "", false
	}
	hs, undecided, ok = d.code.handsOn(o, sym)
	return hs, o, undecided, ok
}

// definer is the first input of the link that defines sym.
func (d *definers) definer(sym string) (*elfobj.Object, bool) {
	if d.index == nil {
		d.index = map[string]*elfobj.Object{}
		for _, o := range d.objs {
			for i := range o.Symbols {
				s := &o.Symbols[i]
				if !s.Defined() || s.Binding() == elf.STB_LOCAL || o.Type != elf.ET_REL && !s.Exported() {
					continue
				}
				if _, ok := d.index[s.Name]; !ok {
					d.index[s.Name] = o
				}
			}
		}
	}
	o, ok := d.index[sym]
	return o, ok
}

// codeCache keeps the inputs whose methods HandsOn reads open, and its
// answers, for the links of one session (libLLVM is indexed once).
type codeCache struct {
	mu      sync.Mutex
	open    map[*elfobj.Object]*elfobj.Code
	answers map[codeKey]codeAnswer
}

type codeKey struct {
	o   *elfobj.Object
	sym string
}

type codeAnswer struct {
	hs        []elfobj.Handoff
	undecided string
	ok        bool
}

func newCodeCache() *codeCache {
	return &codeCache{open: map[*elfobj.Object]*elfobj.Code{}, answers: map[codeKey]codeAnswer{}}
}

func (c *codeCache) handsOn(o *elfobj.Object, sym string) ([]elfobj.Handoff, string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := codeKey{o, sym}
	if a, ok := c.answers[k]; ok {
		return a.hs, a.undecided, a.ok
	}
	code := c.opened(o)
	var a codeAnswer
	if code != nil {
		a.hs, a.undecided, a.ok = code.HandsOn(sym)
	}
	c.answers[k] = a
	return a.hs, a.undecided, a.ok
}

// defines reports whether o's code defines sym, exported or not; false
// when its code cannot be read.
func (c *codeCache) defines(o *elfobj.Object, sym string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := codeKey{o, "\x00defines " + sym}
	if a, ok := c.answers[k]; ok {
		return a.ok
	}
	code := c.opened(o)
	a := codeAnswer{ok: code != nil && code.Defines(sym)}
	c.answers[k] = a
	return a.ok
}

// opened is o's code, opened on the first question (nil when unreadable);
// c.mu is held.
func (c *codeCache) opened(o *elfobj.Object) *elfobj.Code {
	code, ok := c.open[o]
	if !ok {
		code, _ = elfobj.OpenCode(o) // unreadable: the answer is "could not read"
		c.open[o] = code
	}
	return code
}

// close closes the files the cache holds open.
func (c *codeCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for o, code := range c.open {
		if code != nil {
			code.Close()
		}
		delete(c.open, o)
	}
}

// runtimeLibs are the libraries of the C and C++ toolchains and their
// runtimes, by the name their files start with: glibc's, libstdc++,
// libsupc++, libc++, libc++abi, libgcc (and libgcc_s, libgcc_eh),
// libatomic, libgomp, LLVM's and Intel's OpenMP, libquadmath, and the
// sanitizers' and coverage's runtimes.
var runtimeLibs = []string{
	"libc.", "libc-", "libc_nonshared.", "libm.", "libm-", "libmvec.", "libdl.", "librt.", "libpthread.", "libutil.",
	"libresolv.", "libanl.", "ld-linux", "ld64.", "libstdc++", "libsupc++", "libc++", "libgcc", "libatomic.",
	"libgomp.", "libomp.", "libiomp5.", "libquadmath.", "libasan.", "libubsan.", "libtsan.", "liblsan.", "libhwasan.",
	"libclang_rt.", "libgcov.",
}

// IsRuntimeLibrary reports whether o is (a member of) a toolchain or
// system runtime library.
func IsRuntimeLibrary(o *elfobj.Object) bool {
	p := o.Path
	if o.Archive != "" {
		p = o.Archive
	}
	base := filepath.Base(p)
	for _, prefix := range runtimeLibs {
		if strings.HasPrefix(base, prefix) {
			return true
		}
	}
	return false
}

// scriptInputs lists the files a linker script of the form glibc and GCC
// install (libc.so, libm.so, libgcc_s.so) names in GROUP, INPUT and
// AS_NEEDED: absolute paths as written, others beside the script. -l
// names are left out (a search this reading does not repeat).
func scriptInputs(path string) []string {
	data, err := datafile.ReadFile(path, 64<<10)
	if err != nil {
		return nil
	}
	var out []string
	text := string(data)
	for {
		i := strings.Index(text, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+2:], "*/")
		if j < 0 {
			text = text[:i]
			break
		}
		text = text[:i] + " " + text[i+2+j+2:]
	}
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '(' || r == ')' || r == ',' })
	for _, f := range fields {
		switch {
		case f == "GROUP", f == "INPUT", f == "AS_NEEDED", f == "OUTPUT_FORMAT", strings.HasPrefix(f, "-l"):
		case strings.HasPrefix(f, "/"):
			out = append(out, f)
		case strings.Contains(f, ".so") || strings.HasSuffix(f, ".a"):
			out = append(out, filepath.Join(filepath.Dir(path), f))
		}
	}
	return out
}

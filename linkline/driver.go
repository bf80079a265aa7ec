package linkline

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
)

// toolKind is what argv[0] of a command is.
type toolKind int

const (
	toolOther   toolKind = iota // unknown: a driver if it links (-o, no -c)
	toolGCC                     // gcc, g++, cc, c++ (maybe target-prefixed, versioned)
	toolClang                   // clang, clang++
	toolLinker                  // ld, ld.bfd, ld.gold, ld.lld, mold, collect2
	toolNotLink                 // ar, ranlib, cmake, cp, ...: never a link
)

// toolName strips the directory, a version suffix (-12, -14.0) and a target
// prefix (aarch64-linux-gnu-) from argv[0]; triple is the prefix.
func toolName(argv0 string) (name, triple string) {
	base := filepath.Base(argv0)
	// Version suffix: -12, -12.2, g++-12.
	if k := strings.LastIndexByte(base, '-'); k > 0 && isVersion(base[k+1:]) {
		base = base[:k]
	}
	for _, n := range knownTools {
		if base == n {
			return n, ""
		}
		if strings.HasSuffix(base, "-"+n) {
			return n, base[:len(base)-len(n)-1]
		}
	}
	return base, ""
}

func isVersion(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}

// knownTools, longest names first so "clang++" wins over "clang" and
// "ld.lld" over "ld".
var knownTools = []string{
	"ld64.lld", "collect2", "clang++", "ld.gold", "ld.mold", "ld.bfd", "ld.lld",
	"ranlib", "objcopy", "objdump", "clang", "strip", "mold", "gold", "g++", "gcc",
	"c++", "lld", "ar", "cc", "ld", "nm",
}

var notLinkTools = map[string]bool{
	"ar": true, "ranlib": true, "nm": true, "objcopy": true, "objdump": true, "strip": true,
	"cmake": true, "ctest": true, "cpack": true, "make": true, "gmake": true, "ninja": true,
	"cp": true, "mv": true, "rm": true, "ln": true, "mkdir": true, "touch": true, "install": true,
	"echo": true, "printf": true, "sed": true, "awk": true, "cat": true, "test": true, "[": true,
	"true": true, "false": true, ":": true, "cd": true, "sh": true, "bash": true,
	"python": true, "python3": true, "perl": true, "protoc": true, "flatc": true, "as": true, "cpp": true,
	"patchelf": true, "chmod": true, "tar": true, "zip": true, "git": true,
}

func classify(argv0 string) (toolKind, string, string) {
	name, triple := toolName(argv0)
	switch name {
	case "gcc", "g++", "cc", "c++":
		return toolGCC, name, triple
	case "clang", "clang++":
		return toolClang, name, triple
	case "ld", "ld.bfd", "ld.gold", "ld.lld", "ld64.lld", "lld", "mold", "ld.mold", "gold", "collect2":
		return toolLinker, name, triple
	}
	if notLinkTools[name] || strings.HasPrefix(name, "python") || strings.HasSuffix(name, "-ar") {
		return toolNotLink, name, triple
	}
	return toolOther, name, triple
}

// linkerName maps a linker's program or -fuse-ld value to bfd, gold, lld,
// mold ("" for collect2, which runs the default linker).
func linkerName(s string) string {
	name, _ := toolName(s)
	switch name {
	case "ld", "ld.bfd", "bfd":
		return "bfd"
	case "ld.gold", "gold":
		return "gold"
	case "ld.lld", "lld", "ld64.lld":
		return "lld"
	case "mold", "ld.mold":
		return "mold"
	case "collect2":
		return ""
	}
	return name
}

// isCXXDriver reports whether the driver links C++ (adds -lstdc++ -lm).
func isCXXDriver(name string) bool { return strings.HasSuffix(name, "++") }

// A driver named by a build tree is never run: the tree is untrusted, and
// its "gcc" may be anything. What etlink needs of it is read from the file.

// driverCache keeps what was read of each driver, for the process.
var driverCache = struct {
	sync.Mutex
	specs map[string]readResult
}{specs: map[string]readResult{}}

type readResult struct {
	out string
	err error
}

// maxDriverSize bounds the driver file read for its specs (gcc's driver is
// about 1 MB; a larger file is not one).
const maxDriverSize = 64 << 20

// defaultSpecs gives a gcc driver's link model without running it: the
// *link spec it was built with (the one that says --as-needed on Debian
// and Ubuntu) is a string in the driver's read-only data; the rest of the
// model is upstream GCC's (gccSpecText), which distributions do not patch
// in what concerns library order and state.
func defaultSpecs(driver string) (string, error) {
	driverCache.Lock()
	defer driverCache.Unlock()
	if r, ok := driverCache.specs[driver]; ok {
		return r.out, r.err
	}
	link, err := builtinLinkSpec(driver)
	var out string
	if err == nil {
		out = replaceSpec(gccSpecText, "link", link)
	}
	driverCache.specs[driver] = readResult{out, err}
	return out, err
}

// builtinLinkSpec finds LINK_SPEC in a gcc driver: the string of its
// read-only data that passes -dynamic-linker and -shared.
func builtinLinkSpec(driver string) (string, error) {
	f, fi, err := datafile.Open(driver)
	if err != nil {
		return "", err
	}
	defer f.Close()
	switch {
	case fi.Size() > maxDriverSize:
		return "", fileError(driver, fmt.Errorf("%d bytes, too large for a compiler driver", fi.Size()))
	}
	ef, err := elf.NewFile(f)
	if err != nil {
		return "", fileError(driver, err)
	}
	sec := ef.Section(".rodata")
	if sec == nil || sec.Type == elf.SHT_NOBITS || sec.Size > maxDriverSize {
		return "", fileError(driver, errors.New("no .rodata"))
	}
	data, err := sec.Data()
	if err != nil {
		return "", fileError(driver, fmt.Errorf(".rodata: %w", err))
	}
	for _, str := range bytes.Split(data, []byte{0}) {
		if bytes.Contains(str, []byte("-dynamic-linker")) && bytes.Contains(str, []byte("%{shared:-shared}")) {
			return string(str), nil
		}
	}
	return "", fileError(driver, fmt.Errorf("no built-in link spec (-dynamic-linker, %%{shared:-shared}) in its read-only data: not a gcc driver"))
}

// replaceSpec sets spec name in a spec file's text.
func replaceSpec(text, name, value string) string {
	head := "*" + name + ":\n"
	at := strings.Index(text, head)
	if at < 0 {
		return text + head + value + "\n\n"
	}
	end := strings.Index(text[at+len(head):], "\n\n")
	return text[:at+len(head)] + value + text[at+len(head)+end:]
}

// defaultSearchDirs are the library dirs a gcc or clang driver gives the
// linker, as GCC lays them out on Debian for the driver's target and
// version (read from the driver's file name or the installed
// /usr/lib/gcc*/TRIPLE/VERSION), not asked from the driver.
func defaultSearchDirs(driver string, kind toolKind, triple string) []string {
	if kind == toolLinker {
		return linkerDefaultDirs(linkerName(driver), triple)
	}
	if kind != toolGCC && kind != toolClang {
		return debianDirs(triple)
	}
	if triple == "" {
		triple = hostTriple()
	}
	cross := triple != hostTriple()
	private := "/usr/lib/gcc/" + triple
	if cross {
		private = "/usr/lib/gcc-cross/" + triple
	}
	v := gccVersion(driver, private)
	if v == "" {
		return debianDirs(triple)
	}
	usrT := "/usr/" + triple + "/lib"
	dirs := []string{private + "/" + v, usrT + "/" + triple + "/" + v, usrT + "/" + triple, usrT}
	system := [][]string{
		{"/usr/lib/" + triple + "/" + v, "/usr/lib/" + triple, "/usr/lib"},
		{"/lib/" + triple + "/" + v, "/lib/" + triple, "/lib"},
	}
	if cross {
		system[0], system[1] = system[1], system[0]
	}
	return append(append(dirs, system[0]...), system[1]...)
}

// gccVersion is the GCC version whose private library dir a driver uses:
// its file name's (x86_64-linux-gnu-gcc-12), else the highest installed.
func gccVersion(driver, private string) string {
	if k := strings.LastIndexByte(driver, '-'); k > 0 && isVersion(driver[k+1:]) {
		if v := driver[k+1:]; dirExists(private + "/" + v) {
			return v
		}
	}
	entries, err := os.ReadDir(private)
	if err != nil {
		return ""
	}
	best := ""
	for _, e := range entries {
		if e.IsDir() && isVersion(e.Name()) && (best == "" || versionLess(best, e.Name())) {
			best = e.Name()
		}
	}
	return best
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// versionLess compares dotted versions numerically (9 < 12).
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// hostTriple is the Debian multiarch triple of this machine.
func hostTriple() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

// debianDirs are the library dirs of Debian's toolchains for a target.
func debianDirs(triple string) []string {
	if triple == "" {
		triple = hostTriple()
	}
	return []string{
		"/usr/local/lib/" + triple, "/lib/" + triple, "/usr/lib/" + triple,
		"/usr/local/lib", "/lib", "/usr/lib", "/usr/" + triple + "/lib",
	}
}

// linkerDefaultDirs are the dirs a linker searches on its own: Debian's
// GNU ld and gold have built-in SEARCH_DIRs, lld and mold have none.
func linkerDefaultDirs(linker, triple string) []string {
	switch linker {
	case "lld", "mold":
		return nil
	}
	return debianDirs(triple)
}

// driverModel is what a compiler driver adds around the user's inputs.
type driverModel struct {
	before, after []string // linker-level words before and after the user's inputs
	beforeItems   []item
	afterItems    []item
	source        string // how the model was obtained, for DefaultAsNeededSource
	moveLibm      bool   // g++ moves the first -lm and -lc after its -lstdc++
}

// clangSpecs write Debian clang 14's Linux link job (clang does not print
// specs) in GCC spec notation, so one evaluator serves both. Checked against
// `clang -###`: no --as-needed by default; C links libgcc_s under
// --as-needed ... --no-as-needed.
var clangSpecs = sync.OnceValue(func() specSet {
	return parseSpecs(`*link_command:
%{static:-static} %{shared:-shared} %{!static:%{!shared:%{!r:%{!no-pie:-pie}}}} %{!nostdlib:%{!nodefaultlibs:%{%:sanitize(address):--push-state --no-as-needed -lasan --pop-state}}} %o %{!nostdlib:%{!nodefaultlibs:%{static|static-pie:--start-group} %G %{pthread:-lpthread} %{!nolibc:-lc} %{static|static-pie:--end-group;:%G}}}

*libgcc:
%{static|static-libgcc|static-pie:-lgcc -lgcc_eh;shared-libgcc:-lgcc_s -lgcc;:-lgcc --as-needed -lgcc_s --no-as-needed}

`)
})

// gccSpecText is upstream GCC 12's Linux link model (link_command cut
// down to what adds libraries or linker state). Its *link has no
// --as-needed: passing it by default is a distribution patch (Debian,
// Ubuntu), which defaultSpecs reads from the driver's own *link.
const gccSpecText = `*link:
%{static:-static} %{shared:-shared}

*libgcc:
%{static|static-libgcc|static-pie:-lgcc -lgcc_eh}%{!static:%{!static-libgcc:%{!static-pie:%{!shared-libgcc:-lgcc --push-state --as-needed -lgcc_s --pop-state}%{shared-libgcc:-lgcc_s%{!shared: -lgcc}}}}}

*lib:
%{pthread:-lpthread} %{shared:-lc}    %{!shared:%{profile:-lc_p}%{!profile:-lc}}

*link_gcc_c_sequence:
%{static|static-pie:--start-group} %G %{!nolibc:%L}    %{static|static-pie:--end-group}%{!static:%{!static-pie:%G}}

*link_command:
%{!fsyntax-only:%{!c:%{!M:%{!MM:%{!E:%{!S: %l %{static|shared|r:;!no-pie:-pie} %{!nostdlib:%{!r:%{!nodefaultlibs:%{%:sanitize(address):%{static-libasan:%{!shared:-Bstatic --whole-archive -lasan --no-whole-archive -Bdynamic}}%{!static-libasan:--push-state --no-as-needed -lasan --pop-state}} %{%:sanitize(hwaddress):%{static-libhwasan:%{!shared:-Bstatic --whole-archive -lhwasan --no-whole-archive -Bdynamic}}%{!static-libhwasan:--push-state --no-as-needed -lhwasan --pop-state}} %{%:sanitize(thread):%{static-libtsan:%{!shared:-Bstatic --whole-archive -ltsan --no-whole-archive -Bdynamic}}%{!static-libtsan:--push-state --no-as-needed -ltsan --pop-state}} %{%:sanitize(leak):%{static-liblsan:%{!shared:-Bstatic --whole-archive -llsan --no-whole-archive -Bdynamic}}%{!static-liblsan:--push-state --no-as-needed -llsan --pop-state}}}}} %o %{fopenacc|fopenmp:%:include(libgomp.spec)%(link_gomp)} %{fgnu-tm:%:include(libitm.spec)%(link_itm)} %{fprofile-arcs|fprofile-generate*|coverage:-lgcov} %{!nostdlib:%{!r:%{!nodefaultlibs:%{%:sanitize(undefined):%{static-libubsan:-Bstatic} %{!static-libubsan:--push-state --no-as-needed} -lubsan  %{static-libubsan:-Bdynamic} %{!static-libubsan:--pop-state}}}}} %{!nostdlib:%{!r:%{!nodefaultlibs:%(link_gcc_c_sequence)}}}}}}}}}

`

// gccFallbackSpecs is the model of a gcc driver whose file cannot be read.
var gccFallbackSpecs = sync.OnceValue(func() specSet { return parseSpecs(gccSpecText) })

// model works out what the driver adds for these switches, caching per
// driver and switch set within the session.
func (s *session) model(driver string, kind toolKind, name string, switches []string) driverModel {
	key := driver + "\x00" + switchKey(switches)
	if m, ok := s.models[key]; ok {
		return m
	}
	var m driverModel
	switch kind {
	case toolClang:
		m.before, m.after = evalLinkCommand(clangSpecs(), switches)
		m.source = "clang driver (passes no --as-needed)"
	case toolGCC, toolOther:
		specs, err := s.specs(driver, kind)
		switch {
		case err == nil:
			m.before, m.after = evalLinkCommand(specs, switches)
			m.source = "gcc link spec of " + driver
			if s.opt.Specs == nil {
				m.source += " (read from the file, not run)"
			}
			m.moveLibm = true
		case kind == toolGCC:
			m.before, m.after = evalLinkCommand(gccFallbackSpecs(), switches)
			m.source = "not determined: " + err.Error()
			m.moveLibm = true
		default:
			m.source = "not determined: unknown driver " + name
		}
	}
	m.beforeItems = implicitItems(m.before...)
	m.afterItems = implicitItems(m.after...)
	s.models[key] = m
	return m
}

// specs returns the driver's specs: injected, else read from the file of
// a program named like gcc; another unknown driver is not read.
func (s *session) specs(driver string, kind toolKind) (specSet, error) {
	if sp, ok := s.specCache[driver]; ok {
		return sp.specs, sp.err
	}
	var text string
	var err error
	switch {
	case s.opt.Specs != nil:
		text, err = s.opt.Specs(driver)
		if err == nil && !strings.Contains(text, "*link_command:") {
			err = fmt.Errorf("specs of %s have no *link_command:", driver)
		}
	case kind == toolGCC:
		text, err = defaultSpecs(driver)
	default:
		err = fmt.Errorf("%s is not known to be gcc", driver)
	}
	var sp specSet
	if err == nil {
		sp = parseSpecs(text)
	}
	s.specCache[driver] = specResult{sp, err}
	return sp, err
}

type specResult struct {
	specs specSet
	err   error
}

// switchKey keys a switch set for the model cache: only switches a spec
// can test matter, but cheaper to keep all, sorted.
func switchKey(sw []string) string {
	c := append([]string(nil), sw...)
	sort.Strings(c)
	return strings.Join(c, "\x01")
}

// realPath resolves symlinks of a driver that exists here, so /usr/bin/c++
// (an alternatives link) is classified by what it runs.
func realPath(p string) string {
	if !strings.ContainsRune(p, '/') {
		lp, err := exec.LookPath(p)
		if err != nil {
			return p
		}
		p = lp
	}
	if _, err := os.Stat(p); err != nil {
		return p
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}

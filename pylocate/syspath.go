package pylocate

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/pyload"
)

// searchPath is sys.path as `python -c` has it when the script runs, read
// from files: the working directory, PYTHONPATH, the standard library, and
// what site.py adds (the venv's and the prefixes' site directories, the
// user's, and the .pth files in each), in the order site adds them.
type searchPath struct {
	*reading
	l       *layout
	pkg     string
	flavour string // "upstream" or "debian": site.getsitepackages' form
	entries []string
	known   map[string]bool
	// trusted are the interpreter's own entries (the standard library): a
	// module found there is the interpreter's, not a package's code.
	trusted map[string]bool
	// read are the modules whose source was found and read: entries are
	// only appended, so where a module was found it stays.
	read map[string]bool
	// wd is sys.path[0], the working directory: `python -c` puts it there
	// after site has run, so no module site imports comes from it.
	wd string
}

// sysPath reads the sys.path an import of pkg searches, or says why it
// cannot be read from files.
func (l *layout) sysPath(pkg string) (*searchPath, error) {
	flavour, err := l.siteFlavour(filepath.Join(l.stdlib(), "site.py"))
	if err != nil {
		return nil, err
	}
	s := &searchPath{reading: l.reading, l: l, pkg: pkg, flavour: flavour, known: map[string]bool{}, trusted: map[string]bool{}, read: map[string]bool{}}
	if s.getenv("PYTHONSAFEPATH") == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, cannot("the working directory (sys.path[0]): %v", err)
		}
		s.entries = append(s.entries, wd) // site does not count it known
		s.wd = wd
	}
	if pp := s.getenv("PYTHONPATH"); pp != "" {
		for _, p := range filepath.SplitList(pp) {
			s.add(absPath(p))
		}
	}
	nodot := strings.ReplaceAll(l.version, ".", "")
	for _, p := range []string{
		filepath.Join(l.base, l.libdir, "python"+nodot+".zip"),
		l.stdlib(),
		filepath.Join(l.stdlib(), "lib-dynload"),
	} {
		s.add(p)
		s.trusted[p] = true
	}
	if err := s.site(); err != nil {
		return nil, err
	}
	return s, nil
}

// add appends p unless an entry already is p (site.removeduppaths).
func (s *searchPath) add(p string) bool {
	if s.known[p] {
		return false
	}
	s.known[p] = true
	s.entries = append(s.entries, p)
	return true
}

// site is site.main: the venv's site directories, the user's, the
// prefixes', then sitecustomize and usercustomize.
func (s *searchPath) site() error {
	l := s.l
	prefixes := []string{l.base}
	if l.venv {
		if err := s.addSitePackages(l.prefix); err != nil {
			return err
		}
		prefixes = []string{l.prefix}
		if l.systemSite {
			prefixes = append(prefixes, l.base)
		}
	}
	user := s.userSite()
	if user != "" && s.isDir(user) {
		if err := s.addSiteDir(user); err != nil {
			return err
		}
	}
	for _, p := range slices.Compact(prefixes) {
		if err := s.addSitePackages(p); err != nil {
			return err
		}
	}
	mods := []string{"sitecustomize"}
	if user != "" {
		mods = append(mods, "usercustomize")
	}
	for _, m := range mods {
		// Read wherever it is: Debian's sitecustomize lies in the
		// standard library's directory (a link to /etc/python3.X), the
		// administrator's to edit.
		if err := s.checkModule(m, "site imports it at start-up", true); err != nil {
			return err
		}
	}
	return nil
}

// userSite is the user's site directory when site enables it, else "".
func (s *searchPath) userSite() string {
	l := s.l
	if (l.venv && !l.systemSite) || s.getenv("PYTHONNOUSERSITE") != "" ||
		os.Geteuid() != os.Getuid() || os.Getegid() != os.Getgid() {
		return ""
	}
	base := s.getenv("PYTHONUSERBASE")
	if base == "" {
		home := s.getenv("HOME")
		if home == "" {
			return "" // expanduser would ask the password database
		}
		base = filepath.Join(home, ".local")
	}
	return filepath.Join(base, "lib", "python"+l.version, "site-packages")
}

// addSitePackages adds the site directories of prefix that exist
// (site.addsitepackages).
func (s *searchPath) addSitePackages(prefix string) error {
	l := s.l
	ver := "python" + l.version
	libdirs := []string{l.libdir}
	if l.libdir != "lib" {
		libdirs = append(libdirs, "lib")
	}
	var dirs []string
	switch s.flavour {
	case "debian":
		if l.venv {
			dirs = append(dirs, filepath.Join(prefix, "lib", ver, "site-packages"))
		}
		dirs = append(dirs, filepath.Join(prefix, "local/lib", ver, "dist-packages"), filepath.Join(prefix, "lib", "python3", "dist-packages"))
		for _, d := range libdirs {
			dirs = append(dirs, filepath.Join(prefix, d, ver, "dist-packages"))
		}
	default:
		for _, d := range libdirs {
			dirs = append(dirs, filepath.Join(prefix, d, ver, "site-packages"))
		}
	}
	for _, d := range dirs {
		if s.isDir(d) {
			if err := s.addSiteDir(d); err != nil {
				return err
			}
		}
	}
	return nil
}

// addSiteDir adds dir and reads its .pth files in name order
// (site.addsitedir); a directory already on the path is not read again.
func (s *searchPath) addSiteDir(dir string) error {
	if !s.add(dir) {
		return nil
	}
	for _, n := range s.names(dir) { // site ignores what it cannot list
		if strings.HasSuffix(n, ".pth") && !strings.HasPrefix(n, ".") {
			if err := s.addPth(dir, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// addPth reads one .pth file (site.addpackage): a line is a directory
// added when it exists, or, when it starts with "import", code site runs.
func (s *searchPath) addPth(dir, name string) error {
	file := filepath.Join(dir, name)
	data, err := s.readFile(file, datafile.SmallText)
	if err != nil {
		return nil // site skips a .pth it cannot open
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import\t") {
			if err := s.checkCode([]byte(line), file+" line "+strconv.Itoa(i+1)); err != nil {
				return err
			}
			continue
		}
		p := strings.TrimRight(line, " \t\r\f\v")
		if !filepath.IsAbs(p) { // os.path.join keeps an absolute line
			p = filepath.Join(dir, p)
		}
		p = absPath(p)
		if _, err := s.stat(p); err == nil {
			s.add(p)
		}
	}
	return nil
}

// The readings' patterns are compiled when first used: a run whose answer
// is remembered (cache.go) matches none, and every command would compile
// them when etlink starts.
var (
	importedNames = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bimport\s+([\w.]+(?:\s*,\s*[\w.]+)*)|\bfrom\s+([\w.]+)\s+import\b|(?:__import__|import_module)\(\s*['"]([\w.]+)['"]`)
	})
	// sysPathChange is what follows "sys.path" in code that changes it.
	sysPathChange = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:\.\s*(?:insert|append|extend|remove|pop|clear|reverse|sort)\b|\[|\+=|=[^=])`)
	})
)

// pathChange returns code's first change of the path an import searches:
// of sys.path itself, of the path hooks or their cache, or a site
// directory added; "" when there is none.
func pathChange(code []byte) string {
	for _, name := range []string{"path_hooks", "path_importer_cache", "addsitedir"} {
		if pyload.Mentions(code, name) {
			return name
		}
	}
	for i := 0; ; {
		j := bytes.Index(code[i:], []byte("sys.path"))
		if j < 0 {
			return ""
		}
		i += j + len("sys.path")
		if m := sysPathChange().Find(code[i:min(len(code), i+40)]); m != nil {
			return "sys.path" + string(m)
		}
	}
}

// checkCode says whether code site runs at start-up (a .pth import line,
// and the modules it imports from outside the standard library) can
// change where pkg is found: it can when it names pkg (a finder, a module
// entry or a path for it must name it) or changes the path an import
// searches. A finder added to sys.meta_path that does not name pkg
// answers for other names (setuptools' _distutils_hack, virtualenv's
// patches, editable finders of other projects).
func (s *searchPath) checkCode(code []byte, where string) error {
	if err := s.checkText(code, where); err != nil {
		return err
	}
	for _, m := range importedNames().FindAllSubmatch(code, -1) {
		names := string(m[1]) + string(m[2]) + string(m[3])
		for _, name := range strings.Split(names, ",") {
			if err := s.checkModule(strings.TrimSpace(name), where+" imports it", false); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkModule reads the source of a module (each module of a dotted
// name) found on the path so far outside the standard library (anywhere:
// in it too); one that is not there is the interpreter's own (builtin) or
// not found (site reports the error and goes on).
func (s *searchPath) checkModule(name, why string, anywhere bool) error {
	if s.read[name] {
		return nil
	}
	parts := strings.Split(name, ".")
	for i := range parts {
		file, ok, err := s.moduleSource(parts[:i+1])
		if err != nil {
			return cannot("%s (%s)", err.(*unreadable).reason, why)
		}
		if !ok && (!anywhere || file == "") {
			s.read[name] = file != "" // the standard library's
			return nil
		}
		data, rerr := s.readFile(file, datafile.SmallText)
		if rerr != nil {
			return cannot("%s (%s) cannot be read: %v", file, why, rerr)
		}
		if err := s.checkText(data, file+" ("+why+")"); err != nil {
			return err
		}
	}
	s.read[name] = true
	return nil
}

// checkText is checkCode's test of one text.
func (s *searchPath) checkText(text []byte, where string) error {
	if bytes.Contains(text, []byte("_EditableFinder")) && bytes.Contains(text, []byte("MAPPING")) && bytes.Contains(text, []byte("NAMESPACES")) {
		// setuptools' editable finder: it answers for the names in its
		// MAPPING and NAMESPACES only (its path hook and placeholder
		// entry serve those namespaces).
		if pyload.Mentions(text, s.pkg) {
			return cannot("%s is an editable install's finder for %s", where, s.pkg)
		}
		return nil
	}
	if pyload.Mentions(text, s.pkg) {
		return cannot("%s names %s: code run at start-up may decide where it is", where, s.pkg)
	}
	if change := pathChange(text); change != "" {
		return cannot("%s changes the import path (%q)", where, change)
	}
	return nil
}

// moduleSource finds a module's source among the entries outside the
// standard library: ok is false when the standard library has it first, or
// no entry does.
func (s *searchPath) moduleSource(parts []string) (file string, ok bool, err error) {
	rel := filepath.Join(parts...)
	for i, e := range s.entries {
		if i == 0 && e == s.wd || len(s.withPrefix(e, parts[0])) == 0 {
			continue
		}
		for _, cand := range []string{filepath.Join(e, rel, "__init__.py"), filepath.Join(e, rel+".py")} {
			if _, serr := s.stat(cand); serr == nil {
				return cand, !s.trusted[e], nil
			}
		}
		if s.trusted[e] || len(parts) > 1 {
			continue
		}
		for _, n := range s.withPrefix(e, parts[0]+".") {
			if strings.HasSuffix(n, ".so") || strings.HasSuffix(n, ".pyc") {
				return "", false, cannot("%s has no source to read", filepath.Join(e, n))
			}
		}
	}
	return "", false, nil
}

var (
	topLevel      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n\S`) })
	stringLiteral = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\n]*)"|'([^'\n]*)'`) })
)

// siteFlavour names the form of site.getsitepackages in site.py by the
// strings it joins into paths: CPython's own, or Debian's (dist-packages
// under /usr/local and /usr/lib/python3). Any other form is not read.
func (r *reading) siteFlavour(sitePy string) (string, error) {
	data, err := r.readFile(sitePy, datafile.SmallText)
	if err != nil {
		return "", cannot("the standard library's site.py: %v", err)
	}
	text := string(data)
	i := strings.Index(text, "\ndef getsitepackages(")
	if i < 0 {
		return "", cannot("%s defines no getsitepackages", sitePy)
	}
	body := text[i+1:]
	if j := topLevel().FindStringIndex(body); j != nil {
		body = body[:j[0]]
	}
	var lits []string
	for _, m := range stringLiteral().FindAllStringSubmatch(body, -1) {
		lits = append(lits, m[1]+m[2])
	}
	upstream := []string{"", "Lib", "lib", "site-packages", "/", "python%d.%d", "{implementation}{ver[0]}.{ver[1]}{abi_thread}", "abiflags", "t", "/Library", "PYTHONFRAMEWORK", "darwin", "%d.%d", "real_prefix"}
	debian := append([]string{"dist-packages", "local/lib", "python3"}, upstream...)
	switch {
	case subset(lits, upstream) && slices.Contains(lits, "site-packages"):
		return "upstream", nil
	case subset(lits, debian) && slices.Contains(lits, "dist-packages"):
		return "debian", nil
	}
	return "", cannot("%s: getsitepackages is neither CPython's nor Debian's form", sitePy)
}

func subset(xs, of []string) bool {
	for _, x := range xs {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}

package rules

import (
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
)

// ET201 finds Python extensions that depend on libpython.
var ET201 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET201",
		Name:     "extension-links-libpython",
		Severity: finding.Error,
		Summary:  "a Python extension module records a dependency on libpython, or links it statically",
		Why: `An extension is loaded into a python3 that already provides the C API. Linking
libpython3.X.so (CMake Python::Python, ${PYTHON_LIBRARIES}, pybind11::embed) adds a DT_NEEDED
on it, often found through the build machine's absolute path: on a machine without that
file the import fails, with a different interpreter (a venv, conda, a static python)
two copies of the interpreter's state meet. A static libpython3.X.a inside the extension
is a second interpreter outright.`,
		Fix: `Link the module form: Python::Module / Python3::Module (FindPython), pybind11::module,
pybind11_add_module(name MODULE ...), and let the interpreter resolve the C API at load
time.`,
		Before: `$ readelf -d _portable_lib.cpython-311-x86_64-linux-gnu.so | grep NEEDED
 (NEEDED) Shared library: [libpython3.11.so.1.0]`,
		After: `target_link_libraries(_portable_lib PRIVATE Python3::Module)
$ etlink check dist/executorch-*.whl
no findings`,
	},
	Check: checkLibpython,
}

// ET203 finds absolute and build-tree run-time search paths.
var ET203 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET203",
		Name:     "absolute-runpath",
		Severity: finding.Warning,
		Summary:  "a shipped object's RPATH or RUNPATH holds an absolute or build-tree path",
		Why: `The loader searches RPATH/RUNPATH on the user's machine. An absolute path points at
the build machine: at best it finds nothing, at worst it finds a different library that
happens to live there (a security and correctness problem). The severity follows what the
loader does with the path, never the directory's name: a directory it searches anyway (a
system directory) is a note; one where it finds a library the package needs and does not
ship, on the machine etlink runs on, is an error (the package works here and nowhere
else); any other is a warning (a leftover, searched for every dependency on a user's
machine). A build-tree path (.../build/, cmake-build-*/, _skbuild/) is named as such.`,
		Fix: `Use $ORIGIN-relative paths: set_target_properties(t PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
and BUILD_WITH_INSTALL_RPATH, or patchelf --set-rpath '$ORIGIN/...' after the build.`,
		Before: `$ readelf -d libexecutorch.so | grep RUNPATH
 (RUNPATH) Library runpath: [/home/ci/executorch/cmake-out/lib]`,
		After: `$ readelf -d libexecutorch.so | grep RUNPATH
 (RUNPATH) Library runpath: [$ORIGIN]`,
	},
	Check: checkRunpaths,
}

// ET401 finds undefined symbols nothing in the load closure defines.
var ET401 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET401",
		Name:     "unresolved-at-load",
		Severity: finding.Error,
		Summary:  "an undefined non-weak symbol that no object in the load closure defines",
		Why: `A shared library links with undefined symbols allowed; the loader must find each one
in the objects loaded with it. A symbol nothing defines fails the import with "undefined
symbol" (or, lazily bound, the first call) - the custom-op case of a library that links
but does not load once the runtime moved to another library.`,
		Fix: `Link the library that defines the symbol (and ship it), so it is in DT_NEEDED; for a
symbol the interpreter or a peer provides at run time, make that explicit in the
package's import order and document it.`,
		Before: `$ python -c 'import executorch.extension.pybindings._portable_lib'
ImportError: ... undefined symbol: _ZN10executorch7runtime11get_backendEPKc`,
		After: `target_link_libraries(custom_ops PRIVATE executorch)   # libexecutorch.so in DT_NEEDED
$ etlink check dist/executorch-*.whl
no findings`,
	},
	Check: checkUnresolved,
}

// ET402 finds DT_NEEDED entries the loader would not find once installed.
var ET402 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET402",
		Name:     "unresolvable-needed",
		Severity: finding.Error,
		Summary:  "a DT_NEEDED the loader would not find from the installed layout",
		Why: `Installed, the wheel's files sit in site-packages of another machine. Only
$ORIGIN-relative search paths, the system directories and ld.so.cache still lead
anywhere; a library found on the build machine through an absolute RPATH, or not at all,
makes the import fail with "cannot open shared object file".`,
		Fix: `Ship the library in the wheel and point an $ORIGIN-relative RUNPATH at it (auditwheel
repair does this), or link the one the peer (torch) provides through a relative path.`,
		Before: `libexecutorch_backend_xnnpack.so: NEEDED libpthreadpool.so.0, RUNPATH /home/ci/build/lib`,
		After:  `libexecutorch_backend_xnnpack.so: NEEDED libpthreadpool-3b9f1e2a.so.0, RUNPATH $ORIGIN/../../executorch.libs`,
	},
	Check: checkUnfindable,
}

// ET403 finds shipped libraries whose SONAME names no file of the package.
var ET403 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET403",
		Name:     "soname-mismatch",
		Severity: finding.Warning,
		Summary:  "a shipped library whose SONAME names no file the package ships (or, by policy, without a versioned file name)",
		Why: `Consumers linked against a library record its SONAME in DT_NEEDED, and the loader looks
for a file of that name. A SONAME that differs from the shipped file's name is found only
if a file or symlink of that name sits beside it (wheels cannot ship symlinks): a
consumer built against the wheel fails with "cannot open shared object file". A
library without a SONAME is recorded as named on each consumer's link line (note: fine
for a library only ever loaded by path, as ctypes does). The plain libfoo.so layout
(SONAME = file name) that pip's torch wheels ship is fine; a project that wants
versioned names (ExecuTorch: an unversioned libfoo.so is what a leftover of an earlier
build looks like) turns that policy on in etlink.toml: [soname] versioned = true.`,
		Fix: `Ship the file under its SONAME: set_target_properties(t PROPERTIES VERSION 1.0 SOVERSION 1)
and install the file named like the SONAME, or set the SONAME to the shipped name
(-Wl,-soname,libfoo.so, or patchelf --set-soname).`,
		Before: `executorch/lib/libexecutorch.so (SONAME libexecutorch.so.1)`,
		After:  `executorch/lib/libexecutorch.so.1 (SONAME libexecutorch.so.1)`,
	},
	Check: checkSonames,
}

// ET404 finds wheels whose platform tag does not match their machine code.
var ET404 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET404",
		Name:     "wheel-tag-mismatch",
		Severity: finding.Error,
		Summary:  "the wheel's platform tag does not match the ELF machine of its libraries",
		Why: `pip installs a wheel by its tag; an x86_64 library in a wheel tagged aarch64 (or "any")
installs fine and fails at import with "wrong ELF class" or "cannot open shared object".`,
		Fix: `Build the wheel on, or cross-compile for, the machine its tag names, and let the
build backend compute the tag (do not hard-code --plat-name).`,
		Before: `executorch-1.0-cp311-cp311-manylinux_2_28_aarch64.whl containing x86_64 libraries`,
		After:  `executorch-1.0-cp311-cp311-manylinux_2_28_x86_64.whl`,
	},
	Check: checkWheelTag,
}

// ET405 finds wheel entries writable by group or others.
var ET405 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET405",
		Name:     "world-writable-entry",
		Severity: finding.Warning,
		Summary:  "a wheel entry whose recorded mode grants write to group or others",
		Why: `pip applies the mode recorded in the wheel. A library installed group- or
world-writable can be replaced by another user of the machine, and everything that
imports it runs their code.`,
		Fix: `Grant only owner write when staging files (chmod u+w, not an absolute 0777), or set
the modes when building the wheel.`,
		Before: `-rwxrwxrwx executorch/lib/libexecutorch.so.1`,
		After:  `-rwxr-xr-x executorch/lib/libexecutorch.so.1`,
	},
	Check: checkEntryModes,
}

func pkgSubject(o *elfobj.Object) finding.Subject {
	s := finding.Subject{File: o.Path}
	if o.Archive != "" {
		s.File, s.Member = o.Archive, o.Member
	}
	return s
}

// The rules' patterns are compiled when first used, not when etlink starts:
// most commands run none of the rules that use them.
var libpythonName = lazyRegexp(`^libpython3(\.[0-9]+)?[a-z]*\.(so(\..*)?|a)$`)

// lazyRegexp compiles expr on the first call of the function it returns.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// IsLibpython reports whether a file or DT_NEEDED name is libpython3.
func IsLibpython(name string) bool { return libpythonName().MatchString(path.Base(name)) }

func checkLibpython(r *Rule, ctx *Context) []finding.Finding {
	var out []finding.Finding
	if ctx.Package != nil {
		for _, o := range ctx.Package.Objects {
			if !analyze.IsExtension(o) {
				continue
			}
			for _, n := range o.Needed {
				if IsLibpython(n) {
					f := r.newFinding(r.Severity, pkgSubject(o), fmt.Sprintf("extension needs %s: a hard dependency on the build machine's interpreter library", n))
					f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s is a Python extension and records DT_NEEDED %s", o.Path, n), File: o.Path}}
					f.Fix = r.Fix
					out = append(out, f)
				}
			}
			for i := range o.Symbols {
				if s := &o.Symbols[i]; s.Name == "Py_Initialize" && s.Defined() {
					f := r.newFinding(r.Severity, pkgSubject(o), "extension contains a static libpython (defines Py_Initialize): a second interpreter inside the module")
					f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s defines Py_Initialize", o.Path), File: o.Path, Symbol: "Py_Initialize"}}
					f.Fix = r.Fix
					out = append(out, f)
				}
			}
		}
	}
	for _, lf := range ctx.Retention {
		if lf.Extension == "" {
			continue
		}
		for _, in := range lf.Link.Inputs {
			if in.Implicit || !(IsLibpython(in.Path) || IsLibpython(in.Arg) || libpythonFlag(in.Arg)) {
				continue
			}
			subj := finding.Subject{File: lf.Link.Output, Target: consumerName(lf)}
			f := r.newFinding(r.Severity, subj, fmt.Sprintf("extension %s links %s: a hard dependency on the build machine's interpreter library", consumerName(lf), in.Arg))
			f.Location = location(in, lf.Link)
			f.Evidence = []finding.Step{{Text: "a Python extension module: " + lf.Extension}, inputStep(in, lf.Link)}
			f.Fix = r.Fix
			out = append(out, f)
		}
	}
	return out
}

func libpythonFlag(arg string) bool {
	return strings.HasPrefix(arg, "-lpython3")
}

// buildDirComponent matches one path component of a build tree.
var buildDirComponent = lazyRegexp(`^(build|_build|builddir|CMakeFiles|_skbuild|bazel-out|cmake-build-.*|cmake-out|pip-req-build-.*|pip-build-env-.*)$`)

// BuildTreePath reports whether p has a component that names a build tree;
// components are matched whole, so /home/u/cmake-outputs/x is not one.
func BuildTreePath(p string) (string, bool) {
	for _, c := range strings.Split(p, "/") {
		if buildDirComponent().MatchString(c) {
			return c, true
		}
	}
	return "", false
}

// foundOnlyIn is the first library o needs that directory dir holds on
// this machine and the package does not ship (by file name or SONAME);
// "" when there is none.
func foundOnlyIn(dir string, o *elfobj.Object, pkg *analyze.Package) string {
	shipped := map[string]bool{}
	for _, p := range pkg.Objects {
		shipped[filepath.Base(p.Path)], shipped[p.Soname] = true, true
	}
	for _, lib := range o.Needed {
		if shipped[lib] {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, lib)); err == nil && fi.Mode().IsRegular() {
			return lib
		}
	}
	return ""
}

func checkRunpaths(r *Rule, ctx *Context) []finding.Finding {
	if ctx.Package == nil {
		return nil
	}
	var out []finding.Finding
	for _, o := range ctx.Package.Objects {
		for _, list := range []struct {
			tag   string
			paths []string
		}{{"RPATH", o.Rpath}, {"RUNPATH", o.Runpath}} {
			for _, p := range list.paths {
				if strings.HasPrefix(p, "$ORIGIN") || strings.HasPrefix(p, "${ORIGIN}") {
					continue
				}
				sev, why := r.Severity, "an absolute path of the build machine"
				if comp, ok := BuildTreePath(p); ok {
					why = fmt.Sprintf("a build-tree path (component %q)", comp)
				} else if !strings.HasPrefix(p, "/") {
					why = "a path relative to the process's working directory"
				}
				switch lib := foundOnlyIn(p, o, ctx.Package); {
				case analyze.IsSystemDir(p, o.Machine, o.Class):
					sev, why = finding.Note, "a system directory, searched anyway"
				case lib != "":
					sev, why = finding.Error, why+fmt.Sprintf(": the loader finds %s there on this machine, and the package does not ship it", lib)
				default:
					why += ": it holds nothing the object needs here, but the loader searches it for every dependency on a user's machine"
				}
				subj := pkgSubject(o)
				subj.Symbol = list.tag + "=" + p
				f := r.newFinding(sev, subj, fmt.Sprintf("%s %s is %s", list.tag, p, why))
				f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s: DT_%s %s", o.Path, list.tag, strings.Join(list.paths, ":")), File: o.Path}}
				f.Fix = r.Fix
				out = append(out, f)
			}
		}
	}
	return out
}

func checkUnresolved(r *Rule, ctx *Context) []finding.Finding {
	b := ctx.Build
	if b == nil {
		return nil
	}
	var out []finding.Finding
	for _, o := range b.Wheel.Inputs {
		p := b.Process
		switch {
		case o.Type != elf.ET_DYN && o.Type != elf.ET_EXEC:
			continue
		case o.Executable: // a program runs in a process of its own
			p = analyze.NewProcess(b.Loader)
			p.Exec(o)
		case !p.Mapped(o):
			continue // never loaded: a file of the same SONAME was mapped instead
		}
		out = append(out, unresolvedIn(r, ctx, p, o)...)
	}
	return out
}

// unresolvedIn reports o's undefined symbols its own dependencies do not
// define: an error when nothing in its process does, a note when the
// process provides them from elsewhere (the interpreter's libm, a library
// opened RTLD_GLOBAL) or when etlink cannot tell (a dependency not found,
// no interpreter read). The interpreter's own exports, the C API, are what
// an extension is meant to take from it.
func unresolvedIn(r *Rule, ctx *Context, p *analyze.Process, o *elfobj.Object) []finding.Finding {
	needs, missing := p.Needs(o)
	var out []finding.Finding
	relies := map[*elfobj.Object][]string{}
	var providers []*elfobj.Object
	var undecided []string
	for _, u := range needs {
		switch {
		case u.By != nil && u.By == p.Exe:
		case u.By != nil:
			if _, ok := relies[u.By]; !ok {
				providers = append(providers, u.By)
			}
			relies[u.By] = append(relies[u.By], u.Name)
		case p.Exe == nil && (strings.HasPrefix(u.Name, "Py") || strings.HasPrefix(u.Name, "_Py")):
			// No interpreter was read: its C API is taken as given.
		case len(missing) > 0 || p.Exe == nil:
			undecided = append(undecided, u.Name)
		default:
			subj := pkgSubject(o)
			subj.Symbol = u.Name
			subj.Demangled = demangle.Name(u.Name)
			sev, msg := r.Severity, fmt.Sprintf("%s is undefined and nothing %s loads defines it", subj.Demangled, baseName(o.Path))
			evidence := []finding.Step{
				{Text: fmt.Sprintf("%s needs %s (undefined, not weak)", o.Path, versioned(u.Name, u.Version)), File: o.Path, Symbol: u.Name},
				{Text: fmt.Sprintf("its load scope: %s", scopeNames(scopeOf(p, o)))},
			}
			if def := shippedDefiner(ctx.Build.Wheel, o, u.Name); def != nil {
				msg += fmt.Sprintf("; %s defines it but is not in its scope", baseName(def.Path))
				evidence = append(evidence, finding.Step{Text: fmt.Sprintf("%s exports %s", def.Path, u.Name), File: def.Path, Symbol: u.Name})
				if alt := alternative(ctx.Build.Wheel, def); alt != nil {
					// Only a branch the default import does not take opens
					// the definer RTLD_GLOBAL: etlink cannot tell which runs.
					sev = finding.Note
					msg += fmt.Sprintf(" unless the package's Python opens it RTLD_GLOBAL first, which it does only %s", alt.Cond)
					evidence = append(evidence, finding.Step{Text: alt.Why, File: def.Path})
				}
			}
			f := r.newFinding(sev, subj, msg)
			f.Evidence = evidence
			f.Fix = r.Fix
			out = append(out, f)
		}
	}
	for _, by := range providers {
		names := relies[by]
		how := "which " + baseName(p.Exe.Path) + " loads"
		if !p.FromExe(by) {
			how = "which was opened RTLD_GLOBAL before it"
			if w := openedWhy(ctx.Build, by); w != "" {
				how += " (" + w + ")"
			}
		}
		subj := pkgSubject(o)
		subj.Symbol = "provided-by:" + baseName(by.Path)
		f := r.newFinding(finding.Note, subj, fmt.Sprintf("%d undefined symbols (%s) are not in its own dependencies: they bind to %s, %s; it loads only where that holds",
			len(names), listSome(names, 4), baseName(by.Path), how))
		f.Evidence = []finding.Step{
			{Text: fmt.Sprintf("%s needs %s and no library of its DT_NEEDED tree defines them", o.Path, strings.Join(names, " ")), File: o.Path},
			{Text: fmt.Sprintf("in %s's process they bind to %s", baseName(p.Exe.Path), by.Path), File: by.Path},
		}
		f.Fix = fmt.Sprintf("Link %s explicitly (it is then in DT_NEEDED) if the module must load outside this interpreter.", baseName(by.Path))
		f.Details = map[string]any{"provider": by.Path, "symbols": names}
		out = append(out, f)
	}
	if len(undecided) > 0 {
		why := "no Python interpreter was read (pass --python)"
		if len(missing) > 0 {
			why = fmt.Sprintf("its dependency %s was not found here", missing[0].Name)
		}
		subj := pkgSubject(o)
		subj.Symbol = "undecided"
		f := r.newFinding(finding.Note, subj, fmt.Sprintf("cannot tell whether %d undefined symbols (%s) are defined at load time: %s",
			len(undecided), listSome(undecided, 4), why))
		f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s needs %s", o.Path, strings.Join(undecided, " ")), File: o.Path}}
		f.Details = map[string]any{"symbols": undecided}
		out = append(out, f)
	}
	return out
}

// shippedDefiner is an object the side ships, other than o, that exports
// name: what the message names when o cannot reach it.
func shippedDefiner(side *analyze.Side, o *elfobj.Object, name string) *elfobj.Object {
	if side == nil {
		return nil
	}
	for _, q := range side.Inputs {
		if q == o {
			continue
		}
		for i := range q.Symbols {
			if s := &q.Symbols[i]; s.Name == name && s.Exported() {
				return q
			}
		}
	}
	return nil
}

// alternative is the root of side's Python that opens o RTLD_GLOBAL on a
// branch the default import does not take; nil when there is none.
func alternative(side *analyze.Side, o *elfobj.Object) *analyze.Root {
	for i := range side.Alternatives {
		if a := &side.Alternatives[i]; a.Object == o && a.Global {
			return a
		}
	}
	return nil
}

// openedWhy is where the package's Python opens o RTLD_GLOBAL, "" when no
// root of the build says.
func openedWhy(b *analyze.Build, o *elfobj.Object) string {
	for _, side := range []*analyze.Side{b.Wheel, b.Peer} {
		if side == nil {
			continue
		}
		for _, r := range side.Roots {
			if r.Object == o && r.Why != "" {
				return r.Why
			}
		}
	}
	return ""
}

// scopeOf is o's lookup scope in p, or what it maps when o is p's program.
func scopeOf(p *analyze.Process, o *elfobj.Object) []*elfobj.Object {
	if s := p.Scope(o); len(s) > 0 {
		return s
	}
	return p.Order
}

func versioned(name, version string) string {
	if version == "" {
		return name
	}
	return name + "@" + version
}

// listSome names the first n of names, and how many more there are.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func scopeNames(objs []*elfobj.Object) string {
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = path.Base(strings.ReplaceAll(o.Path, "!", "/"))
	}
	if len(names) > 12 {
		return strings.Join(names[:12], " ") + fmt.Sprintf(" ... (%d objects)", len(names))
	}
	return strings.Join(names, " ")
}

func checkUnfindable(r *Rule, ctx *Context) []finding.Finding {
	if ctx.Package == nil || ctx.Relocated == nil {
		return nil
	}
	p := analyze.NewProcess(ctx.Relocated)
	shipped := map[*elfobj.Object]bool{}
	for _, o := range ctx.Package.Objects {
		shipped[o] = true
	}
	for _, o := range ctx.Package.Objects {
		if o.Type == elf.ET_DYN && !p.Mapped(o) {
			p.Dlopen(o, false)
		}
	}
	var out []finding.Finding
	for _, d := range ctx.Package.Dangling {
		if !sharedLibName().MatchString(path.Base(d.Path)) {
			continue // a link to headers or data: said on stderr, no loader concern
		}
		subj := finding.Subject{File: d.Path}
		f := r.newFinding(finding.Note, subj, fmt.Sprintf("%s leads to no file: loading it by name or path fails (a shipped object that needs it is an error of its own)", path.Base(d.Path)))
		f.Evidence = []finding.Step{{Text: d.Error(), File: d.Path}}
		f.Fix = "Ship the file the link points to, or drop the link."
		out = append(out, f)
	}
	seen := map[string]bool{}
	for _, m := range p.Missing {
		if !shipped[m.From] || seen[m.From.Path+"\x00"+m.Name] {
			continue
		}
		seen[m.From.Path+"\x00"+m.Name] = true
		subj := pkgSubject(m.From)
		subj.Symbol = m.Name
		f := r.newFinding(r.Severity, subj, fmt.Sprintf("DT_NEEDED %s would not be found once installed", m.Name))
		f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s needs %s; RPATH %v RUNPATH %v", m.From.Path, m.Name, m.From.Rpath, m.From.Runpath), File: m.From.Path}}
		for _, t := range m.Tried {
			f.Evidence = append(f.Evidence, finding.Step{Text: "tried " + t})
		}
		f.Fix = r.Fix
		out = append(out, f)
	}
	return out
}

var sharedLibName = lazyRegexp(`\.so(\.[0-9]+)*$`)

var versionedSo = lazyRegexp(`\.so\.[0-9]+(\.[0-9]+)*$`)

func checkSonames(r *Rule, ctx *Context) []finding.Finding {
	if ctx.Package == nil {
		return nil
	}
	shipped := map[string]bool{} // the directories' file names, as dir/name
	for _, o := range ctx.Package.Objects {
		shipped[objectDir(o)+"/"+baseName(o.Path)] = true
		if o.Real != "" {
			shipped[objectDir(o)+"/"+path.Base(o.Real)] = true
		}
	}
	versioned := ctx.Config != nil && ctx.Config.Soname.Versioned
	var out []finding.Finding
	for _, o := range ctx.Package.Objects {
		if o.Type != elf.ET_DYN || o.Executable || analyze.IsExtension(o) || o.Archive != "" {
			continue
		}
		base := baseName(o.Path)
		sev, msg := r.Severity, ""
		switch {
		case o.Soname == "":
			sev, msg = finding.Note, fmt.Sprintf("%s has no SONAME: a library linked against it records DT_NEEDED as named on the link line (fine if it is only loaded by path)", base)
		case o.Soname != base && !shipped[objectDir(o)+"/"+o.Soname] && !sonameOnDisk(o):
			msg = fmt.Sprintf("%s has SONAME %s, and no file of that name is shipped beside it: consumers linked against it will not find it", base, o.Soname)
		case versioned && !versionedSo().MatchString(base):
			msg = fmt.Sprintf("%s has no version in its file name (etlink.toml [soname] versioned = true)", base)
		default:
			continue
		}
		f := r.newFinding(sev, pkgSubject(o), msg)
		f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s: file name %s, DT_SONAME %q", o.Path, base, o.Soname), File: o.Path}}
		if o.Real != "" && path.Base(o.Real) != base {
			f.Evidence = append(f.Evidence, finding.Step{Text: fmt.Sprintf("%s is a link to %s", o.Path, o.Real), File: o.Real})
		}
		f.Fix = r.Fix
		out = append(out, f)
	}
	return out
}

// sonameOnDisk reports whether a file named like o's SONAME, beside o or
// beside the file o's links lead to, is o itself: an installed tree's
// libfoo.so -> libfoo.so.1 -> libfoo.so.1.2 chain, which ldconfig keeps.
func sonameOnDisk(o *elfobj.Object) bool {
	if o.Real == "" {
		return false
	}
	for _, dir := range []string{filepath.Dir(o.Path), filepath.Dir(o.Real)} {
		if r, err := filepath.EvalSymlinks(filepath.Join(dir, o.Soname)); err == nil && r == o.Real {
			return true
		}
	}
	return false
}

// objectDir is the directory of o in its own namespace (wheel.whl!dir).
func objectDir(o *elfobj.Object) string {
	p := o.Path
	if i := strings.LastIndexAny(p, "/!"); i >= 0 {
		return p[:i]
	}
	return "."
}

func checkWheelTag(r *Rule, ctx *Context) []finding.Finding {
	pkg := ctx.Package
	if pkg == nil || !pkg.Wheel {
		return nil
	}
	var out []finding.Finding
	for _, o := range pkg.Objects {
		if o.Type == elf.ET_REL {
			continue
		}
		for _, tag := range pkg.Platforms {
			m, ok := analyze.PlatformMachine(tag)
			if ok && m == o.Machine {
				continue
			}
			msg := fmt.Sprintf("%s code in a wheel tagged %s", o.MachineName(), tag)
			if !ok {
				msg = fmt.Sprintf("%s code in a wheel tagged %s, which names no Linux machine", o.MachineName(), tag)
			}
			subj := pkgSubject(o)
			subj.Target = tag
			f := r.newFinding(r.Severity, subj, msg)
			f.Evidence = []finding.Step{{Text: fmt.Sprintf("%s: ELF machine %s; wheel %s: platform tag %s", o.Path, o.MachineName(), path.Base(pkg.Path), tag), File: o.Path}}
			f.Fix = r.Fix
			out = append(out, f)
		}
	}
	return out
}

// ET407 finds a wheel that holds two entries of one name.
var ET407 = &Rule{
	RuleDoc: finding.RuleDoc{
		ID:       "ET407",
		Name:     "duplicate-wheel-entry",
		Severity: finding.Error,
		Summary:  "a wheel holds two entries under one name",
		Why: `A zip file may list a name twice. Installers disagree on which copy wins (pip keeps
the last, others the first or refuse the wheel), so what runs depends on the installer,
and a reviewer or scanner that reads one copy does not see the other: the other may be
a different library.`,
		Fix: `Build the wheel with a tool that writes each file once (pip wheel, build, scikit-build-core,
auditwheel repair); do not append to an existing wheel with zip.`,
		Before: `$ unzip -l pkg.whl | grep libexecutorch.so
   8402  pkg/lib/libexecutorch.so
   9120  pkg/lib/libexecutorch.so`,
		After: `$ unzip -l pkg.whl | grep libexecutorch.so
   9120  pkg/lib/libexecutorch.so`,
	},
	Check: checkDuplicateEntries,
}

func checkDuplicateEntries(r *Rule, ctx *Context) []finding.Finding {
	pkg := ctx.Package
	if pkg == nil || !pkg.Wheel {
		return nil
	}
	count := map[string]int{}
	var order []string
	for _, e := range pkg.Entries {
		name := path.Clean(e.Name)
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
	}
	var out []finding.Finding
	for _, name := range order {
		if count[name] < 2 {
			continue
		}
		f := r.newFinding(r.Severity, finding.Subject{File: pkg.Path + "!" + name}, fmt.Sprintf("%s is in the wheel %d times: which copy is installed depends on the installer", name, count[name]))
		f.Fix = r.Fix
		out = append(out, f)
	}
	return out
}

func checkEntryModes(r *Rule, ctx *Context) []finding.Finding {
	pkg := ctx.Package
	if pkg == nil || !pkg.Wheel {
		return nil
	}
	var out []finding.Finding
	for _, e := range pkg.Entries {
		if e.Mode.Perm()&0o022 == 0 {
			continue
		}
		subj := finding.Subject{File: pkg.Path + "!" + e.Name}
		f := r.newFinding(r.Severity, subj, fmt.Sprintf("%s is installed with mode %s: writable by group or others", e.Name, e.Mode.Perm()))
		f.Evidence = []finding.Step{{Text: fmt.Sprintf("zip entry %s records mode %04o", e.Name, uint32(e.Mode.Perm())), File: pkg.Path}}
		f.Fix = r.Fix
		out = append(out, f)
	}
	return out
}

package analyze

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/linkline"
	"github.com/etlink/etlink/linkmap"
)

// LinkInputs are the links and maps found among the user's inputs.
type LinkInputs struct {
	Links []*linkline.Link
	Maps  []*linkmap.Map
	// Sources says, per input path, what was read from it (for notes).
	Sources map[string]string
	// Stale are the File API replies older than their CMake sources, and
	// staleOf the one each link was read from.
	Stale   []*StaleReply
	staleOf map[*linkline.Link]*StaleReply
	// mapOpt is what retention asks of a map: which inputs were loaded,
	// extracted and kept, and why; never its symbol list.
	mapOpt linkmap.Options
}

// CollectLinks reads a mix of inputs: build directories (the CMake File API
// reply when there is one, since it maps each link item to its
// CMakeLists.txt line; else build.ninja; else every CMakeFiles/*/link.txt;
// plus every linker map below it), link.txt and build.ninja files, map
// files, and raw command lines or build logs. Unreadable inputs give errors
// and the others are still read. ELF files are not links: the engine finds
// each link's output itself.
func CollectLinks(paths []string, opt linkline.Options) (*LinkInputs, []error) {
	in := &LinkInputs{Sources: map[string]string{}, staleOf: map[*linkline.Link]*StaleReply{}, mapOpt: linkmap.Options{NoSymbols: true, Budget: opt.Budget}}
	var errs []error
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, &datafile.Error{Path: p, Err: unwrapPath(err)})
			continue
		}
		if fi.IsDir() {
			errs = append(errs, in.dir(p, opt)...)
			continue
		}
		errs = append(errs, in.file(p, opt, true)...)
	}
	return in, errs
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (in *LinkInputs) dir(dir string, opt linkline.Options) []error {
	var errs []error
	var links []*linkline.Link
	if exists(filepath.Join(dir, ".cmake", "api", "v1", "reply")) {
		links, errs = linkline.ParseFileAPI(dir, opt)
		in.Sources[dir] = "CMake File API reply" + driverSources(links)
		if len(links) == 0 && len(errs) > 0 {
			// An unusable reply (a query CMake did not answer in full, a
			// reply of another version): the generator's own files say the
			// same, without the CMakeLists.txt lines.
			alt, altErrs, what := generatorLinks(dir, opt)
			if len(alt) > 0 {
				in.Sources[dir] = fmt.Sprintf("%s: the File API reply gave no link (%v)", what, errs[0])
				links, errs = alt, altErrs
			}
		} else if st := staleReply(dir, links); st != nil {
			in.Stale = append(in.Stale, st)
			for _, l := range links {
				in.staleOf[l] = st
			}
		}
	} else {
		var what string
		links, errs, what = generatorLinks(dir, opt)
		in.Sources[dir] = what
	}
	in.Links = append(in.Links, links...)
	// Maps: every file whose first bytes a linker map starts with.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".map") {
			return nil
		}
		if isMap(p) {
			errs = append(errs, in.file(p, opt, false)...)
		}
		return nil
	})
	return errs
}

// generatorLinks reads the links of a build directory from what the
// generator wrote: build.ninja, else every CMakeFiles/*/link.txt (a static
// library's, which only runs ar, is no link and no error). what says which.
func generatorLinks(dir string, opt linkline.Options) (links []*linkline.Link, errs []error, what string) {
	if ninja := filepath.Join(dir, "build.ninja"); exists(ninja) {
		links, errs = linkline.ParseNinja(ninja, opt)
		return links, errs, "build.ninja"
	}
	var txts []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "link.txt" {
			txts = append(txts, p)
		}
		return nil
	})
	sort.Strings(txts)
	archives := 0
	for _, t := range txts {
		l, err := linkline.ParseLinkTxt(t, opt)
		switch {
		case errors.Is(err, linkline.ErrArchive):
			archives++
		case err != nil:
			errs = append(errs, err)
		default:
			links = append(links, l)
		}
	}
	what = fmt.Sprintf("%d link.txt files", len(txts))
	if archives > 0 {
		what += fmt.Sprintf(" (%d of them static archives' ar commands)", archives)
	}
	return links, errs, what
}

// driverSources says where a File API reply's links took their compiler
// when it was not the toolchains-v1 reply (no toolchains-v1 query).
func driverSources(links []*linkline.Link) string {
	seen := map[string]bool{}
	var from []string
	for _, l := range links {
		if s := l.DriverSource; s != "" && s != "the toolchains-v1 reply" && !seen[s] {
			seen[s] = true
			from = append(from, s)
		}
	}
	if len(from) == 0 {
		return ""
	}
	sort.Strings(from)
	return " (no toolchains-v1 reply: compilers from " + strings.Join(from, ", ") + ")"
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isMap peeks at a file for a linker map's opening.
func isMap(p string) bool {
	f, _, err := datafile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return linkmap.LooksLikeMap(head[:n])
}

// file reads one named file by its name and content.
func (in *LinkInputs) file(p string, opt linkline.Options, explicit bool) []error {
	base := filepath.Base(p)
	switch {
	case base == "link.txt":
		l, err := linkline.ParseLinkTxt(p, opt)
		if errors.Is(err, linkline.ErrArchive) {
			in.Sources[p] = "a static archive's ar command: no link"
			return nil
		}
		if err != nil {
			return []error{err}
		}
		in.Links = append(in.Links, l)
	case strings.HasSuffix(base, ".ninja"): // build.ninja, Ninja Multi-Config's build-Debug.ninja
		links, errs := linkline.ParseNinja(p, opt)
		in.Links = append(in.Links, links...)
		return errs
	case isMap(p):
		m, err := linkmap.ParseFile(p, in.mapOpt)
		if err != nil {
			return []error{err}
		}
		in.Maps = append(in.Maps, m)
	default:
		if elfobj.IsELFFile(p) {
			if explicit {
				return []error{&datafile.Error{Path: p, Err: errors.New("an ELF file is not a link line; give the build directory, link.txt, build.ninja or a build log")}}
			}
			return nil
		}
		f, _, err := datafile.Open(p)
		if err != nil {
			return []error{err}
		}
		defer f.Close()
		o := opt
		if o.Dir == "" {
			o.Dir = filepath.Dir(p)
		}
		links, errs := linkline.ParseLog(f, p, o)
		if len(links) == 0 && len(errs) == 0 {
			errs = append(errs, &datafile.Error{Path: p, Err: errors.New("no link command found")})
		}
		in.Links = append(in.Links, links...)
		return errs
	}
	return nil
}

// MapFor finds the map a link wrote: among the maps given, the file its
// -Map option names, else OUTPUT.map beside the output; else the file -Map
// names, read now when it exists (a build.ninja or link.txt given alone
// still has its map). A map -Map names that cannot be parsed is an error.
func (in *LinkInputs) MapFor(l *linkline.Link) (*linkmap.Map, error) {
	named := abs(l.Dir, l.MapFile)
	want := []string{named, abs(l.Dir, l.Output) + ".map"}
	for _, m := range in.Maps {
		for _, w := range want {
			if w != "" && sameFile(m.Path, w) && (filepath.Base(m.Path) == filepath.Base(w)) {
				return m, nil
			}
		}
	}
	if named == "" || !exists(named) {
		return nil, nil
	}
	m, err := linkmap.ParseFile(named, in.mapOpt)
	if err != nil {
		return nil, err
	}
	in.Maps = append(in.Maps, m)
	return m, nil
}

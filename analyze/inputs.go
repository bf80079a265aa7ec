package analyze

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
}

// CollectLinks reads a mix of inputs: build directories (the CMake File API
// reply when there is one, since it maps each link item to its
// CMakeLists.txt line; else build.ninja; else every CMakeFiles/*/link.txt;
// plus every linker map below it), link.txt and build.ninja files, map
// files, and raw command lines or build logs. Unreadable inputs give errors
// and the others are still read. ELF files are not links: the engine finds
// each link's output itself.
func CollectLinks(paths []string, opt linkline.Options) (*LinkInputs, []error) {
	in := &LinkInputs{Sources: map[string]string{}}
	var errs []error
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, unwrapPath(err)))
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
	switch {
	case exists(filepath.Join(dir, ".cmake", "api", "v1", "reply")):
		links, errs = linkline.ParseFileAPI(dir, opt)
		in.Sources[dir] = "CMake File API reply"
	case exists(filepath.Join(dir, "build.ninja")):
		links, errs = linkline.ParseNinja(filepath.Join(dir, "build.ninja"), opt)
		in.Sources[dir] = "build.ninja"
	default:
		var txts []string
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "link.txt" {
				txts = append(txts, p)
			}
			return nil
		})
		sort.Strings(txts)
		for _, t := range txts {
			l, err := linkline.ParseLinkTxt(t, opt)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			links = append(links, l)
		}
		in.Sources[dir] = fmt.Sprintf("%d link.txt files", len(txts))
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

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// isMap peeks at a file for a linker map's opening.
func isMap(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := f.Read(head)
	_, ok := linkmap.Detect(head[:n])
	return ok
}

// file reads one named file by its name and content.
func (in *LinkInputs) file(p string, opt linkline.Options, explicit bool) []error {
	base := filepath.Base(p)
	switch {
	case base == "link.txt":
		l, err := linkline.ParseLinkTxt(p, opt)
		if err != nil {
			return []error{err}
		}
		in.Links = append(in.Links, l)
	case base == "build.ninja":
		links, errs := linkline.ParseNinja(p, opt)
		in.Links = append(in.Links, links...)
		return errs
	case isMap(p):
		m, err := linkmap.ParseFile(p)
		if err != nil {
			return []error{err}
		}
		in.Maps = append(in.Maps, m)
	default:
		if elfobj.IsELFFile(p) {
			if explicit {
				return []error{fmt.Errorf("%s: an ELF file is not a link line; give the build directory, link.txt, build.ninja or a build log", p)}
			}
			return nil
		}
		f, err := os.Open(p)
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
			errs = append(errs, fmt.Errorf("%s: no link command found", p))
		}
		in.Links = append(in.Links, links...)
		return errs
	}
	return nil
}

// MapFor finds the map a link wrote: the file its -Map option names, else
// OUTPUT.map beside the output.
func (in *LinkInputs) MapFor(l *linkline.Link) *linkmap.Map {
	want := []string{abs(l.Dir, l.MapFile), abs(l.Dir, l.Output) + ".map"}
	for _, m := range in.Maps {
		for _, w := range want {
			if w != "" && sameFile(m.Path, w) && (filepath.Base(m.Path) == filepath.Base(w)) {
				return m
			}
		}
	}
	return nil
}

package analyze

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/etlink/etlink/datafile"
	"github.com/etlink/etlink/linkline"
)

// StaleReply is a CMake File API reply older than CMake sources it was
// generated from (edited without a re-configure): the lines it gives may
// no longer hold what it says.
type StaleReply struct {
	BuildDir string
	// Index is the reply's index file, whose time is the configure's.
	Index     string
	RepliedAt time.Time
	// Changed is the newest source changed since, at ChangedAt; Count
	// how many changed.
	Changed   string
	ChangedAt time.Time
	Count     int
}

// staleReply compares the newest index-*.json of buildDir's reply (the one
// linkline reads) with the project's CMake files: those the reply's
// cmakeFiles-v1 object lists from the source tree (not CMake's own modules,
// other external or generated files), and the CMakeLists.txt files its
// links' lines were taken from. nil when none is newer, or the reply
// cannot be dated.
func staleReply(buildDir string, links []*linkline.Link) *StaleReply {
	reply := filepath.Join(buildDir, ".cmake", "api", "v1", "reply")
	idx, _ := filepath.Glob(filepath.Join(reply, "index-*.json"))
	if len(idx) == 0 {
		return nil
	}
	sort.Strings(idx)
	index := idx[len(idx)-1]
	fi, err := os.Stat(index)
	if err != nil {
		return nil
	}
	s := &StaleReply{BuildDir: buildDir, Index: index, RepliedAt: fi.ModTime()}
	for _, f := range cmakeSources(reply, index, links) {
		fi, err := os.Stat(f)
		if err != nil || !fi.ModTime().After(s.RepliedAt) {
			continue
		}
		s.Count++
		if fi.ModTime().After(s.ChangedAt) {
			s.Changed, s.ChangedAt = f, fi.ModTime()
		}
	}
	if s.Count == 0 {
		return nil
	}
	return s
}

// cmakeSources are the project's CMake files a reply came from, each once.
func cmakeSources(reply, index string, links []*linkline.Link) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, f := range cmakeFilesReply(reply, index) {
		add(f)
	}
	for _, l := range links {
		add(l.Source.CMakeFile)
		for _, in := range l.Inputs {
			add(in.Source.CMakeFile)
		}
	}
	return out
}

// cmakeFilesReply lists the source tree's files of the reply's
// cmakeFiles-v1 object, absolute; none when the query did not ask for it.
func cmakeFilesReply(reply, index string) []string {
	var idx struct {
		Objects []struct {
			Kind    string `json:"kind"`
			Version struct {
				Major int `json:"major"`
			} `json:"version"`
			JSONFile string `json:"jsonFile"`
		} `json:"objects"`
	}
	if readJSONFile(index, &idx) != nil {
		return nil
	}
	for _, o := range idx.Objects {
		// A reply is part of an untrusted tree: only a file of the reply
		// directory itself is read.
		if o.Kind != "cmakeFiles" || o.Version.Major != 1 || filepath.Base(o.JSONFile) != o.JSONFile {
			continue
		}
		var cf struct {
			Paths struct {
				Source string `json:"source"`
			} `json:"paths"`
			Inputs []struct {
				Path        string `json:"path"`
				IsGenerated bool   `json:"isGenerated"`
				IsExternal  bool   `json:"isExternal"`
				IsCMake     bool   `json:"isCMake"`
			} `json:"inputs"`
		}
		if readJSONFile(filepath.Join(reply, o.JSONFile), &cf) != nil {
			return nil
		}
		var out []string
		for _, in := range cf.Inputs {
			if in.IsGenerated || in.IsExternal || in.IsCMake {
				continue
			}
			p := in.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(cf.Paths.Source, p)
			}
			out = append(out, p)
		}
		return out
	}
	return nil
}

func readJSONFile(p string, v any) error {
	data, err := datafile.ReadFile(p, datafile.LargeText)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Summary says what changed since the configure: the newest file, when,
// and how many others.
func (s *StaleReply) Summary() string {
	out := s.Changed + " changed after the configure"
	if d := s.ChangedAt.Sub(s.RepliedAt).Round(time.Second); d > 0 {
		out = fmt.Sprintf("%s changed %s after the configure", s.Changed, d)
	}
	switch {
	case s.Count == 2:
		out += ", and 1 more CMake file"
	case s.Count > 2:
		out += fmt.Sprintf(", and %d more CMake files", s.Count-1)
	}
	return out
}

package pyload

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/sysfile"
	"github.com/etlink/etlink/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/distpackages.golden from what Read returns now")

const (
	distPackages = "/usr/lib/python3/dist-packages"
	goldenFile   = "testdata/distpackages.golden"
)

// TestDistPackages holds Read to the plans it returned, when the golden
// was made, for every package directory of Debian's dist-packages that
// ships shared objects (its natives: every .so below it). Each entry keeps
// the names the reading opened, listed or looked for, with a hash of what
// each was: an entry whose inputs changed since (a package upgraded) is
// not compared and is named in the log; regenerate with -update at a
// commit whose plans are trusted.
func TestDistPackages(t *testing.T) {
	testenv.NeedFiles(t, path.Join(distPackages, "torch", "__init__.py"))
	golden := map[string]goldenEntry{}
	if !*update {
		golden = readGolden(t)
	}
	var out strings.Builder
	out.WriteString("# pyload.Read of each package directory of " + distPackages + " that ships .so files\n# (go test ./pyload -run TestDistPackages -update rewrites it).\n")
	compared, stale := 0, []string{}
	natives := soFiles(t)
	for _, dir := range slices.Sorted(maps.Keys(natives)) {
		rec := &recordFS{FS: os.DirFS(distPackages), names: map[string]bool{}}
		plans := formatPlans(Read(rec, dir, natives[dir]))
		// Read through a BufferFS (analyze's directory trees) reads the same.
		brec := &recordFS{FS: os.DirFS(distPackages), names: map[string]bool{}}
		if got := formatPlans(Read(bufferFS{brec}, dir, natives[dir])); got != plans || !maps.Equal(brec.names, rec.names) {
			t.Errorf("%s: read into buffers:\n%s\n%q\nthrough fs.File:\n%s\n%q", dir, got, slices.Sorted(maps.Keys(brec.names)), plans, slices.Sorted(maps.Keys(rec.names)))
		}
		want, ok := golden[dir]
		switch {
		case *update:
			fmt.Fprintf(&out, "== %s\n%s%s", dir, rec.inputs(), plans)
		case !ok:
			stale = append(stale, dir+" (not in the golden)")
		case fingerprint(want.inputNames()) != want.inputs:
			stale = append(stale, dir+" (its inputs changed)")
		default:
			compared++
			if plans != want.plans {
				t.Errorf("%s: Read's plans changed:\ngot\n%s\nwant\n%s", dir, plans, want.plans)
			}
		}
	}
	if *update {
		if err := os.WriteFile(goldenFile, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if len(stale) > 0 {
		t.Logf("not compared (regenerate with -update at a commit whose plans are trusted): %s", strings.Join(stale, ", "))
	}
	if compared == 0 {
		testenv.Missing(t, "no package of the golden is installed as it was")
	}
	t.Logf("%d package directories compared", compared)
}

// soFiles lists the .so files below each package directory that ships
// one, as slash paths in dist-packages.
func soFiles(t *testing.T) map[string][]string {
	out := map[string][]string{}
	err := fs.WalkDir(os.DirFS(distPackages), ".", func(p string, d fs.DirEntry, err error) error {
		if top, _, below := strings.Cut(p, "/"); err == nil && below && !d.IsDir() && strings.HasSuffix(p, ".so") {
			out[top] = append(out[top], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func formatPlans(plans []Plan) string {
	var b strings.Builder
	for _, p := range plans {
		fmt.Fprintf(&b, "plan %q\n", p.Package)
		for _, s := range p.Steps {
			fmt.Fprintf(&b, "step %q %q %q global=%t at=%q flags=%q cond=%q\n", s.Path, s.Name, s.Module, s.Global, s.At, s.Flags, s.Cond)
		}
		for _, u := range p.Undecided {
			fmt.Fprintf(&b, "undecided %q\n", u)
		}
	}
	return b.String()
}

// recordFS notes every name Read opens, lists or looks for.
type recordFS struct {
	fs.FS
	names map[string]bool
}

func (r *recordFS) Open(name string) (fs.File, error) {
	r.names[name] = true
	return r.FS.Open(name)
}

func (r *recordFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.names[name] = true
	return fs.ReadDir(r.FS, name)
}

func (r *recordFS) Stat(name string) (fs.FileInfo, error) {
	r.names[name] = true
	return fs.Stat(r.FS, name)
}

// bufferFS is a recordFS that reads files with sysfile.Append.
type bufferFS struct{ *recordFS }

func (b bufferFS) AppendFile(name string, buf []byte, limit int) ([]byte, error) {
	b.names[name] = true
	return sysfile.Append(path.Join(distPackages, name), buf, limit)
}

// inputs are the golden's lines of the names recorded: "input NAME" each,
// then "inputs HASH", the fingerprint of what they hold now.
func (r *recordFS) inputs() string {
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range r.names {
			if !yield(n) {
				return
			}
		}
	})
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "input %q\n", n)
	}
	fmt.Fprintf(&b, "inputs %s\n", fingerprint(names))
	return b.String()
}

// fingerprint hashes what each name is: a file's bytes, a directory's
// entries and their types, or its absence.
func fingerprint(names []string) string {
	h := sha256.New()
	fsys := os.DirFS(distPackages)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00", n)
		if data, err := fs.ReadFile(fsys, n); err == nil {
			fmt.Fprintf(h, "file %d\x00", len(data))
			h.Write(data)
		} else if entries, err := fs.ReadDir(fsys, n); err == nil {
			for _, e := range entries {
				fmt.Fprintf(h, "%s %v\x00", e.Name(), e.Type())
			}
		} else {
			h.Write([]byte("absent\x00"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

type goldenEntry struct {
	inputNamesText string // the "input" lines
	inputs         string // the fingerprint when the golden was made
	plans          string
}

func (e goldenEntry) inputNames() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(e.inputNamesText, "\n"), "\n") {
		var n string
		if _, err := fmt.Sscanf(l, "input %q", &n); err == nil {
			out = append(out, n)
		}
	}
	return out
}

func readGolden(t *testing.T) map[string]goldenEntry {
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]goldenEntry{}
	var dir string
	var e goldenEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "== "):
			if dir != "" {
				out[dir] = e
			}
			dir, e = strings.TrimPrefix(l, "== "), goldenEntry{}
		case strings.HasPrefix(l, "input "):
			e.inputNamesText += l + "\n"
		case strings.HasPrefix(l, "inputs "):
			e.inputs = strings.TrimPrefix(l, "inputs ")
		default:
			e.plans += l + "\n"
		}
	}
	if dir != "" {
		out[dir] = e
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

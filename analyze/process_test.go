package analyze

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// TestIndexKeepsOldVersions: a library that defines a name twice (foo@V1,
// the old one, and foo@@V2) answers a reference asking for V1, which a
// library ahead of it in the scope that defines foo@@V2 only does not; an
// unversioned reference or one asking for V2 takes the first in the scope.
// Index keeps the versions of the library's two definitions (GNU ld
// writes foo@V1 first, which foo@@V2 then replaces as the one kept);
// Bind's search (first) applies ld.so's rule to them.
func TestIndexKeepsOldVersions(t *testing.T) {
	testenv.NeedTools(t, "gcc")
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(args ...string) {
		t.Helper()
		cmd := exec.Command("gcc", append([]string{"-shared", "-fPIC"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, out)
		}
	}
	write("v.map", "V1 { global: foo; local: *; };\nV2 { global: foo; } V1;\n")
	write("v2.map", "V2 { global: foo; local: *; };\n")
	write("old.c", `int foo_v1(void) { return 1; }
int foo_v2(void) { return 2; }
__asm__(".symver foo_v1, foo@V1");
__asm__(".symver foo_v2, foo@@V2");
`)
	write("new.c", "int foo(void) { return 3; }\n")
	build("old.c", "-Wl,--version-script=v.map", "-o", "libold.so")
	build("new.c", "-Wl,--version-script=v2.map", "-o", "libnew.so")
	objs, errs := elfobj.Open([]string{filepath.Join(dir, "libnew.so"), filepath.Join(dir, "libold.so")}, elfobj.Options{})
	if len(errs) > 0 || len(objs) != 2 {
		t.Fatalf("%v (%d objects)", errs, len(objs))
	}
	newer, old := objs[0], objs[1]
	if filepath.Base(old.Path) != "libold.so" {
		newer, old = old, newer
	}
	var names symset.Set
	names.Add("foo")
	defs := Index(objs, &names)
	scope := defs.rankOf([]*elfobj.Object{newer, old})
	for _, c := range []struct {
		version string
		want    *elfobj.Object
	}{{"V1", old}, {"V2", newer}, {"", newer}} {
		if got := defs.first(defs.ids.byName["foo"], scope, c.version); got == nil || got.o != c.want {
			t.Errorf("a reference to foo asking for %q binds to %v, want %s", c.version, got, c.want.Path)
		}
	}
}

// TestDepsRoomSlicesDoNotOverlap: each object's Deps, carved out of one
// chunk, fill their room without writing over another's, and an append
// past the room moves out of the chunk.
func TestDepsRoomSlicesDoNotOverlap(t *testing.T) {
	p := &Process{}
	sizes := []int{3, 1, depsChunk, 2, depsChunk + 5, 4}
	rooms := make([][]Resolution, len(sizes))
	for i, n := range sizes {
		rooms[i] = p.depsRoom(n)
		if len(rooms[i]) != 0 || cap(rooms[i]) != n {
			t.Fatalf("depsRoom(%d): len %d cap %d", n, len(rooms[i]), cap(rooms[i]))
		}
	}
	for i, n := range sizes {
		for j := range n {
			rooms[i] = append(rooms[i], Resolution{Name: fmt.Sprint(i, ".", j)})
		}
	}
	rooms[0] = append(rooms[0], Resolution{Name: "past"})
	for i, n := range sizes {
		for j := range n {
			if want := fmt.Sprint(i, ".", j); rooms[i][j].Name != want {
				t.Fatalf("room %d entry %d = %q, want %q", i, j, rooms[i][j].Name, want)
			}
		}
	}
	if rooms[1][0].Name != "1.0" {
		t.Errorf("an append past room 0 wrote over room 1: %q", rooms[1][0].Name)
	}
}

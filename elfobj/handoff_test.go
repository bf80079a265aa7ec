package elfobj

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// handoffUnits are translation units compiled by the real g++ at -O0 and
// -O2: each says which of the unit's symbols its initializer must hand to
// which function defined elsewhere, and which it must not hand anywhere
// outside the C++ runtime.
var handoffUnits = []struct {
	name, src string
	// want are "callee symbol" pairs that must be found (callee and
	// symbol as mangled or local names).
	want [][2]string
	// never are symbols no handoff may name with a callee outside the
	// runtime (__cxa_atexit and the like are allowed).
	never []string
}{
	{
		name: "function pointer",
		src: `void add_plugin(const char*, void (*)());
static void my_plugin() {}
static int reg = (add_plugin("p", my_plugin), 0);`,
		want: [][2]string{{"_Z10add_pluginPKcPFvvE", "_ZL9my_pluginv"}},
	},
	{
		name: "factory carrying its vtable",
		src: `struct Factory { virtual ~Factory(); virtual int make() = 0; };
void register_factory(Factory*);
namespace { struct Mine : Factory { int make() override { return 1; } }; }
static int reg = (register_factory(new Mine), 0);`,
		want: [][2]string{{"_Z16register_factoryP7Factory", "_ZTVN12_GLOBAL__N_14MineE"}},
	},
	{
		name: "store into a list defined elsewhere",
		src: `struct Node { Node* next; const char* name; };
extern Node* registry_head;
static Node me = {nullptr, "me"};
static int reg = (me.next = registry_head, registry_head = &me, 0);`,
		want: [][2]string{{"registry_head", "_ZL2me"}},
	},
	{
		name: "register nothing",
		src: `#include <string>
struct Foo { Foo(); ~Foo(); };
std::string compute();
struct Log { static Log& get(const char*); int level; };
static Foo g;
static const std::string s = compute();
static Log& log = Log::get("x");
int use() { return log.level + (int)s.size(); }`,
		never: []string{"_ZL1g", "_ZL1s", "_ZL3log"},
	},
}

func TestHandoffsOfRealUnits(t *testing.T) {
	testenv.NeedTools(t, "g++")
	dir := t.TempDir()
	for i, u := range handoffUnits {
		src := filepath.Join(dir, "u.cc")
		if err := os.WriteFile(src, []byte(u.src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, opt := range []string{"-O0", "-O2"} {
			obj := filepath.Join(dir, "u"+opt+string(rune('a'+i))+".o")
			if b, err := exec.Command("g++", opt, "-fPIC", "-c", src, "-o", obj).CombinedOutput(); err != nil {
				t.Fatalf("%s: g++: %v\n%s", u.name, err, b)
			}
			o, err := OpenFile(obj, "", Options{Initializers: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []Handoff
			for _, in := range o.Initializers {
				if in.Undecided != "" {
					t.Errorf("%s %s: undecided: %s", u.name, opt, in.Undecided)
				}
				got = append(got, in.Handoffs...)
			}
			for _, w := range u.want {
				if !slices.ContainsFunc(got, func(h Handoff) bool { return h.Callee == w[0] && h.Symbol == w[1] }) {
					t.Errorf("%s %s: no handoff of %s to %s in %+v", u.name, opt, w[1], w[0], got)
				}
			}
			for _, h := range got {
				if slices.Contains(u.never, h.Symbol) && !runtimeCallee(h.Callee) && !(h.Arg == 0 && !h.Indirect) {
					t.Errorf("%s %s: %s handed to %s as argument %d: it registers nothing", u.name, opt, h.Symbol, h.Callee, h.Arg)
				}
			}
		}
	}
}

// runtimeCallee: what these units may hand their objects to without
// registering (the decision is analyze's; here the walk's facts only).
func runtimeCallee(sym string) bool {
	return sym == "__cxa_atexit" || sym == "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEED1Ev"
}

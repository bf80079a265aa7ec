package demangle

import (
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// knownTemplateParamScope reports whether a difference from c++filt is the
// documented one: a substitution naming a template parameter of another
// template (see the package notes). GCC emits it when a template argument is
// a local entity of a function template, as in std::call_once's lambda, so
// the name has a template argument list that opens with a local name ("IZ")
// and c++filt's output contains that lambda.
func knownTemplateParamScope(sym, cxxfiltOut string) bool {
	return strings.Contains(sym, "IZ") && strings.Contains(cxxfiltOut, "{lambda(")
}

// TestNameMatchesCxxfilt demangles every defined dynamic symbol of libstdc++
// and, when installed, libprotobuf, and compares with the c++filt binary run
// in the test. Every difference fails the test unless it is of the one
// documented class, which is logged.
func TestNameMatchesCxxfilt(t *testing.T) {
	filt := testenv.Tool(t, "c++filt")
	nm := testenv.Tool(t, "nm")
	libs := []string{findLibrary("libstdc++.so.6")}
	if libs[0] == "" {
		testenv.Missing(t, "%s", "libstdc++.so.6 not found")
	}
	if p := findLibrary("libprotobuf.so.3[0-9]"); p != "" {
		libs = append(libs, p)
	}
	var syms []string
	for _, lib := range libs {
		syms = append(syms, dynamicSymbols(t, nm, lib)...)
	}
	want := cxxfilt(t, filt, syms)
	mangled, known := 0, 0
	for i, sym := range syms {
		if strings.HasPrefix(sym, "_Z") {
			mangled++
		}
		got := Name(sym)
		if got == want[i] {
			continue
		}
		if knownTemplateParamScope(sym, want[i]) {
			known++
			t.Logf("documented difference (template parameter scope):\n  %s\n  c++filt: %s\n  Name:    %s", sym, want[i], got)
			continue
		}
		t.Errorf("Name(%q)\n got  %q\n want %q (c++filt)", sym, got, want[i])
	}
	if mangled < 300 {
		t.Errorf("only %d mangled symbols in %v; the comparison needs a few hundred", mangled, libs)
	}
	t.Logf("%d symbols (%d mangled) from %v: all equal to c++filt except %d of the documented class", len(syms), mangled, libs, known)
}

// nameCases pins Name's output for names that exercise the paths around the
// upstream package. Each is also compared with c++filt when it is installed;
// differs names the documented reason when c++filt prints something else.
var nameCases = []struct {
	sym, want string
	differs   string
}{
	// Not mangled, or not something c++filt demangles on ELF.
	{sym: "main", want: "main"},
	{sym: "xnn_create_add_nd_f32", want: "xnn_create_add_nd_f32"},
	{sym: "_Z", want: "_Z"},
	{sym: "_ZN3foo", want: "_ZN3foo"},
	{sym: "_DYNAMIC", want: "_DYNAMIC"},
	{sym: "__Z3foov", want: "__Z3foov"},
	{sym: "___Z3foov_block_invoke", want: "___Z3foov_block_invoke"},
	{sym: "_ZGVbN2v_sin", want: "_ZGVbN2v_sin"},
	// C++.
	{sym: "_ZNSt6vectorIiSaIiEE9push_backERKi", want: "std::vector<int, std::allocator<int> >::push_back(int const&)"},
	{sym: "_ZNSs4_Rep10_M_destroyERKSaIcE", want: "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::_Rep::_M_destroy(std::allocator<char> const&)"},
	{sym: "_ZN12_GLOBAL__N_16hiddenEi", want: "(anonymous namespace)::hidden(int)"},
	{sym: "_ZTv0_n24_NSt13basic_fstreamIcSt11char_traitsIcEED0Ev", want: "virtual thunk to std::basic_fstream<char, std::char_traits<char> >::~basic_fstream()"},
	{sym: "_ZTCSt14basic_ifstreamIcSt11char_traitsIcEE0_Si", want: "construction vtable for std::basic_istream<char, std::char_traits<char> >-in-std::basic_ifstream<char, std::char_traits<char> >"},
	{sym: "_ZGVZN6google14something_elseEvE1x", want: "guard variable for google::something_else()::x"},
	{sym: "_Z3foov.part.0.cold", want: "foo() [clone .part.0] [clone .cold]"},
	{sym: "_ZN6google7LogSink8ToStringB5cxx11EiPKciRKNS_14LogMessageTimeES2_m", want: "google::LogSink::ToString[abi:cxx11](int, char const*, int, google::LogMessageTime const&, char const*, unsigned long)"},
	// GCC's old global constructor keys.
	{sym: "_GLOBAL__I_65535_0_foo.cc", want: "global constructors keyed to 65535_0_foo.cc"},
	{sym: "_GLOBAL__D_a.b", want: "global destructors keyed to a.b"},
	{sym: "_GLOBAL_.I_x", want: "global constructors keyed to x"},
	{sym: "_GLOBAL__I__Z3foov", want: "global constructors keyed to foo()"},
	{sym: "_GLOBAL__D__Z3foov.part.0", want: "global destructors keyed to foo()"},
	{sym: "_GLOBAL__I__Zbad", want: "_GLOBAL__I__Zbad"},
	{sym: "_GLOBAL__I_", want: "_GLOBAL__I_"},
	{sym: "_GLOBAL__sub_I_foo.cc", want: "_GLOBAL__sub_I_foo.cc"},
	{sym: "_GLOBAL_$I$foo", want: "_GLOBAL_$I$foo"},
	// Legacy Rust, real names from rustc 1.x and crafted escapes.
	{sym: "_ZN4core9core_arch3x864sse214_mm_load_si12817ha1e8ce264d3b9556E", want: "core::core_arch::x86::sse2::_mm_load_si128::ha1e8ce264d3b9556"},
	{sym: "_ZN3lib5entry28_$u7b$$u7b$closure$u7d$$u7d$17h5de2e7a57e90c4bcE", want: "lib::entry::{{closure}}::h5de2e7a57e90c4bc"},
	{sym: "_ZN3lib12Foo$LT$T$GT$3get17h2a85447644f5b3c6E", want: "lib::Foo<T>::get::h2a85447644f5b3c6"},
	{sym: "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h0123456789abcdefE", want: "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>::h0123456789abcdef"},
	{sym: "_ZN3foo3bar17h0123456789abcdefE.llvm.1234", want: "foo::bar::h0123456789abcdef"},
	{sym: "_ZN3foo3bar17h0000000000000000E", want: "foo::bar::h0000000000000000"},
	{sym: "_ZN3foo3bar17h0123456789abcdefEv", want: "foo::bar::h0123456789abcdef()"},
	{sym: "_ZN3foo5a.b.c17h0123456789abcdefE", want: "foo::a.b.c::h0123456789abcdef"},
	{sym: "_ZN3foo5_abcd17h0123456789abcdefE", want: "foo::_abcd::h0123456789abcdef"},
	{sym: "_ZN3foo6$u1f$x17h0123456789abcdefE", want: "foo::$u1f$x::h0123456789abcdef"},
	{sym: "_ZN3foo4$C$x17h0123456789abcdefE", want: "foo::,x::h0123456789abcdef"},
	{sym: "_ZN3foo7_$u41$a17h0123456789abcdefE", want: "foo::Aa::h0123456789abcdef"},
	{sym: "_ZN3foo4a.$C17h0123456789abcdefE", want: "foo::a.$C::h0123456789abcdef"},
	{sym: "_ZN3foo3$u$17h0123456789abcdefE", want: "foo::$u$::h0123456789abcdef"},
	{sym: "_ZN3fooIiE3bar17h0123456789abcdefE", want: "foo<int>::bar::h0123456789abcdef"},
	{sym: "_ZN3foo$3bar17h0123456789abcdefE", want: "_ZN3foo$3bar17h0123456789abcdefE"},
	{sym: "_ZN17h0123456789abcdefE", want: "h0123456789abcdef"},
	// Documented differences.
	{sym: "_RNvCs15kBYyAo9fc_7mycrate7example", want: "mycrate::example", differs: "Rust v0 crate disambiguator, printed as by c++filt -i"},
	{
		sym:     "_ZZNSt9once_flag18_Prepare_executionC4IZSt9call_onceIRFvPKN6google8protobuf14FileDescriptorEEJS7_EEvRS_OT_DpOT0_EUlvE_EERSB_ENUlvE_4_FUNEv",
		want:    "std::once_flag::_Prepare_execution::_Prepare_execution<std::call_once<void (&)(google::protobuf::FileDescriptor const*), google::protobuf::FileDescriptor const*>(std::once_flag&, void (&)(google::protobuf::FileDescriptor const*), google::protobuf::FileDescriptor const*&&)::{lambda()#1}>(std::call_once<void (&)(google::protobuf::FileDescriptor const*), google::protobuf::FileDescriptor const*>(std::once_flag&, void (&)(google::protobuf::FileDescriptor const*), google::protobuf::FileDescriptor const*&&)::{lambda()#1}&)::{lambda()#1}::_FUN()",
		differs: "template parameter scope",
	},
}

func TestNameCases(t *testing.T) {
	var filtOut []string
	if filt, err := exec.LookPath("c++filt"); err == nil {
		syms := make([]string, len(nameCases))
		for i, c := range nameCases {
			syms[i] = c.sym
		}
		filtOut = cxxfilt(t, filt, syms)
	} else {
		t.Log("c++filt not installed: checking the pinned outputs only")
	}
	for i, c := range nameCases {
		if got := Name(c.sym); got != c.want {
			t.Errorf("Name(%q)\n got  %q\n want %q", c.sym, got, c.want)
		}
		if filtOut == nil {
			continue
		}
		switch {
		case c.differs == "" && filtOut[i] != c.want:
			t.Errorf("pinned %q for %q, but c++filt prints %q", c.want, c.sym, filtOut[i])
		case c.differs != "" && filtOut[i] == c.want:
			t.Errorf("%q is listed as differing (%s) but c++filt agrees; drop the note", c.sym, c.differs)
		}
	}
}

// TestNameVersioned pins the contract that callers strip symbol versions:
// a versioned name is not a mangled name. (c++filt reading a line splits it
// at the '@' itself, which is why this case is not compared with it.)
func TestNameVersioned(t *testing.T) {
	const sym = "_ZNKSt5ctypeIcE8do_widenEc@@GLIBCXX_3.4"
	if got := Name(sym); got != sym {
		t.Errorf("Name(%q) = %q, want it unchanged", sym, got)
	}
}

// TestNameRustV0MatchesCxxfiltI checks the Rust v0 rule: Name prints what
// `c++filt -i` prints.
func TestNameRustV0MatchesCxxfiltI(t *testing.T) {
	filt := testenv.Tool(t, "c++filt")
	syms := []string{
		"_RNvCs15kBYyAo9fc_7mycrate7example",
		"_RINvNtCsjrHSEGnQ3l9_3std9panicking11begin_panicReEB4_",
		"_RNvMNtCsgEmfK2I1SDS_4core3fmtNtB2_9Formatter3pad",
	}
	want := cxxfilt(t, filt, syms, "-i")
	for i, sym := range syms {
		if got := Name(sym); got != want[i] {
			t.Errorf("Name(%q) = %q, c++filt -i prints %q", sym, got, want[i])
		}
	}
}

// TestNameConcurrent exercises the cache from many goroutines (run with
// -race) and checks that cached answers equal fresh ones.
func TestNameConcurrent(t *testing.T) {
	syms := make([]string, 0, len(nameCases))
	for _, c := range nameCases {
		syms = append(syms, c.sym)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				sym := syms[(i+g)%len(syms)]
				if got, want := Name(sym), demangle(sym); got != want {
					t.Errorf("Name(%q) = %q, uncached %q", sym, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestNameCacheBounded fills one shard past its limit and checks that it is
// reset rather than grown.
func TestNameCacheBounded(t *testing.T) {
	for i := range cacheShards * cacheShardMax * 2 {
		Name("_Z1fi" + strings.Repeat("i", i%7) + "_" + itoa(i))
	}
	for i := range cache {
		sh := &cache[i]
		sh.mu.Lock()
		n := len(sh.m)
		sh.mu.Unlock()
		if n > cacheShardMax {
			t.Fatalf("shard %d holds %d names, limit %d", i, n, cacheShardMax)
		}
	}
}

func itoa(i int) string {
	var b [20]byte
	n := len(b)
	for {
		n--
		b[n] = byte('0' + i%10)
		if i /= 10; i == 0 {
			return string(b[n:])
		}
	}
}

func FuzzName(f *testing.F) {
	for _, c := range nameCases {
		f.Add(c.sym)
	}
	// Inputs that made demanglers loop, recurse or panic.
	for _, s := range []string{
		"_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZ1a",
		"_ZN1aIS_EE", "_ZT", "_ZTh", "_ZTv0_", "_Z1fIJEEv", "_ZSt", "_ZNSt",
		"_Z1fDpDpDpDpT_", "_ZdlPvSt11align_val_t", "_RNvC", "_RINvC1a1bpE",
		"_ZN3foo4_$LT$17h0123456789abcdefE", "_GLOBAL__I__Z", "_Z1aILZ1aEE",
		// Deep nesting, quadratic in the upstream demangler: over the
		// bound, returned raw at once.
		"_Z1f" + strings.Repeat("P", 300000) + "i", "_Z1f" + strings.Repeat("PK", 40) + "i",
		"_Z1f" + strings.Repeat("N1a", 2000) + "E",
		// Just inside the bound and slow (tens of milliseconds): what
		// the run's budget is for.
		"_Z1f" + strings.Repeat(strings.Repeat("P", maxQualifiers)+"A1_", 110) + "i",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sym string) {
		got := demangle(sym)
		if got == "" && sym != "" {
			t.Fatalf("demangle(%q) is empty", sym)
		}
		if len(got) > 1<<maxOutputPow+len(sym)+64 {
			t.Fatalf("demangle(%q) printed %d bytes", sym, len(got))
		}
		if Name(sym) != got {
			t.Fatalf("Name(%q) differs from demangle", sym)
		}
	})
}

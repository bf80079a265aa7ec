package demangle

import (
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/testenv"
)

// ofCases are real symbols: from the Debian libraries named in the comments
// (nm -D --defined-only), or, for components Debian does not package, from
// g++ 12 compiling declarations in the component's namespaces. Each states
// what must match and, through the "" rows, what must not.
var ofCases = []struct {
	sym, want string
}{
	// pthreadpool, cpuinfo, XNNPACK (libpthreadpool.so.0, libcpuinfo.so.0, libXNNPACK.so.0)
	{"pthreadpool_parallelize_4d_tile_2d_with_uarch", "pthreadpool"},
	{"pthreadpool_create", "pthreadpool"},
	{"cpuinfo_get_l4_cache", "cpuinfo"},
	{"cpuinfo_isa", "cpuinfo"},
	{"xnn_define_static_reshape", "XNNPACK"},
	{"xnn_create_global_average_pooling_nwc_f32", "XNNPACK"},
	{"_ZN7xnnpack7aarch649Assembler3ldrENS0_9QRegisterENS0_10MemOperandEi", "XNNPACK"},
	{"_ZN7xnnpack7aarch326encodeENS0_23ConsecutiveRegisterListINS0_9DRegisterEEEjj", "XNNPACK"},
	// QNNPACK and miniz inside libtorch_cpu.so.1.13
	{"pytorch_qnnp_create_max_pooling2d_nhwc_u8", "QNNPACK"},
	{"mz_zip_reader_extract_iter_free", "miniz"},
	{"tdefl_compress_mem_to_output", "miniz"},
	// leveldb's C API and C++ namespace (libleveldb.so.1d, which libtorch_cpu needs)
	{"leveldb_open", "leveldb"},
	{"_ZN7leveldb10ComparatorD0Ev", "leveldb"},
	// flatbuffers, flatcc (g++)
	{"_ZN11flatbuffers15vector_downward10reallocateEm", "flatbuffers"},
	{"_ZN11flatbuffers17FlatBufferBuilder10AddElementIiEEvtT_S2_", "flatbuffers"},
	{"_ZNK11flatbuffers8Verifier20VerifyVectorOrStringEPKhmPm", "flatbuffers"},
	{"flatcc_builder_init", "flatcc"},
	// fmt (libfmt.so.9; v10 from g++)
	{"_ZNK3fmt2v913buffered_file10descriptorEv", "fmt"},
	{"_ZN3fmt2v96detail18thousands_sep_implIcEENS1_20thousands_sep_resultIT_EENS1_10locale_refE", "fmt"},
	{"_ZN3fmt3v106vprintEPKc", "fmt"},
	// gflags (libgflags.so.2.2)
	{"_ZN6google7GetArgvEv", "gflags"},
	{"_ZN6google14FlagRegistererC1IbEEPKcS3_S3_PT_S5_", "gflags"},
	{"_ZN6google19CommandLineFlagInfoC1EOS0_", "gflags"},
	{"_ZN6google20GetCommandLineOptionEPKcPNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "gflags"},
	{"_ZN3fLS14FLAGS_flagfileB5cxx11E", "gflags"},
	{"_ZN3fLI28FLAGS_tab_completion_columnsE", "gflags"},
	// glog (libglog.so.1)
	{"_ZN6google10LogMessage9SendToLogEv", "glog"},
	{"_ZN6google7LogSink8ToStringB5cxx11EiPKciRKNS_14LogMessageTimeES2_m", "glog"},
	{"_ZN6google17InitGoogleLoggingEPKcPFvRSoRKNS_14LogMessageInfoEPvES6_", "glog"},
	{"_ZN6google14LogMessageTimeC1E2tm", "glog"},
	{"_ZTTN6google10LogMessage9LogStreamE", "glog"},
	{"_ZN3fLI17FLAGS_logbuflevelE", "glog"},
	{"_ZN3fLB22FLAGS_colorlogtostdoutE", "glog"},
	// Flags defined by torch, and google:: names of nobody listed.
	{"_ZN3fLI22FLAGS_pthreadpool_sizeE", ""},
	{"_ZN3fLB35FLAGS_torch_jit_enable_new_executorE", ""},
	{"_ZN6google14something_elseEv", ""},
	{"_ZN6google4TmplIiE9glog_likeEv", ""},
	// protobuf (libprotobuf.so.32; g++ for the special names)
	{"_ZN6google8protobuf2io7PrinterC1EPNS1_20ZeroCopyOutputStreamEcPNS1_19AnnotationCollectorE", "protobuf"},
	{"_ZN6google8protobuf4util18MessageDifferencer10TreatAsMapEPKNS0_15FieldDescriptorES5_", "protobuf"},
	{"descriptor_table_google_2fprotobuf_2fempty_2eproto", "protobuf"},
	{"_ZTVN6google8protobuf7MessageE", "protobuf"},
	{"_ZTIN6google8protobuf7MessageE", "protobuf"},
	{"_ZThn24_N6google8protobuf4util9converter11ProtoWriter12ProtoElementD0Ev", "protobuf"},
	// A std:: template instantiated over protobuf types is std's.
	{"_ZNSt6vectorIPN6google8protobuf4util9converter24DefaultValueObjectWriter4NodeESaIS6_EE17_M_realloc_insertIJS6_EEEvN9__gnu_cxx17__normal_iteratorIPS6_S8_EEDpOT_", "libstdc++"},
	// sleef (libsleef.so.3); the GNU vector ABI names of libsleefgnuabi
	// are also libmvec's, so they stay unclassified.
	{"Sleef_finz_coshf4_u35avx2128", "sleef"},
	{"Sleef_cbrt_u10", "sleef"},
	{"_ZGVbN2v_sin", ""},
	// onnx (libonnx.so.1, libonnx_proto.so.1, libtorch_cpu.so.1.13)
	{"_ZN4onnx5Utils11StringRangeC1EPKc", "onnx"},
	{"_ZN4onnx10MakeStringIJA23_cA62_cNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEEEES8_DpRKT_", "onnx"},
	{"descriptor_table_onnx_2fonnx_2dml_2eproto", "onnx"},
	{"_ZN4onnx9TypeProto29_internal_mutable_tensor_typeEv", "onnx"},
	{"_ZN10onnx_torch9TypeProto29_internal_mutable_tensor_typeEv", "onnx"}, // g++
	// libstdc++ and libgcc (libstdc++.so.6)
	{"_ZNKSt10moneypunctIcLb1EE13positive_signEv", "libstdc++"},
	{"_ZNSt13basic_filebufIcSt11char_traitsIcEE6setbufEPcl", "libstdc++"},
	{"_ZNSt12placeholders3_11E", "libstdc++"},
	{"_ZSt9use_facetISt11__timepunctIwEERKT_RKSt6locale", "libstdc++"},
	{"_ZSt4cout", "libstdc++"},
	{"_ZNSs4_Rep10_M_destroyERKSaIcE", "libstdc++"},
	{"_ZN9__gnu_cxx18stdio_sync_filebufIcSt11char_traitsIcEED0Ev", "libstdc++"},
	{"_ZTVN10__cxxabiv117__class_type_infoE", "libstdc++"},
	{"_ZTv0_n24_NSt13basic_fstreamIcSt11char_traitsIcEED0Ev", "libstdc++"},
	{"_ZTCSt14basic_ifstreamIcSt11char_traitsIcEE0_Si", "libstdc++"}, // libstdc++.a
	{"_ZTIPKc", "libstdc++"},
	{"_ZTIDn", "libstdc++"},
	{"_Znwm", "libstdc++"},
	{"_ZdlPvSt11align_val_t", "libstdc++"},
	{"__gxx_personality_v0", "libstdc++/libgcc"},
	{"__cxa_free_exception", "libstdc++/libgcc"},
	{"_Unwind_Resume", "libstdc++/libgcc"},
	// libc++ (g++ compiling libc++'s inline namespace)
	{"_ZNSt3__114basic_string_xIcE7reserveEm", "libc++"},
	{"_ZTVNSt3__110ios_base_xE", "libc++"},
	// openmp (libgomp.so.1; LLVM's entry point from g++)
	{"GOMP_loop_ull_runtime_next", "openmp"},
	{"omp_unset_nest_lock", "openmp"},
	{"__kmpc_global_thread_num", "openmp"},
	// executorch (g++)
	{"_ZN10executorch7runtime16register_backendERKNS0_7BackendE", "executorch"},
	{"_ZNK10executorch7runtime6ResultIiE3getEv", "executorch"},
	{"_ZTIN10executorch7runtime16BackendInterfaceE", "executorch"},
	{"_ZZN10executorch7runtime16register_backendERKNS0_7BackendEE5count", "executorch"},
	{"_ZN5torch8executor20KernelRuntimeContext4failEi", "executorch"},
	{"_ZNK21executorch_flatbuffer7Program14execution_planEv", "executorch"},
	{"et_pal_init", "executorch"},
	// torch (libc10.so.1.13, libtorch_cpu.so.1.13, libtorch_python.so.1.13)
	{"_ZNK3c108SymFloatplES0_", "torch"},
	{"_ZTSN3c1016SymFloatNodeImplE", "torch"},
	{"_ZN2at6native5whereERKNS_6TensorES3_RKN3c106ScalarE", "torch"},
	{"_ZN2at4_ops20hinge_embedding_loss4callERKNS_6TensorES4_dl", "torch"},
	{"_ZN5torch3jit10ClassValue4attrERKNS0_11SourceRangeERNS0_13GraphFunctionERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "torch"},
	{"_ZN5torch8autograd10CopySlices17release_variablesEv", "torch"},
	{"_ZN6caffe28TypeMeta13nextTypeIndexE", "torch"},
	{"_ZN4c10d12ProcessGroupD0Ev", "torch"}, // g++
	{"THPVariableMetaType", "torch"},
	// oneDNN (libtorch_cpu.so.1.13; g++ for dnnl::)
	{"_ZN5ideep6engine10cpu_engineEv", "oneDNN"},
	{"_ZN4dnnl6engineC1Eim", "oneDNN"},
	// Nobody's.
	{"main", ""},
	{"_Z10use_hiddeni", ""},
	{"_ZN12_GLOBAL__N_16hiddenEi", ""},
	{"_ZZZN5Local1fEvEN5Inner1gEvE5guard", ""},
	{"", ""},
	{"_Z", ""},
	{"_ZN", ""},
	{"_ZN3foo", ""},
}

func TestOfDefaults(t *testing.T) {
	c := DefaultComponents()
	for _, tt := range ofCases {
		if got := c.Of(tt.sym); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.sym, got, tt.want)
		}
		// The slow path must agree (it does not know the
		// fundamental-typeinfo rule).
		if strings.HasPrefix(tt.sym, "_Z") && !fundamentalTypeinfo(tt.sym) {
			if got := c.ofSlow(tt.sym); got != tt.want && !isRawClassified(c, tt.sym) {
				t.Errorf("slow Of(%q) = %q, want %q", tt.sym, got, tt.want)
			}
		}
	}
}

// fundamentalTypeinfo reports whether sym is the typeinfo (name) of a
// fundamental type or a pointer to one, which only the fast path assigns to
// std.
func fundamentalTypeinfo(sym string) bool {
	if !strings.HasPrefix(sym, "_ZTI") && !strings.HasPrefix(sym, "_ZTS") {
		return false
	}
	t := strings.TrimLeft(sym[4:], "PKV")
	return t != "" && (isLower(t[0]) || t[0] == 'D')
}

// isRawClassified reports whether a raw pattern decides sym, so that the
// namespace-only slow path is not expected to.
func isRawClassified(c *Components, sym string) bool {
	for _, p := range c.raw[sym[0]] {
		if strings.HasPrefix(sym, p.prefix) {
			return true
		}
	}
	return false
}

// ofSlow classifies by demangling only, the reference for the fast path.
func (c *Components) ofSlow(sym string) string {
	var best match
	for _, p := range c.raw[sym[0]] {
		if strings.HasPrefix(sym, p.prefix) {
			best = match{p.component, len(p.prefix), p.order}
			break
		}
	}
	w := walker{node: &c.ns}
	w.pushAll(qualifiedPath(sym))
	if w.best != nil {
		if m := (match{w.best.component, w.best.patLen, w.best.order}); m.beats(best) {
			best = m
		}
	}
	return best.component
}

// TestOfFastPathOnRealLibraries classifies every dynamic symbol of the
// installed libraries both ways and requires the same answer, and that the
// fast path decides nearly all of them without demangling.
func TestOfFastPathOnRealLibraries(t *testing.T) {
	nm := testenv.Tool(t, "nm")
	var syms []string
	for _, pat := range []string{"libstdc++.so.6", "libprotobuf.so.3[0-9]", "libglog.so.[0-9]", "libgflags.so.2*",
		"libfmt.so.[0-9]*", "libonnx.so.1", "libXNNPACK.so.0", "libc10.so*", "libtorch_cpu.so*", "libgomp.so.1"} {
		if lib := findLibrary(pat); lib != "" {
			syms = append(syms, dynamicSymbols(t, nm, lib)...)
		}
	}
	if len(syms) < 1000 {
		testenv.Missing(t, "%s", "too few installed libraries to compare")
	}
	c := DefaultComponents()
	before := slowPaths.Load()
	for _, sym := range syms {
		fast := c.Of(sym)
		if !strings.HasPrefix(sym, "_Z") || fundamentalTypeinfo(sym) {
			continue
		}
		if slow := c.ofSlow(sym); fast != slow {
			t.Errorf("Of(%q): fast path %q, demangled %q", sym, fast, slow)
		}
	}
	slow := slowPaths.Load() - before
	t.Logf("%d symbols, %d classified by demangling", len(syms), slow)
	if slow*100 > int64(len(syms)) {
		t.Errorf("%d of %d symbols needed demangling; the fast path should decide 99%%", slow, len(syms))
	}
}

func TestAdd(t *testing.T) {
	c := DefaultComponents()
	must := func(name string, patterns ...string) {
		t.Helper()
		if err := c.Add(name, patterns...); err != nil {
			t.Fatal(err)
		}
	}
	// A user table extends the defaults...
	must("mylib", "mylib_", "my::lib::")
	// ...overrides one (same pattern, added later)...
	must("vendored-fmt", "fmt::")
	// ...adds a longer pattern inside a default namespace...
	must("torch-jit", "torch::jit::")
	// ...and a deeper pattern behind a template argument list, which the
	// fast path cannot read past.
	must("deep", "foo::bar::")
	// A raw prefix that overlaps a namespace of equal text length: the
	// later one wins.
	must("raw-protobuf", "_ZN6google8protobuf2io")

	tests := []struct{ sym, want string }{
		{"mylib_init", "mylib"},
		{"_ZN2my3lib4initEv", "mylib"},
		{"_ZN2my5other4initEv", ""},
		{"_ZN3fmt2v96detail12is_printableEj", "vendored-fmt"},
		{"_ZN5torch3jit10ClassValue4attrERKNS0_11SourceRangeERNS0_13GraphFunctionERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "torch-jit"},
		{"_ZN5torch8autograd10CopySlices17release_variablesEv", "torch"},
		{"_ZN5torch8executor16register_kernelsEi", "executorch"},
		{"_ZN3fooIiE3bar3bazEv", "deep"},
		{"_ZN3fooIiE3quxEv", ""},
		// 22 characters beat "google::protobuf::" (18).
		{"_ZN6google8protobuf2io7PrinterC1EPNS1_20ZeroCopyOutputStreamEcPNS1_19AnnotationCollectorE", "raw-protobuf"},
		{"_ZN6google8protobuf4util18MessageDifferencer10TreatAsMapEPKNS0_15FieldDescriptorES5_", "protobuf"},
	}
	for _, tt := range tests {
		if got := c.Of(tt.sym); got != tt.want {
			t.Errorf("Of(%q) = %q, want %q", tt.sym, got, tt.want)
		}
	}
	if DefaultComponents().Of("_ZN3fmt2v96detail12is_printableEj") != "fmt" {
		t.Error("Add on one table changed another")
	}
}

func TestAddErrors(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		want     string
	}{
		{"", []string{"x_"}, "no name"},
		{"x", nil, "no patterns"},
		{"x", []string{""}, "empty pattern"},
		{"x", []string{"::"}, "empty component"},
		{"x", []string{"a::::"}, "empty component"},
		{"x", []string{"::a::"}, "empty component"},
		{"x", []string{"std::vector<int>::"}, "not an identifier"},
		{"x", []string{"has space_"}, "white space"},
		{"x", []string{"good_", "a::::"}, "empty component"},
	}
	for _, tt := range tests {
		c := NewComponents()
		err := c.Add(tt.name, tt.patterns...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Add(%q, %q) error %v, want one mentioning %q", tt.name, tt.patterns, err, tt.want)
		}
		if c.Of("good_x") != "" {
			t.Errorf("Add(%q, %q) failed but added a pattern", tt.name, tt.patterns)
		}
	}
	c := NewComponents()
	if err := c.Add("anon", "(anonymous namespace)::"); err != nil {
		t.Errorf("anonymous namespace pattern: %v", err)
	}
	if got := c.Of("_ZN12_GLOBAL__N_16hiddenEi"); got != "anon" {
		t.Errorf("Of(anonymous namespace name) = %q", got)
	}
}

// TestDefaultTable checks the fixed table as Add would, and that no pattern
// is claimed by two components.
func TestDefaultTable(t *testing.T) {
	owner := map[string]string{}
	for _, d := range defaultTable {
		for _, p := range d.patterns {
			if err := checkPattern(p); err != nil {
				t.Errorf("%s: %v", d.name, err)
			}
			if o, dup := owner[p]; dup {
				t.Errorf("pattern %q claimed by %s and %s", p, o, d.name)
			}
			owner[p] = d.name
		}
	}
	// Every component the package documents has at least one test row.
	tested := map[string]bool{}
	for _, tt := range ofCases {
		tested[tt.want] = true
	}
	for _, d := range defaultTable {
		if !tested[d.name] {
			t.Errorf("component %s has no row in ofCases", d.name)
		}
	}
}

func TestOfDoesNotAllocate(t *testing.T) {
	c := DefaultComponents()
	syms := []string{
		"_ZN6google8protobuf4util18MessageDifferencer10TreatAsMapEPKNS0_15FieldDescriptorES5_",
		"_ZNSt13basic_filebufIcSt11char_traitsIcEE6setbufEPcl",
		"_ZN2at6native5whereERKNS_6TensorES3_RKN3c106ScalarE",
		"xnn_define_static_reshape",
		"_ZN6google10LogMessage9SendToLogEv",
	}
	allocs := testing.AllocsPerRun(100, func() {
		for _, s := range syms {
			c.Of(s)
		}
	})
	if allocs != 0 {
		t.Errorf("Of allocated %v times per round", allocs)
	}
}

func BenchmarkName(b *testing.B) {
	syms := benchSymbols(b)
	b.Run("cached", func(b *testing.B) {
		for _, s := range syms {
			Name(s)
		}
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			Name(syms[i%len(syms)])
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			demangle(syms[i%len(syms)])
		}
	})
}

func BenchmarkOf(b *testing.B) {
	syms := benchSymbols(b)
	c := DefaultComponents()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c.Of(syms[i%len(syms)])
	}
}

func FuzzOf(f *testing.F) {
	for _, tt := range ofCases {
		f.Add(tt.sym)
	}
	for _, s := range []string{"_ZN3fooIiE3bar3bazEv", "_ZTh", "_ZThn_", "_ZTc", "_ZGV", "_ZN99999999999x", "_ZNSt", "_ZZZ", "_ZTI", "_ZN1aB"} {
		f.Add(s)
	}
	c := DefaultComponents()
	if err := c.Add("deep", "foo::bar::", "a::"); err != nil {
		f.Fatal(err)
	}
	names := map[string]bool{"": true, "deep": true}
	for _, d := range defaultTable {
		names[d.name] = true
	}
	f.Fuzz(func(t *testing.T, sym string) {
		if got := c.Of(sym); !names[got] {
			t.Fatalf("Of(%q) = %q, not a component", sym, got)
		}
	})
}

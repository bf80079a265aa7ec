package demangle

import "testing"

func TestFunctionSignature(t *testing.T) {
	for _, c := range []struct {
		sym    string
		params int
		ctor   bool
		member bool
		ok     bool
	}{
		{"_ZN3FooC1Ev", 0, true, true, true},
		{"_ZN3FooD1Ev", 0, false, true, true},
		{"_ZN6google14FlagRegistererC1IiEEPKcS3_S3_PT_S5_", 5, true, true, true},
		{"_ZN9benchmark8internal25RegisterBenchmarkInternalEPNS0_9BenchmarkE", 1, false, false, true},
		{"_ZN7testing8internal23MakeAndRegisterTestInfoEPKcS2_S2_S2_NS0_12CodeLocationEPKvPFvvES7_PNS0_15TestFactoryBaseE", 9, false, false, true},
		{"_ZNK4llvm2cl6Option9getOptionEv", 0, false, true, true},
		{"_ZN4llvm2cl3optIiLb0ENS0_6parserIiEEE4doneEv", 0, false, true, true},
		{"_Z7computeB5cxx11v", 0, false, false, true},
		{"_ZTVN3FooE", 0, false, false, false},
		{"PyImport_AppendInittab", 0, false, false, false},
	} {
		sig, ok := FunctionSignature(c.sym)
		if ok != c.ok || sig.Params != c.params || sig.Constructor != c.ctor || sig.Member != c.member {
			t.Errorf("FunctionSignature(%s) = %+v, %v; want params %d ctor %v member %v ok %v", c.sym, sig, ok, c.params, c.ctor, c.member, c.ok)
		}
	}
}

func TestReserved(t *testing.T) {
	for sym, want := range map[string]bool{
		"__cxa_atexit":            true,
		"_Unwind_Resume":          true,
		"_ZNSt8ios_base4InitC1Ev": true,
		"_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_": true,
		"_Znwm":   true,
		"_ZdlPvm": true,
		"_ZN9__gnu_cxx18stdio_sync_filebufIcE4syncEv": true,
		"_ZNKSt5ctypeIcE8do_widenEc":                  true,
		"PyImport_AppendInittab":                      false,
		"register_backend":                            false,
		"_ZN3FooC1Ev":                                 false,
		"_Z7computeB5cxx11v":                          false,
		"_ZN4absl7debian314flags_internal23RegisterCommandLineFlagERNS0_15CommandLineFlagEPKc": false,
	} {
		if got := Reserved(sym); got != want {
			t.Errorf("Reserved(%s) = %v, want %v", sym, got, want)
		}
	}
}

func TestLibrary(t *testing.T) {
	for sym, want := range map[string]bool{
		"_ZNSt8__detail9_CompilerINSt7__cxx1112regex_traitsIcEEEC2EPKcS6_RKSt6localeNSt15regex_constants18syntax_option_typeE": true,
		"_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv":     true,
		"_ZSt4moveIRiEONSt16remove_referenceIT_E4typeEOS2_": true,
		"_Z41__static_initialization_and_destruction_0ii":   false,
		"_ZN3FooC1Ev":  false,
		"__cxa_atexit": false,
	} {
		if got := Library(sym); got != want {
			t.Errorf("Library(%s) = %v, want %v", sym, got, want)
		}
	}
}

package demangle

// DefaultComponents returns a table of the components that PyTorch,
// ExecuTorch and their wheels commonly bundle: pthreadpool, cpuinfo,
// XNNPACK, QNNPACK, flatbuffers, flatcc, fmt, sleef, miniz, leveldb, oneDNN,
// protobuf, onnx, libstdc++, libc++, libstdc++/libgcc, openmp, torch,
// executorch, gflags and glog. Each call returns a new table, so that one
// caller's Add does not change another's.
//
// C libraries are recognised by their API prefix (xnn_, pthreadpool_,
// Sleef_, GOMP_, omp_, __kmpc_, et_pal_, ...). flatcc is only its runtime's
// flatcc_ functions: the flatbuffers_ helpers its generated code declares
// are static inline. The GNU vector-ABI names (_ZGV...) that libsleefgnuabi
// exports are also glibc's libmvec's and stay unclassified.
//
// How ambiguous namespaces are split:
//
//   - google:: is shared by glog, gflags and protobuf. google::protobuf:: is
//     protobuf; the other google:: entries list the public classes and
//     functions of glog 0.6/0.7 (LogMessage, InitGoogleLogging,
//     glog_internal_namespace_, ...) and gflags 2.2 built with
//     GFLAGS_NAMESPACE=google (FlagRegisterer, ParseCommandLineFlags, ...)
//     one by one, taken from the symbol tables of libglog and libgflags. Any
//     other google:: name is left unclassified rather than guessed.
//   - fLB::, fLI::, fLS::, fLU::, fLI64::, fLU64::, fLD:: hold the storage
//     of every DEFINE_bool/int32/... flag, and the flag belongs to whoever
//     defines it (c10 defines FLAGS_caffe2_*, torch FLAGS_torch_jit_*). Only
//     the flags gflags and glog themselves define are listed; other flags
//     stay unclassified.
//   - c10::, at::, torch::, caffe2::, c10d:: and ao:: are all "torch";
//     torch::executor:: is ExecuTorch's older namespace and the longer
//     pattern makes it "executorch".
//   - std:: is libstdc++, std::__1:: (libc++'s inline namespace) is libc++.
//     The C++ ABI entry points (__cxa_, __gxx_, _Unwind_, __gcc_) are
//     "libstdc++/libgcc" because either library may define them.
//   - ONNX built inside PyTorch uses the namespace onnx_torch::; both it and
//     onnx:: are "onnx".
func DefaultComponents() *Components {
	c := NewComponents()
	for _, d := range defaultTable {
		// TestDefaultTable checks every pattern as Add would; skipping
		// the check here keeps this function free of an error path.
		c.add(d.name, d.patterns)
	}
	return c
}

var defaultTable = []struct {
	name     string
	patterns []string
}{
	{"pthreadpool", []string{"pthreadpool_"}},
	{"cpuinfo", []string{"cpuinfo_"}},
	{"XNNPACK", []string{"xnn_", "xnnpack::"}},
	{"QNNPACK", []string{"pytorch_qnnp_", "qnnp_", "qnnpack::"}},
	{"flatbuffers", []string{"flatbuffers::"}},
	{"flatcc", []string{"flatcc_"}},
	{"fmt", []string{"fmt::"}},
	{"sleef", []string{"Sleef_"}},
	{"miniz", []string{"mz_", "tdefl_", "tinfl_"}},
	{"leveldb", []string{"leveldb_", "leveldb::"}},
	{"oneDNN", []string{"dnnl_", "dnnl::", "ideep::"}},
	{"protobuf", []string{"google::protobuf::", "descriptor_table_google_2fprotobuf_"}},
	{"onnx", []string{"onnx::", "onnx_torch::", "descriptor_table_onnx_"}},
	{"libstdc++", []string{"std::", "__gnu_cxx::", "__cxxabiv1::", "__gnu_debug::",
		// operator new and delete
		"_Znw", "_Zna", "_Zdl", "_Zda"}},
	{"libc++", []string{"std::__1::"}},
	{"libstdc++/libgcc", []string{"__cxa_", "__gxx_", "_Unwind_", "__gcc_"}},
	{"openmp", []string{"omp_", "ompt_", "GOMP_", "GOACC_", "__kmpc_", "__kmp_", "kmp_"}},
	{"torch", []string{"torch::", "c10::", "at::", "caffe2::", "c10d::", "ao::", "THP"}},
	{"executorch", []string{"executorch::", "torch::executor::", "executorch_flatbuffer::", "et_pal_"}},
	{"gflags", gflagsPatterns},
	{"glog", glogPatterns},
}

var gflagsPatterns = append([]string{
	"gflags::",
	"gflags_mutex_namespace::",
	"fLS::StringFlagDestructor::",
	"fLS::dont_pass0toDEFINE_string::",
	// Flags gflags itself defines.
	"fLB::FLAGS_help::", "fLB::FLAGS_helpfull::", "fLB::FLAGS_helppackage::",
	"fLB::FLAGS_helpshort::", "fLB::FLAGS_helpxml::", "fLB::FLAGS_version::",
	"fLI::FLAGS_tab_completion_columns::",
	"fLS::FLAGS_flagfile::", "fLS::FLAGS_fromenv::", "fLS::FLAGS_helpmatch::",
	"fLS::FLAGS_helpon::", "fLS::FLAGS_tab_completion_word::",
	"fLS::FLAGS_tryfromenv::", "fLS::FLAGS_undefok::",
}, googleNames(
	"AllowCommandLineReparsing", "AppendFlagsIntoFile", "BoolFromEnv",
	"CommandLineFlagInfo", "CommandlineFlagsIntoString", "DescribeOneFlag",
	"DoubleFromEnv", "FlagRegisterer", "FlagSaver", "FlagSaverImpl",
	"GetAllFlags", "GetArgv", "GetArgv0", "GetArgvSum", "GetArgvs",
	"GetCommandLineFlagInfo", "GetCommandLineFlagInfoOrDie",
	"GetCommandLineOption", "HandleCommandLineCompletions",
	"HandleCommandLineHelpFlags", "Int32FromEnv", "Int64FromEnv",
	"InternalStringPrintf", "ParseCommandLineFlags",
	"ParseCommandLineNonHelpFlags", "ProgramInvocationName",
	"ProgramInvocationShortName", "ProgramUsage", "ReadFlagsFromString",
	"ReadFromFlagsFile", "RegisterFlagValidator",
	"ReparseCommandLineNonHelpFlags", "SStringPrintf", "SetArgv",
	"SetCommandLineOption", "SetCommandLineOptionWithMode",
	"SetUsageMessage", "SetVersionString", "ShowUsageWithFlags",
	"ShowUsageWithFlagsRestrict", "ShutDownCommandLineFlags",
	"StringAppendF", "StringFromEnv", "StringPrintf", "Uint32FromEnv",
	"Uint64FromEnv", "VersionString", "gflags_exitfunc", "kStrippedFlagHelp",
)...)

var glogPatterns = append([]string{
	"glog_internal_namespace_::",
	// Flags glog defines.
	"fLB::FLAGS_alsologtostderr::", "fLB::FLAGS_colorlogtostderr::",
	"fLB::FLAGS_colorlogtostdout::", "fLB::FLAGS_drop_log_memory::",
	"fLB::FLAGS_log_prefix::", "fLB::FLAGS_log_utc_time::",
	"fLB::FLAGS_log_year_in_prefix::", "fLB::FLAGS_logtostderr::",
	"fLB::FLAGS_logtostdout::", "fLB::FLAGS_stop_logging_if_full_disk::",
	"fLB::FLAGS_symbolize_stacktrace::", "fLB::FLAGS_timestamp_in_logfile_name::",
	"fLI::FLAGS_logbuflevel::", "fLI::FLAGS_logbufsecs::", "fLI::FLAGS_logcleansecs::",
	"fLI::FLAGS_logemaillevel::", "fLI::FLAGS_logfile_mode::", "fLI::FLAGS_max_log_len::",
	"fLI::FLAGS_minloglevel::", "fLI::FLAGS_stderrthreshold::", "fLI::FLAGS_v::",
	"fLS::FLAGS_alsologtoemail::", "fLS::FLAGS_log_backtrace_at::", "fLS::FLAGS_log_dir::",
	"fLS::FLAGS_log_link::", "fLS::FLAGS_logmailer::", "fLS::FLAGS_vmodule::",
	"fLU::FLAGS_max_log_size::",
}, googleNames(
	"AddLogSink", "CheckOpMessageBuilder", "CheckstrcasecmpfalseImpl",
	"CheckstrcasecmptrueImpl", "CheckstrcmpfalseImpl", "CheckstrcmptrueImpl",
	"Demangle", "DisableLogCleaner", "EnableLogCleaner", "ErrnoLogMessage",
	"FlushLogFiles", "FlushLogFilesUnsafe", "GetExistingTempDirectories",
	"GetLogSeverityName", "GetLoggingDirectories", "GetSectionHeaderByName",
	"GetStackTrace", "InitGoogleLogging", "InitVLOG3__", "InstallFailureFunction",
	"InstallFailureSignalHandler", "InstallFailureWriter", "InstallPrefixFormatter",
	"InstallSymbolizeCallback", "InstallSymbolizeOpenObjectFileCallback",
	"IsGoogleLoggingInitialized", "LogDestination", "LogMessage",
	"LogMessageFatal", "LogMessageInfo", "LogMessageTime", "LogMessageVoidify",
	"LogSeverityNames", "LogSink", "LogToStderr", "MakeCheckOpValueString",
	"NullStream", "NullStreamFatal", "RawLog__", "RemoveLogSink",
	"ReprintFatalMessage", "SendEmail", "SetApplicationFingerprint",
	"SetEmailLogging", "SetLogDestination", "SetLogFilenameExtension",
	"SetLogSymlink", "SetStderrLogging", "SetVLOGLevel", "ShutdownGoogleLogging",
	"StrError", "Symbolize", "TestOnly_ClearLoggingDirectoriesList",
	"TruncateLogFile", "TruncateStdoutStderr", "base", "base_logging",
	"g_logging_fail_func", "glog_internal_namespace_", "logging",
	"posix_strerror_r",
)...)

// googleNames turns names declared in namespace google into namespace
// patterns.
func googleNames(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "google::" + n + "::"
	}
	return out
}

// Package cmake reads CMake list files: a lexer and parser of the CMake
// language (cmake-language(7)), and enough evaluation to know each target's
// kind and what it links, with the file:line that says so.
//
// It serves source-level lint: etlink's rules ask which targets are Python
// extension modules and which of them link libpython (Python::Python,
// ${PYTHON_LIBRARIES}, pybind11::embed), and where the link item that
// dropped a registration was written. So every target, link item and note
// carries a Location: the file and line, the call stack through the user's
// own wrapper functions (Via), and the undecided if() branches it sits
// under (Under).
//
// # Parsing
//
// Parse follows CMake's own lexer (cmListFileLexer) and parser: command
// invocations name(args) one per line, with case-insensitive names; bracket
// arguments [[...]] and [==[...]==] (the first newline after the opening
// dropped); bracket comments #[[...]]; line comments; quoted arguments
// with escapes and backslash-newline continuations; unquoted arguments,
// including the legacy forms a"b c"d and $(MAKEVAR); parentheses nested in
// an argument list, kept as "(" and ")" arguments; CRLF line ends and a
// UTF-8 byte-order mark. Arguments keep their text as written (variable
// references, generator expressions, ";" and escapes included) with their
// line and column (columns count bytes). Comments are kept, since
// suppressions (# etlink: ignore ET202 reason) are comments. Errors locate
// their cause as FILE:LINE:COL: the opening of an unterminated bracket or
// quoted argument, the "(" never closed, the stray ")". Files over
// MaxFileSize and parentheses nested deeper than MaxNesting are refused;
// parsing is iterative, so no input can exhaust the stack.
//
// # Evaluation
//
// Load reads a tree from its top CMakeLists.txt, following add_subdirectory,
// subdirs() and include() into files inside the tree, or inside the
// repository around it (Options.ReadRoot: a project in tools/python that
// includes ../../cmake/helpers.cmake); a module not found there
// (include(GNUInstallDirs)) is a Note, as is anything outside it, and every
// call of a command neither CMake's nor defined in a file read (one Note per
// name, counting the calls); so
// is an add_subdirectory() or include() of a file the checkout lacks (a
// submodule not cloned): an optional part missing is not an error, and
// Note.Kind lets a caller count notes by cause. It evaluates:
//
//   - variables: set (lists, PARENT_SCOPE, CACHE), unset, option, ${VAR}
//     nested as ${${x}_LIBS}, $CACHE{VAR}, directory and function scopes,
//     block(); -D definitions come from Options.Vars;
//   - list(APPEND PREPEND INSERT REMOVE_ITEM REMOVE_DUPLICATES REVERSE
//     LENGTH GET JOIN FIND POP_BACK POP_FRONT FILTER TRANSFORM),
//     string(APPEND PREPEND CONCAT JOIN TOLOWER TOUPPER STRIP LENGTH REPLACE
//     REGEX MATCH/MATCHALL/REPLACE), get_filename_component, project(), and
//     a directory's BUILDSYSTEM_TARGETS (get_property,
//     get_directory_property); CMake regular expressions are translated to
//     Go's, and one that cannot be is a Note;
//   - if/elseif/else with CMake's operator precedence: constants, variables,
//     NOT AND OR, parentheses, DEFINED, COMMAND, TARGET, EXISTS (inside the
//     tree), STREQUAL and the other string, numeric and VERSION_
//     comparisons, MATCHES (as a Go regular expression), IN_LIST;
//   - foreach (items, RANGE, IN LISTS/ITEMS/ZIP_LISTS), while, break,
//     continue, return (with PROPAGATE);
//   - function and macro definitions and calls: ARGC, ARGV, ARGN, ARGV<n>,
//     named parameters, macro argument substitution, the _name of an
//     overridden command; cmake_parse_arguments in both forms;
//   - targets: add_library (STATIC SHARED MODULE OBJECT INTERFACE, IMPORTED,
//     ALIAS, and no type: BUILD_SHARED_LIBS), add_executable,
//     pybind11_add_module, pybind11_extension, nanobind_add_module,
//     Python_add_library, Python2_add_library and Python3_add_library;
//     target_link_libraries with its scope keywords and debug/optimized
//     (each item a list: "${LIBS}" links every element, as in CMake),
//     link_libraries (for the targets created after it in the directory and
//     its subdirectories), set_target_properties and set_property(TARGET)
//     (APPEND or not), target_link_options (BEFORE too), and
//     get_target_property and get_property(TARGET) of LINK_LIBRARIES,
//     INTERFACE_LINK_LIBRARIES, LINK_OPTIONS, INTERFACE_LINK_OPTIONS, TYPE
//     and the properties the tree set (OUTPUT_NAME, PREFIX, SUFFIX).
//
// A target's Links are its LINK_LIBRARIES and INTERFACE_LINK_LIBRARIES as
// CMake keeps them (and its Options the two LINK_OPTIONS properties, kept
// the same way): target_link_libraries appends to one or both by scope
// (a static library's PRIVATE items also reach INTERFACE_LINK_LIBRARIES as
// $<LINK_ONLY:...>), and set_target_properties replaces them, so the value
// at the end of configuration is what the target links. Every rewrite is
// kept in LinkEdits with its location, so a rule can say that a
// get/filter/set sequence took an item away (ExecuTorch's
// strip_python_lib()).
//
// The platform is Linux, the one etlink checks: APPLE, WIN32, MSVC and the
// other platform variables are unset, UNIX and LINUX are true and
// CMAKE_SYSTEM_NAME is Linux, unless Options.Vars says otherwise. The CMake
// is Options.CMakeVersion (a build directory's), else DefaultCMakeVersion
// raised to the project's cmake_minimum_required: CMAKE_VERSION and its
// parts are known, and find_package(Python|Python3|Python2 COMPONENTS ...)
// defines the imported targets that release's FindPython defines
// (Python::Module for Development or Development.Module from 3.15), and
// find_package(pybind11) pybind11's, so if(TARGET Python::Module) is
// decided. Any find_package() makes its package's result variables
// (PREFIX_LIBRARIES, PYTHON_LIBRARY for PythonLibs, ...) unknown again.
// A comparison on the found Python's version (Python3_VERSION_MINOR and
// the like, which the tree does not set) is decided when it holds for every
// CPython an extension is built for today, 3.9 and later, and undecided
// otherwise. project() sets PROJECT_IS_TOP_LEVEL; a subproject's option() whose
// default is computed (${PYBIND11_MASTER_PROJECT}) takes it, with a Note.
// UseSWIG's swig_add_library/swig_add_module and swig_link_libraries are
// modelled (a Python SWIG library is an extension); file(TO_CMAKE_PATH)
// and file(TO_NATIVE_PATH) are evaluated.
//
// pybind11, nanobind and FindPython commands are read with a model of what
// they do, even when the tree vendors their definitions: pybind11_add_module
// links pybind11::module into a MODULE (the default) and pybind11::embed
// into SHARED or STATIC; Python_add_library links Python::Module into a
// MODULE (the default) and Python::Python otherwise; nanobind_add_module
// makes a MODULE linking Python::Module. Those items are recorded as
// LinkItems whose Implicit says where they come from.
//
// A target is an Extension when it is made by pybind11_add_module or
// nanobind_add_module (any form), by Python*_add_library as a MODULE or
// WITH_SOABI, when it is a MODULE library, or when it is a SHARED library
// whose PREFIX is "" and whose SUFFIX is a Python suffix (.so, .pyd, or a
// variable such as ${PYTHON_MODULE_EXTENSION} or ${Python_SOABI});
// pybind11_extension(target) sets those. An executable never is.
//
// # What evaluation does not know
//
// etlink never runs CMake, so some values are not known: variables the tree
// never sets (set by find_package, the toolchain, the cache, the
// environment), the results of commands it does not evaluate, generator
// expressions (kept as text). A reference to such a variable stays as
// written, ${TORCH_PYTHON_LIBRARY}, and a link item holding one is Unknown.
// A condition that depends on one is undecided: every branch is read, the
// locations inside carry the branch in Location.Under, and a Note says so.
// Each branch is read from the variables as they were before the if(), and
// a variable the branches leave different is undecided after it (a set(X
// OFF) in one branch does not decide a later if(X)). A command in one branch
// applies to that branch's target when both branches define one.
// option() and set(... CACHE ...) values are defaults a build can flip, so
// a condition on them is undecided too, unless Options.TrustDefaults is set
// (a value from Options.Vars is always known). A foreach over an unknown
// list runs its body once with the unknown value; a while() whose condition
// is undecided runs its body once. return(), break() and continue() under an
// undecided condition are ignored, with a Note, so that what follows them
// is read.
//
// Deviations from CMake, chosen for a lint: an unquoted argument is not
// split at a ";" inside a generator expression $<...>; list(APPEND) to a
// variable the tree never set starts from an empty list; a target defined
// twice (in both branches of an undecided if) is kept twice and
// target_link_libraries applies to both; a link property rewritten under
// an undecided condition is rewritten (the edit's Location.Under says so,
// and a rule that relies on the rewrite must not take it as certain).
//
// Not evaluated: math(), file(), cmake_path(),
// execute_process(), find_*() (their output variables become unknown),
// generator expressions, cmake_language(), configure_file(), policies,
// FetchContent and find_package beyond the models above (no module outside
// the tree is read),
// add_link_options (a directory's LINK_OPTIONS) and the target_* commands
// other than target_link_libraries and target_link_options.
//
// Bounds: calls, include() and add_subdirectory() nested deeper than
// Options.MaxDepth (default 64), foreach over more than 10,000 items,
// while() beyond 1,000 iterations, blocks nested deeper than 1,000 and more
// than 1,000,000 commands in one Load stop with a Note, so a hostile tree
// cannot hang or crash the lint.
//
// # Files
//
// parse.go is the lexer and parser; eval.go the interpreter core (loading
// list files, blocks, dispatch, user functions and macros); vars.go
// variables and scopes (and set, unset, option); expand.go variable
// references; cond.go and flow.go conditions and control flow (if,
// foreach, while, block); the built-in commands by CMake's grouping:
// cmd_list.go list(), cmd_string.go string(), get_filename_component() and
// cmake_parse_arguments(), cmd_project.go project(), include() and
// add_subdirectory(); targets.go the targets and their link properties;
// project.go the result.
package cmake

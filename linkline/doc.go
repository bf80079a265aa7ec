// Package linkline parses link command lines into Link: the output, each
// input in order with the linker state in force.
//
// The question it serves is which shared libraries and archive members a
// link keeps: a library under --as-needed that nothing references is
// dropped from DT_NEEDED, an archive member is extracted only when it
// defines something still undefined, unless --whole-archive is in force.
// So each Input records, besides what it is (Kind) and where it was found
// (Path), the State the linker is in when it reads it, and where in which
// file the argument was written (Source).
//
// # Sources read
//
//   - an argv (ParseArgs) or a shell command line (ParseCommand): quoting,
//     && || ; chains, cd DIR, env VAR=x, ccache-style launchers;
//   - build logs (ParseLog): make VERBOSE=1, ninja -v, with make's and
//     ninja's "Entering directory" lines;
//   - CMake's CMakeFiles/<target>.dir/link.txt (ParseLinkTxt);
//   - build.ninja with its includes (ParseNinja): rule commands expanded
//     with ninja's variable scoping, rspfile_content read from the statement;
//   - the CMake File API reply, codemodel-v2 with toolchains-v1 and cache-v2
//     (ParseFileAPI): each fragment carries the CMakeLists.txt line that
//     added it;
//   - @response files anywhere, nested (at most 16 deep), with GCC's quoting.
//
// # What is modelled
//
// Linker state: --as-needed/--no-as-needed, --whole-archive/
// --no-whole-archive, -Bstatic/-Bdynamic/-dn/-dy/-static,
// --push-state/--pop-state (a stack), --start-group/--end-group and -( -)
// (numbered groups), as given directly to a linker or through -Wl,a,b,
// -Xlinker, and CMake's LINKER: and SHELL: fragment forms. -l NAME, -lNAME
// and -l:FILE are looked up as GNU ld does: all -L dirs in order (ld
// applies every -L to every -l), then the driver's own dirs (DRIVER
// -print-search-dirs) and the linker's built-in ones (none for lld and
// mold), libNAME.so before libNAME.a in each dir, only .a under -Bstatic.
// An existing file's kind comes from its contents (ELF type, ar magic,
// text for linker scripts such as Debian's libc.so).
//
// Driver defaults: the state a gcc driver starts the linker in and the
// libraries it appends come from the driver's own specs (its *link spec
// read from the driver file, upstream GCC's link_command around it,
// evaluated for the command's switches): Debian's and Ubuntu's gcc put
// %{!fsanitize=*:--as-needed} in *link:, so --as-needed is in force from
// the first input unless the line says -Wl,--no-as-needed. After the
// user's inputs g++ adds -lstdc++ -lm (moving the user's first -lm and -lc
// after them), then the libgcc/libc sequence of the specs (g++: -lgcc_s
// -lgcc -lc -lgcc_s -lgcc; -static: a group of -lgcc -lgcc_eh -lc);
// sanitizer runtimes go under --push-state --no-as-needed. These Implicit
// inputs carry the state in force where the driver puts them, so an
// unclosed --no-as-needed reaches them. Debian's clang 14 (which has no
// specs) is modelled from its -### output: no --as-needed by default. A
// linker invoked directly starts with --as-needed off. For a driver that
// cannot be asked (not installed here) or is not known, the default is off
// and DefaultAsNeededSource says "not determined"; Options.DefaultAsNeeded
// overrides it.
//
// Inputs keep the order the command gives; Index is the argument's
// position. Nothing is reordered except what g++ itself moves (-lm, -lc).
//
// # What is not modelled
//
//   - start files and crt objects the driver adds (crt1.o, crtbegin.o ...);
//   - what a linker script input pulls in (INPUT, GROUP, AS_NEEDED inside
//     libc.so): the script is one Input of KindScript;
//   - GNU ld's abbreviations of long options (--whole for --whole-archive),
//     --copy-dt-needed-entries, -z options, --sysroot's effect on the
//     driver's own dirs, and runtime libraries of static sanitizers;
//   - shell expansion: $VAR and $(...) are kept as written, which is what
//     keeps $ORIGIN intact;
//   - ninja's quirk where a file-level variable shadows a rule variable
//     for a build statement without bindings (rule variables win here);
//
// Nothing a build tree names is ever run: a tree is untrusted, and its
// "gcc" may be any program. The *link spec is the string of a gcc driver's
// read-only data that passes -dynamic-linker and -shared (only a regular
// file, at most 64 MB, is read); the library dirs are GCC's Debian layout
// for the driver's target and version (/usr/lib/gcc[-cross]/TRIPLE/VER,
// /usr/TRIPLE/lib, the multiarch dirs). Both are held to the real drivers'
// -dumpspecs and -print-search-dirs in the tests. Tests inject
// Options.Specs and Options.SearchDirs for canned drivers.
package linkline

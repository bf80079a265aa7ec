// Package linkmap parses linker map files of GNU ld (bfd), gold, lld and
// mold (format auto-detected) into a Map: the inputs loaded, the archive
// members extracted and the reference that pulled each, the shared
// libraries kept under --as-needed, the input sections discarded, the
// output sections and the symbol addresses.
//
// Parse reads line by line, in one pass, and never holds the file: a
// multi-gigabyte map costs the memory of what it says, with every file
// name stored once and an entry repeated kept once. With NoSymbols that is
// its inputs, members and libraries, which MaxKept bounds; a line is at
// most MaxLine bytes. The bytes read are charged to Options.Budget.
// Every entry carries the map line it came from, for findings to cite. A
// line that cannot be understood in a part of the map that must be (the
// archive, as-needed and discarded tables, section and symbol lines, lld
// and mold rows) is an *Error naming the file and line; lines of unknown
// shape elsewhere are skipped, since linkers add to their maps. A map that
// ends early (a last line without a newline, a wrapped table entry without
// its second half, a GNU ld or gold map without its memory map, a GNU ld
// memory map without its closing OUTPUT line) is an error too. An empty
// file or one of no known format wraps ErrUnknownFormat.
//
// # What each format shows
//
// From maps written by GNU ld 2.40, gold 1.16, lld 14 and mold 1.10, for
// x86_64 and aarch64 (testdata/gen.sh; the two architectures give the same
// structure). Map.Shows and Format.Shows answer the same questions in code:
// a fact a format does not show is missing from a Map without meaning it
// did not happen.
//
//	                          bfd        gold       lld        mold
//	inputs in link order      yes (1)    -          -          -
//	archive members extracted yes (2)    yes        some (3)   some (3)
//	  ... and why             yes        yes        -          -
//	as-needed libraries kept  yes (4)    -          -          -
//	  ... and dropped         - (5)      -          -          -
//	discarded input sections  yes        yes        -          -
//	shared libraries loaded   yes (1)    some (6)   some (7)   -
//	output sections           yes (8)    yes        yes        yes (9)
//	symbols                   global     global     all (10)   all (10)
//	symbol sizes              -          -          yes        -
//	output file name          yes        -          -          -
//
// (1) GNU ld's LOAD lines list every input file as the command line and
// linker scripts name it, used or not: shared libraries dropped under
// --as-needed, archives nothing was taken from, and linker scripts named
// like libraries (libc.so), which Map.Shared cannot tell from libraries.
// Archives appear whole; Map.Loaded puts the extracted members after them.
//
// (2) "Archive member included to satisfy reference by file (symbol)"
// (gold: "... because of file (symbol)") lists each member with the first
// reference that pulled it, "--whole-archive", or a -u symbol (GNU ld
// prints a -u symbol as "(SYMBOL)" with no file, gold as "-u SYMBOL"). GNU
// ld prints symbols demangled ("used_fn(int)"), gold mangled
// ("_Z7used_fni"). GNU ld names a member of a thin archive by its own path
// ("thin/thin_member.o"), without the archive: Extraction.Archive is empty.
//
// (3) lld and mold have no extraction table. A member shows only through
// its input sections that reached the output, so a member extracted and
// then emptied by --gc-sections is missing, and no reason is given.
// Extracted holds the members seen, in order of first mention.
//
// (4) "As-needed library included to satisfy reference by file (symbol)"
// names each library kept under --as-needed by its SONAME (libyes.so.1
// for ./libyes.so), with the first reference to it. Libraries linked
// without --as-needed are not listed, kept as they are.
//
// (5) No format lists a library dropped under --as-needed. With GNU ld, a
// shared library in LOAD lines but not in the as-needed table was dropped
// if --as-needed was in force for it, which only the link line says.
//
// (6) gold and lld print a cross reference table with -Wl,--cref (mold has
// no --cref), and Map.Shared holds the shared libraries it names; not all
// that were loaded. gold's names the libraries whose symbols it listed,
// dropped ones included (libno.so), but not ld-linux-x86-64.so.2, which it
// loaded too (its --trace says so). (7) lld's lists only symbols that
// object files define or refer to, so it names just the libraries that
// resolved a reference: those kept. GNU ld's table, which leaves dropped
// libraries out as well, adds nothing to its LOAD lines.
//
// (8) GNU ld also lists output sections that stay empty and are left out
// of the file (.tdata, .sframe, of size 0), which OutputSections keeps,
// and sections of its default script that got no address at all (.hash),
// which it leaves out.
//
// (9) mold's EHDR, PHDR and SHDR rows are headers, not sections, and are
// left out.
//
// (10) lld and mold list local symbols as well (static functions,
// "completed.0"); ARM and AArch64 mapping symbols ($x, $d) are left out.
// GNU ld also lists the PLT entries of functions from shared libraries
// ("puts@@GLIBC_2.2.5", "yes_fn(int)"), filed under the input its
// linker-made sections are attributed to (Scrt1.o). Linker script
// assignments are not symbols here.
//
// File names are kept as each linker prints them, which differs for the
// same link: GNU ld, gold and lld name an archive found by -lstatic
// "./libstatic.a", mold "libstatic.a". All four demangle C++ symbol names in
// their symbol lines unless told not to.
package linkmap

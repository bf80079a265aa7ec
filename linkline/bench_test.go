package linkline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeBigNinja writes a CMake-shaped build dir with n link targets: per
// target a compile rule and a link rule in rules.ninja, an object
// statement and a link statement with a dozen libraries in build.ninja.
func writeBigNinja(tb testing.TB, n int) string {
	dir := tb.TempDir()
	var rules, build strings.Builder
	build.WriteString("# CMAKE generated file: DO NOT EDIT!\ninclude CMakeFiles/rules.ninja\n\n")
	for i := 0; i < n; i++ {
		kind, rule := "EXECUTABLE", fmt.Sprintf("CXX_EXECUTABLE_LINKER__t%d_Release", i)
		cmd := "$PRE_LINK && /usr/bin/c++ $FLAGS $LINK_FLAGS $in -o $TARGET_FILE $LINK_PATH $LINK_LIBRARIES && $POST_BUILD"
		out := fmt.Sprintf("bin/t%d", i)
		if i%2 == 1 {
			kind, rule = "SHARED_LIBRARY", fmt.Sprintf("CXX_SHARED_LIBRARY_LINKER__t%d_Release", i)
			cmd = "$PRE_LINK && /usr/bin/c++ -fPIC $LANGUAGE_COMPILE_FLAGS $ARCH_FLAGS $LINK_FLAGS -shared $SONAME_FLAG$SONAME -o $TARGET_FILE $in $LINK_PATH $LINK_LIBRARIES && $POST_BUILD"
			out = fmt.Sprintf("lib/libt%d.so", i)
		}
		fmt.Fprintf(&rules, "rule CXX_COMPILER__t%d_Release\n  depfile = $DEP_FILE\n  deps = gcc\n  command = /usr/bin/c++ $DEFINES $INCLUDES $FLAGS -MD -MT $out -MF $DEP_FILE -o $out -c $in\n  description = Building CXX object $out\n\n", i)
		fmt.Fprintf(&rules, "rule %s\n  command = %s\n  description = Linking CXX %s $TARGET_FILE\n  restat = $RESTAT\n\n", rule, cmd, kind)
		fmt.Fprintf(&build, "# =============================================================================\n# Object build statements for %s target t%d\n\n", kind, i)
		fmt.Fprintf(&build, "build CMakeFiles/t%d.dir/src/t%d.cpp.o: CXX_COMPILER__t%d_Release /src/t%d.cpp || cmake_object_order_depends_target_t%d\n  DEP_FILE = CMakeFiles/t%d.dir/src/t%d.cpp.o.d\n  FLAGS = -O3 -DNDEBUG -fPIC\n  INCLUDES = -I/src/include\n  OBJECT_DIR = CMakeFiles/t%d.dir\n\n", i, i, i, i, i, i, i, i)
		fmt.Fprintf(&build, "# =============================================================================\n# Link build statements for %s target t%d\n\n#############################################\n# Link the target\n\n", kind, i)
		var libs strings.Builder
		libs.WriteString(`-Wl,-rpath,"\$$ORIGIN/../lib"  `)
		for j := 1; j <= 4; j++ {
			fmt.Fprintf(&libs, "lib/libt%d.so  ", (i+j)%n)
		}
		libs.WriteString("-Wl,--push-state,--whole-archive  lib/libreg.a  -Wl,--pop-state  -Wl,--no-as-needed  lib/libbackend.so  -Wl,--as-needed  -lpthread  -ldl  /usr/lib/x86_64-linux-gnu/libz.so")
		fmt.Fprintf(&build, "build %s: %s CMakeFiles/t%d.dir/src/t%d.cpp.o | lib/libreg.a || lib/libreg.a\n  FLAGS = -O3 -DNDEBUG\n  LINK_LIBRARIES = %s\n  LINK_PATH = -L/opt/lib\n  OBJECT_DIR = CMakeFiles/t%d.dir\n  POST_BUILD = :\n  PRE_LINK = :\n  SONAME = libt%d.so\n  SONAME_FLAG = -Wl,-soname,\n  TARGET_FILE = %s\n  TARGET_PDB = t%d.dbg\n\n",
			out, rule, i, i, libs.String(), i, i, out, i)
	}
	writeFiles(tb, dir, map[string]string{
		"CMakeFiles/rules.ninja": rules.String(),
		"build.ninja":            build.String(),
	})
	return dir
}

func BenchmarkParseNinja(b *testing.B) {
	const n = 10000
	dir := writeBigNinja(b, n)
	specs := debianSpecs(b)
	sys := fakeLibDir(b, systemLibs...)
	opt := Options{
		Specs:      func(string) (string, error) { return specs, nil },
		SearchDirs: func(string) []string { return []string{sys} },
	}
	fi, _ := os.Stat(filepath.Join(dir, "build.ninja"))
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		links, errs := ParseNinja(filepath.Join(dir, "build.ninja"), opt)
		if len(errs) > 0 || len(links) != n {
			b.Fatalf("%d links, errors %v", len(links), errs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/link")
}

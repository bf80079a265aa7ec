package linkline

import (
	"fmt"
	"testing"
)

func TestDebug(t *testing.T) {
	for _, cmd := range []string{
		`/usr/bin/c++ CMakeFiles/app.dir/main.cpp.o -o app  -Wl,-rpath,/tmp/lp/b-make -Wl,--push-state,--whole-archive libstat.a -Wl,--pop-state -lLINKER:--push-state,--no-as-needed libshared1.so -lLINKER:--pop-state libshared2.so`,
		`gcc x.o -o x -Wl,--no-as-needed -lfoo`,
		`clang++ -static x.o -o x -lm`,
		`g++ -fsanitize=address x.o -lm -lc -o x`,
	} {
		l, err := ParseCommand(cmd, Options{Dir: "/tmp/lp/b-make"})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s\n default=%v (%s) out=%s pie=%v static=%v warn=%q\n", cmd, l.DefaultAsNeeded, l.DefaultAsNeededSource, l.Output, l.PIE, l.Static, l.Warnings)
		for _, in := range l.Inputs {
			fmt.Printf("  %3d %-30s %-8s %-50s %-20s impl=%v\n", in.Index, in.Arg, in.Kind, in.Path, in.State, in.Implicit)
		}
	}
}

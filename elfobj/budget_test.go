package elfobj

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/internal/testenv"
	"github.com/etlink/etlink/symset"
)

// budgetFiles are libraries the budget tests read in turn: the compiled
// fixtures and system libraries (real paths: the index keys on them).
func budgetFiles(t *testing.T) []string {
	t.Helper()
	fx := compiled(t)
	files := []string{fx.so, fx.uses}
	for _, lib := range []string{"libm.so.6", "libc.so.6", "libstdc++.so.6"} {
		p := filepath.Join(systemLibDir, lib)
		testenv.NeedFiles(t, p)
		files = append(files, realPath(p))
	}
	return files
}

// readInTurn reads files one after another with opt, through OpenFile
// (the loader's search) or Open (inputs named), on a budget of lim, and
// returns the file whose read tripped it ("" when none did), checking
// that its error is an *Error naming it that wraps the *budget.Exhausted.
func readInTurn(t *testing.T, files []string, opt Options, lim budget.Limits, viaOpen bool) string {
	t.Helper()
	opt.Budget = budget.New(lim)
	for _, p := range files {
		var errs []error
		if viaOpen {
			_, errs = Open([]string{p}, opt)
		} else if _, err := OpenFile(p, "", opt); err != nil {
			errs = []error{err}
		}
		for _, err := range errs {
			var e *Error
			var ex *budget.Exhausted
			if !errors.As(err, &e) || e.Path != p || !errors.As(err, &ex) {
				t.Fatalf("%s: error %v, want an *Error naming it, of the spent budget", p, err)
			}
			return p
		}
	}
	return ""
}

// TestBudgetTripsAtTheSameFile: a run past its objects or bytes budget
// stops at the file whose charge goes past it, with an error naming that
// file; and the same run with the index warm (the files answered by a
// stat, not opened) stops at the same file: the index is asked after the
// charge, which is the file's size either way.
func TestBudgetTripsAtTheSameFile(t *testing.T) {
	ageIndexClock(t)
	files := budgetFiles(t)
	var firstTwo int64
	for _, p := range files[:2] {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		firstTwo += fi.Size()
	}
	only := &symset.Set{}
	only.Add("etlink_no_such_symbol")
	for _, c := range []struct {
		name string
		lim  budget.Limits
	}{
		{"objects", budget.Limits{budget.Objects: 2}},
		{"read", budget.Limits{budget.Read: firstTwo}},
	} {
		for _, viaOpen := range []bool{false, true} {
			x := OpenIndex("")
			opt := Options{Only: only, Index: x, Workers: 1}
			if got := readInTurn(t, files, opt, c.lim, viaOpen); got != files[2] {
				t.Fatalf("%s budget, cold (Open %v): tripped at %q, want %s", c.name, viaOpen, got, files[2])
			}
			readInTurn(t, files, opt, budget.Limits{}, viaOpen) // the index learns every file
			reads := x.Reads()
			if got := readInTurn(t, files, opt, c.lim, viaOpen); got != files[2] {
				t.Errorf("%s budget, warm (Open %v): tripped at %q, want %s", c.name, viaOpen, got, files[2])
			}
			if x.Reads() != reads {
				t.Errorf("%s budget, warm (Open %v): %d files read, not answered by the index: the test tests nothing", c.name, viaOpen, x.Reads()-reads)
			}
		}
	}
}

// TestBudgetArchiveMembers: each archive member read is an object; past
// the budget, the member whose charge went past it is the one error, and
// the members before it are still read.
func TestBudgetArchiveMembers(t *testing.T) {
	path := filepath.Join("..", "testdata", "elf", "x86_64", "libreg.a")
	all, errs := Open([]string{path}, Options{})
	if len(errs) > 0 || len(all) < 2 {
		t.Fatalf("%d members, errors %v", len(all), errs)
	}
	// Every member of libreg.a is ELF: the object budget counts them all.
	objs, errs := Open([]string{path}, Options{Budget: budget.New(budget.Limits{budget.Objects: int64(len(all) - 1)})})
	last := path + "(" + all[len(all)-1].Member + ")"
	var ex *budget.Exhausted
	if len(objs) != len(all)-1 || len(errs) != 1 || !errors.As(errs[0], &ex) || errs[0].(*Error).Path != last {
		t.Errorf("objects %v, errors %v; want the first %d members and one error naming %s", paths(objs), errs, len(all)-1, last)
	}
}

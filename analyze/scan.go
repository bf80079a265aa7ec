package analyze

import (
	"fmt"
	"strings"

	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/internal/budget"
)

// ScanColumns head scan's table, a column for each cell of ScanRows'.
var ScanColumns = []string{"OBJECT", "TYPE", "MACHINE", "SONAME", "NEEDED", "RPATH/RUNPATH", "EXPORTS", "UNDEF"}

// ScanRows reads every object of paths, charged to b, and returns each
// one's row of scan's table.
func ScanRows(paths []string, b *budget.Budget, log Log) [][]string {
	rows, _, _ := ReadEach(paths, elfobj.Options{Budget: b}, log, func(o *elfobj.Object) []string {
		return []string{o.Path, o.TypeName(), o.MachineName(), dash(o.Soname),
			dash(strings.Join(o.Needed, " ")), searchPath(o),
			fmt.Sprint(o.Exports()), fmt.Sprint(o.Undefined())}
	})
	return rows
}

// ScanEach reads every object of paths, charged to b, as ReadEach does:
// keep receives each object (an *elfobj.Object, for scan to encode whole)
// as soon as its file has been read.
func ScanEach[T any](paths []string, b *budget.Budget, log Log, keep func(obj any) T) ([]T, []finding.Input) {
	kept, inputs, _ := ReadEach(paths, elfobj.Options{Budget: b}, log, func(o *elfobj.Object) T { return keep(o) })
	return kept, inputs
}

// searchPath shows RUNPATH, or RPATH marked as such: they search differently.
func searchPath(o *elfobj.Object) string {
	switch {
	case len(o.Runpath) > 0:
		return strings.Join(o.Runpath, ":")
	case len(o.Rpath) > 0:
		return "RPATH=" + strings.Join(o.Rpath, ":")
	}
	return "-"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

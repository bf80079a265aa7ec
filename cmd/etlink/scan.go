package main

import (
	"fmt"
	"strings"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/report"
)

var scanCmd = &command{
	name:    "scan",
	args:    "[flags] PATH...",
	summary: "inventory ELF objects: soname, needed, runpath, exports, machine",
	help: `Reads shared objects, relocatable objects, executables, ar archives, wheels
(read in memory, never unpacked) and directories (walked, ELF found by
content), and prints one row per object. --format json gives every field,
dynamic symbols included.

Examples:
  etlink scan dist/executorch-1.0-cp311-cp311-linux_x86_64.whl
  etlink scan build/lib/libexecutorch.so build/lib/libportable_kernels.a
  etlink scan --format json /usr/lib/python3/dist-packages/torch > torch.json`,
	run: runScan,
}

// scanReport is scan's JSON: the finding report's envelope with objects.
type scanReport struct {
	envelope
	Objects []*elfobj.Object `json:"objects"`
}

func runScan(c *command, a *app, args []string) int {
	out := &outputFlags{formats: []string{"text", "json"}}
	fs, _, code, ok := c.parseReporting(a, args, out)
	if !ok {
		return code
	}
	if fs.NArg() == 0 {
		a.errorf("scan: no PATH given\nRun 'etlink scan --help' for usage.")
		return exitError
	}
	objs, inputs, _ := analyze.ReadInputs(fs.Args(), elfobj.Options{}, a)
	if out.format == "json" {
		head := scanReport{envelope: newEnvelope("scan", inputs), Objects: []*elfobj.Object{}}
		err := report.EncodeJSON(a.stdout, &head, "objects", objs)
		if err != nil {
			a.errorf("scan: %v", err)
			return exitError
		}
	} else if err := scanTable(a, objs); err != nil {
		a.errorf("scan: %v", err)
		return exitError
	}
	if a.inputErrors > 0 {
		return exitError
	}
	return exitOK
}

func scanTable(a *app, objs []*elfobj.Object) error {
	rows := make([][]string, 0, len(objs))
	for _, o := range objs {
		rows = append(rows, []string{o.Path, o.TypeName(), o.MachineName(), dash(o.Soname),
			dash(strings.Join(o.Needed, " ")), searchPath(o),
			fmt.Sprint(o.Exports()), fmt.Sprint(o.Undefined())})
	}
	if err := report.Table(a.stdout, []string{"OBJECT", "TYPE", "MACHINE", "SONAME", "NEEDED", "RPATH/RUNPATH", "EXPORTS", "UNDEF"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "%d objects\n", len(objs))
	return err
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

package main

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/etlink/etlink/analyze"
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
	Objects []any `json:"objects"` // empty: the objects are written from the spill file
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
	var err error
	if out.format == "json" {
		err = scanJSON(a, fs.Args())
	} else {
		err = scanTable(a, fs.Args())
	}
	if err != nil {
		a.errorf("scan: %v", err)
		return exitError
	}
	if a.inputErrors > 0 {
		return exitError
	}
	return exitOK
}

// scanJSON writes each object's JSON to a spill file as soon as its file
// has been read, and the document from it at the end: memory holds the
// files being read, not every object of a tree (a Debian /usr/lib is
// hundreds of megabytes of symbols). The bytes are those EncodeJSON
// writes.
func scanJSON(a *app, paths []string) error {
	spill, err := os.CreateTemp("", "etlink-scan-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(spill.Name())
	defer spill.Close()
	type segment struct{ off, n int64 }
	var mu sync.Mutex
	w := bufio.NewWriterSize(spill, 1<<20)
	var end int64
	var werr error
	encoders := sync.Pool{New: func() any { return new(report.ElementEncoder) }}
	segs, inputs := analyze.ScanEach(paths, a.budget, a, func(o any) segment {
		e := encoders.Get().(*report.ElementEncoder)
		defer encoders.Put(e)
		b, err := e.Encode(o)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			_, err = w.Write(b)
		}
		if err != nil {
			werr = cmp.Or(werr, err)
			return segment{}
		}
		s := segment{end, int64(len(b))}
		end += s.n
		return s
	})
	werr = cmp.Or(werr, w.Flush())
	if werr != nil {
		return werr
	}
	head := scanReport{envelope: newEnvelope("scan", inputs), Objects: []any{}}
	var buf []byte
	return report.EncodeJSONWith(a.stdout, &head, "objects", len(segs), func(i int) ([]byte, error) {
		buf = slices.Grow(buf[:0], int(segs[i].n))[:segs[i].n]
		_, err := spill.ReadAt(buf, segs[i].off)
		return buf, err
	})
}

func scanTable(a *app, paths []string) error {
	rows := analyze.ScanRows(paths, a.budget, a)
	if err := report.Table(a.stdout, analyze.ScanColumns, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(a.stdout, "%d objects\n", len(rows))
	return err
}

package analyze

import (
	"sync"

	"github.com/etlink/etlink/demangle"
	"github.com/etlink/etlink/elfobj"
	"github.com/etlink/etlink/internal/budget"
	"github.com/etlink/etlink/internal/cachedir"
	"github.com/etlink/etlink/internal/gcdefer"
	"github.com/etlink/etlink/internal/procs"
)

// A run's process-level plumbing is decided here, by the sessions that
// read, not by main and not by the readers: the collector's first
// collection (internal/gcdefer), the processors a run reads on
// (internal/procs, given to elfobj as Processors), the library index kept
// in the cache directory (internal/cachedir, given to elfobj as a path),
// and the budget demangling is charged to.

var gcOnce sync.Once

// BeginRun starts a run charged to b: the names demangled from now on are
// charged to it, none remembered from before (demangle's counts are the
// process's), and the collector is held back until the run has allocated
// enough for a collection to pay, once a process. The command calls it
// again when the configuration sets the budget.
func BeginRun(b *budget.Budget) {
	gcOnce.Do(gcdefer.Start)
	demangle.UseBudget(b)
}

// NoteSpending says what the run's bounds left undone, once it has read
// and checked: names over the demangler's bound, what b was charged (with
// verbose), and names left mangled for want of b's demangle budget.
func NoteSpending(b *budget.Budget, verbose bool, log Log) {
	if n := demangle.Skipped(); n > 0 {
		log.Notef("%d symbol names are over the demangler's bound (crafted, or longer than any real C++ name) and are shown as they are", n)
	}
	if verbose {
		log.Notef("budget: %s", b.Report())
	}
	if n := demangle.OverBudget(); n > 0 {
		log.Notef("%d symbol names are shown mangled: the run's demangle budget (%s) is spent (--budget demangle=N raises it)",
			n, budget.Demangled.Format(b.Limit(budget.Demangled)))
	}
}

// runProcs are the processors every read of a session is given: the
// process's GOMAXPROCS, as a Lookup narrows it and a read widens it back.
var runProcs elfobj.Processors = processors{}

type processors struct{}

func (processors) Max() int { return procs.Max() }
func (processors) Widen()   { procs.Widen() }

// Lookup is a run whose sessions read closures for a few names (conflicts,
// check): through the library index kept in the cache directory, and on
// one processor until a read is more than lookups (a library the index
// cannot answer, no index, inputs of many megabytes read in full), since
// a second processor made lookups dearer. Its sessions share its index
// (Options.Index).
type Lookup struct {
	index  *elfobj.Index
	opened bool
}

// StartLookup narrows the run to one processor until it reads, when there
// is an index to answer its lookups, and puts the heap it allocates in on
// huge pages (gcdefer.HugeHeap), once a process. Without an index (a first
// run, caching off) every library is read, on every processor: they are
// given from the start, so that locating Python's torch and listing it go
// on beside the flags and the wheel, not after them. A command calls it
// before it parses its flags (and so before BeginRun): the one collection
// that takes then sweeps little (a third less than after the flags and the
// configuration).
func StartLookup() *Lookup {
	if p := cachedir.File("symindex"); p != "" && exists(p) {
		procs.Narrow()
	}
	hugeOnce.Do(gcdefer.HugeHeap)
	return &Lookup{}
}

var hugeOnce sync.Once

// Index is the library index kept in the cache directory, opened at the
// first call (it is read while the session reads what comes before the
// closure): nil when caching is off (a run that keeps nothing learns
// nothing).
func (l *Lookup) Index() *elfobj.Index {
	if l == nil {
		return nil
	}
	if !l.opened {
		l.opened = true
		if p := cachedir.File("symindex"); p != "" {
			l.index = elfobj.OpenIndex(p)
		}
	}
	return l.index
}

// Save writes back what the index learnt, after the report: it serves the
// next run, not this one.
func (l *Lookup) Save() {
	if l != nil {
		l.index.Save()
	}
}

// End gives the processors back.
func (l *Lookup) End() { procs.Widen() }

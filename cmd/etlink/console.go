package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/internal/budget"
)

// progressAfter is how long a run goes before it shows progress (a quick
// run shows none); progressEvery how often the line is redrawn.
var (
	progressAfter = time.Second
	progressEvery = 250 * time.Millisecond
)

// console is a run's stderr: one line per cause (a note said again is not
// repeated; inputs that fail for one reason past shownPerCause are counted),
// and on a terminal a progress line drawn over itself, cleared before
// anything else is written.
type console struct {
	mu      sync.Mutex
	w       io.Writer
	verbose bool // every failing input on a line of its own
	hasV    bool // the command has -v (the count's line points to it)
	notes   map[string]bool
	repeats int               // notes said again
	causes  map[string]*cause // input errors by reason
	order   []string
	flushed bool

	status string // the progress line on screen ("": none)
	width  int    // the terminal's columns
	stop   chan struct{}
	done   chan struct{}
	budget atomic.Pointer[budget.Budget]
}

// shownPerCause is how many inputs that fail for one reason are named
// one by one before the rest are counted.
const shownPerCause = 3

// cause is the inputs that could not be read for one reason.
type cause struct {
	shown int
	more  int    // past shownPerCause
	first string // the first of those, named in the count's line
}

func newConsole(w io.Writer) *console {
	return &console{w: w, notes: map[string]bool{}, causes: map[string]*cause{}}
}

// println writes one line, taking the progress line off the screen first.
func (c *console) println(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearStatus()
	fmt.Fprintln(c.w, line)
}

// note writes a note unless it was said already in this run.
func (c *console) note(line string) {
	c.mu.Lock()
	seen := c.notes[line]
	c.notes[line] = true
	if seen {
		c.repeats++
	}
	c.mu.Unlock()
	if !seen {
		c.println(line)
	}
}

// inputError writes an input's error; past shownPerCause, inputs that
// fail for the same reason are counted (240 unreadable headers of one
// package are one line), unless verbose.
func (c *console) inputError(line string, err error) {
	in := analyze.InputFailed(err)
	c.mu.Lock()
	counted := false
	if in.Error != "" && in.Error != in.Path && !c.verbose && !c.flushed {
		k := c.causes[in.Error]
		if k == nil {
			k = &cause{}
			c.causes[in.Error] = k
			c.order = append(c.order, in.Error)
		}
		if counted = k.shown == shownPerCause; counted {
			if k.more == 0 {
				k.first = in.Path
			}
			k.more++
		} else {
			k.shown++
		}
	}
	c.mu.Unlock()
	if !counted {
		c.println(line)
	}
}

// flush ends the progress line and writes the counts of what was not
// repeated: before the first line of output, and at the end of the run.
func (c *console) flush() {
	c.stopProgress()
	c.mu.Lock()
	if c.flushed {
		c.mu.Unlock()
		return
	}
	c.flushed = true
	var lines []string
	for _, reason := range c.order {
		if k := c.causes[reason]; k.more > 0 {
			hint := ""
			if c.hasV {
				hint = "; -v lists them"
			}
			lines = append(lines, fmt.Sprintf("etlink: %d more inputs could not be read: %s (first: %s%s)",
				k.more, reason, k.first, hint))
		}
	}
	if c.repeats > 0 {
		lines = append(lines, fmt.Sprintf("etlink: %d notes said again were not repeated", c.repeats))
	}
	c.mu.Unlock()
	for _, l := range lines {
		c.println(l)
	}
}

// startProgress draws, on a terminal, a line of what the run has read so
// far once it has run progressAfter, until stopProgress.
func (c *console) startProgress(name string, f *os.File) {
	if c.stop != nil || !wantProgress(f) {
		return
	}
	c.width = termWidth(f)
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(c.done)
		wait := time.NewTimer(progressAfter)
		defer wait.Stop()
		select {
		case <-c.stop:
			return
		case <-wait.C:
		}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			c.draw(progressLine(name, c.budget.Load(), time.Since(start), c.width))
			select {
			case <-c.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// stopProgress ends the progress line and takes it off the screen.
func (c *console) stopProgress() {
	if c.stop == nil {
		return
	}
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
	c.mu.Lock()
	c.clearStatus()
	c.mu.Unlock()
}

func (c *console) draw(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprint(c.w, "\r"+line+"\x1b[K")
	c.status = line
}

// clearStatus takes the progress line off the screen; c.mu is held.
func (c *console) clearStatus() {
	if c.status != "" {
		fmt.Fprint(c.w, "\r\x1b[K")
		c.status = ""
	}
}

// progressLine is the progress of a run: for how long, and what it read
// (an index that answers reads nothing), shorter than the terminal (a line
// that wraps is not redrawn in place).
func progressLine(name string, b *budget.Budget, took time.Duration, width int) string {
	line := fmt.Sprintf("etlink %s: %d s", name, int(took.Seconds()))
	if n := b.Used(budget.Objects); n > 0 {
		line += fmt.Sprintf(", %d objects (%.0f MiB) read", n, float64(b.Used(budget.Read))/(1<<20))
	}
	if width > 1 && len(line) >= width {
		line = line[:width-1]
	}
	return line
}

// wantProgress says whether progress may be drawn on f: a terminal, not
// under CI (whose logs keep every redraw).
func wantProgress(f *os.File) bool {
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		return false
	}
	return f != nil && isTerminal(f)
}

// gate is the run's stdout: the first line written to it ends the
// progress line and the counts on stderr, so they come before the output.
type gate struct {
	w    io.Writer
	c    *console
	once sync.Once
}

func (g *gate) Write(p []byte) (int, error) {
	g.once.Do(g.c.flush)
	return g.w.Write(p)
}

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/etlink/etlink/internal/budget"
)

// screen is what a terminal shows after text: "\r" returns to the start
// of the line, ESC [K erases to its end.
func screen(text string) []string {
	lines := []string{""}
	col := 0
	for i := 0; i < len(text); i++ {
		cur := &lines[len(lines)-1]
		switch {
		case text[i] == '\n':
			lines = append(lines, "")
			col = 0
		case text[i] == '\r':
			col = 0
		case strings.HasPrefix(text[i:], "\x1b[K"):
			*cur = (*cur)[:col]
			i += 2
		default:
			if col < len(*cur) {
				*cur = (*cur)[:col] + text[i:i+1] + (*cur)[col+1:]
			} else {
				*cur += text[i : i+1]
			}
			col++
		}
	}
	return lines
}

// TestProgressOnTerminal: on a terminal, a run shows what it has read,
// drawn over itself, and takes it off before anything else is written;
// what the terminal shows in the end is the notes alone.
func TestProgressOnTerminal(t *testing.T) {
	t.Setenv("CI", "")
	defer func(after, every time.Duration) { progressAfter, progressEvery = after, every }(progressAfter, progressEvery)
	progressAfter, progressEvery = 0, 5*time.Millisecond
	p := openPTY(t, 60)
	c := newConsole(p.tty)
	b := budget.New(budget.Defaults)
	b.Charge(budget.Objects, 12, "x")
	c.budget.Store(b)
	c.startProgress("check", p.tty)
	for range 200 {
		c.mu.Lock()
		drawn := c.status != ""
		c.mu.Unlock()
		if drawn {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.note("etlink: a note")
	time.Sleep(20 * time.Millisecond) // redrawn under the note
	c.flush()
	out := p.text()
	if !strings.Contains(out, "\retlink check: 0 s, 12 objects (0 MiB) read\x1b[K") {
		t.Errorf("no progress line drawn: %q", out)
	}
	if got := strings.Join(screen(out), "\n"); got != "etlink: a note\n" {
		t.Errorf("the terminal shows %q, want the note alone (written %q)", got, out)
	}
}

// TestNoProgressInPipeOrCI: a run shows no progress on stderr that is not
// a terminal, nor under CI.
func TestNoProgressInPipeOrCI(t *testing.T) {
	defer func(after time.Duration) { progressAfter = after }(progressAfter)
	progressAfter = 0
	args := []string{"conflicts", demoWheel, "--with", demoTorch}
	t.Setenv("CI", "")
	_, _, errs := runCLI(t, args...)
	if strings.ContainsAny(errs, "\r\x1b") {
		t.Errorf("progress in a pipe: %q", errs)
	}
	t.Setenv("CI", "true")
	p := openPTY(t, 80)
	run(args, &bytes.Buffer{}, p.tty)
	if out := p.text(); strings.ContainsAny(out, "\r\x1b") || !strings.Contains(out, "etlink: ") {
		t.Errorf("under CI, stderr on a terminal holds progress, or no notes: %q", out)
	}
}

// TestColourOnTerminalOnly: the text report colours its severities on a
// terminal, as GCC does; not with NO_COLOR, not in a pipe, never JSON.
func TestColourOnTerminalOnly(t *testing.T) {
	args := []string{"conflicts", demoWheel, "--with", demoTorch, "-q"}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	if _, out, _ := runOnTTY(t, 100, args...); !strings.Contains(out, "\x1b[1;35mwarning\x1b[0m ") {
		t.Errorf("no coloured warning on a terminal:\n%q", out)
	}
	for _, tc := range []struct {
		name, noColor string
		extra         []string
		tty           bool
	}{
		{"NO_COLOR", "1", nil, true},
		{"JSON", "", []string{"--format", "json"}, true},
		{"SARIF", "", []string{"--format", "sarif"}, true},
		{"github", "", []string{"--format", "github"}, true},
		{"a pipe", "", nil, false},
	} {
		t.Setenv("NO_COLOR", tc.noColor)
		var out string
		if tc.tty {
			_, out, _ = runOnTTY(t, 100, append(args, tc.extra...)...)
		} else {
			_, out, _ = runCLI(t, append(args, tc.extra...)...)
		}
		if strings.Contains(out, "\x1b") || out == "" {
			t.Errorf("%s: %q", tc.name, out)
		}
	}
}

// TestStderrOncePerCause: a note said again is not repeated; inputs that
// fail for one reason are named up to shownPerCause, the rest counted in
// one line, before the output; -v names them all.
func TestStderrOncePerCause(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var errs bytes.Buffer
		c := newConsole(&errs)
		c.verbose, c.hasV = verbose, true
		var out bytes.Buffer
		g := &gate{w: &out, c: c}
		for range 3 {
			c.note("etlink: interpreter /usr/bin/python3")
		}
		for i := range 240 {
			p := fmt.Sprintf("/site/torch/include/h%03d", i)
			c.inputError("etlink: "+p+": permission denied", &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission})
		}
		c.inputError("etlink: /x.so: bad", &fs.PathError{Op: "open", Path: "/x.so", Err: errors.New("bad")})
		g.Write([]byte("report\n"))
		c.flush()
		lines := strings.Split(strings.TrimSuffix(errs.String(), "\n"), "\n")
		want := 1 + shownPerCause + 1 + 2
		if verbose {
			want = 1 + 240 + 1 + 1
		}
		if len(lines) != want || lines[0] != "etlink: interpreter /usr/bin/python3" || !strings.Contains(errs.String(), "/x.so: bad") ||
			!strings.Contains(errs.String(), "etlink: 2 notes said again were not repeated") {
			t.Errorf("verbose %v: %d lines, want %d:\n%s", verbose, len(lines), want, errs.String())
		}
		if !verbose && !strings.Contains(errs.String(), "etlink: 237 more inputs could not be read: permission denied (first: /site/torch/include/h003; -v lists them)") {
			t.Errorf("no count for the repeated cause:\n%s", errs.String())
		}
	}
}

// Package budget bounds the total work of one run, whatever its inputs hold.
//
// Each reader bounds the items it reads (an entry's ratio, a name's length);
// a budget bounds their sum over the run, so that a tree of honest-looking
// items (2,000 names each just inside the demangler's bound, a ninja file
// that includes another twice 40 levels deep, many wheels each just under
// their limit) cannot cost minutes or gigabytes. Work is charged where
// data enters, on the inputs' logical sizes (a file's size, an entry's
// declared size), never on what a cache saved: whether a budget trips
// depends on the inputs alone.
package budget

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
)

// Kind is one thing a run spends.
type Kind int

const (
	// Read is bytes of input files opened for reading: ELF files and
	// archives (their whole size, as the cache could answer for any
	// part of them), linker maps, build files, wheels.
	Read Kind = iota
	// Inflated is bytes decompressed from wheel entries.
	Inflated
	// Objects is ELF images opened: files, archive members, wheel
	// entries.
	Objects
	// Demangled is the demangler's work: a name costs its length in
	// bytes times the depth of its nesting (the upstream demangler's
	// time grows with their product).
	Demangled
	// Included is build files read: ninja includes and subninjas,
	// response files, File API replies.
	Included
	nKinds
)

// Limits are the most of each Kind a run may spend; 0 is no limit.
type Limits [nKinds]int64

// Defaults are sized from the largest honest runs measured, with room to
// spare (docs/budgets.md has the table): check on Debian's whole
// dist-packages tree (torch among 196 packages) reads 1.46 GiB in 1,573
// objects and demangles 1.6e8 units (about 0.35 s of the demangler). The
// demangling limit is the tightest: it also bounds a hostile run, which
// spends it at up to 3.5 ns a unit (1.9 s).
var Defaults = Limits{
	Read:      64 << 30,
	Inflated:  32 << 30,
	Objects:   200_000,
	Demangled: 1 << 29,
	Included:  100_000,
}

// names are the Kinds as --budget and etlink.toml spell them.
var names = [nKinds]string{"read", "inflate", "objects", "demangle", "include"}

// bytesKind says which Kinds are counted in bytes.
var bytesKind = [nKinds]bool{Read: true, Inflated: true}

func (k Kind) String() string { return names[k] }

// Format prints n units of k for people: bytes in binary units.
func (k Kind) Format(n int64) string {
	if !bytesKind[k] {
		return strconv.FormatInt(n, 10)
	}
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}

// Budget is what one run may still spend. A nil *Budget has no limits.
// It is safe for concurrent use.
type Budget struct {
	lim  Limits
	used [nKinds]atomic.Int64
	// tripped holds the first error of each Kind: once spent, every
	// later charge of that Kind fails with it.
	tripped [nKinds]atomic.Pointer[Exhausted]
}

// New returns a budget of lim.
func New(lim Limits) *Budget { return &Budget{lim: lim} }

// Exhausted is the error of a charge past a limit. It names the input
// whose charge went past it, which is not read (others read before it
// still are).
type Exhausted struct {
	Kind  Kind
	Limit int64
	Input string
}

func (e *Exhausted) Error() string {
	return fmt.Sprintf("the run's %s budget of %s is spent (raise it with --budget %s=N or [budget] %s in etlink.toml; docs/budgets.md)",
		e.Kind, e.Kind.Format(e.Limit), e.Kind, e.Kind)
}

// Charge spends n units of k on input. Past the limit it returns an
// *Exhausted naming input (the run's first such input for that Kind),
// and the units are not spent.
func (b *Budget) Charge(k Kind, n int64, input string) error {
	if b == nil || b.lim[k] <= 0 {
		return nil
	}
	if e := b.tripped[k].Load(); e != nil {
		return &Exhausted{Kind: k, Limit: e.Limit, Input: input}
	}
	if b.used[k].Add(n) > b.lim[k] {
		b.used[k].Add(-n)
		e := &Exhausted{Kind: k, Limit: b.lim[k], Input: input}
		b.tripped[k].CompareAndSwap(nil, e)
		return e
	}
	return nil
}

// Spent reports whether a charge of k has failed in this run.
func (b *Budget) Spent(k Kind) bool { return b != nil && b.tripped[k].Load() != nil }

// Limit is the run's limit of k (0: none).
func (b *Budget) Limit(k Kind) int64 {
	if b == nil {
		return 0
	}
	return b.lim[k]
}

// Used is how much of k the run has spent.
func (b *Budget) Used(k Kind) int64 {
	if b == nil {
		return 0
	}
	return b.used[k].Load()
}

// Report says how much of each limit the run spent, for -v and for
// sizing the defaults.
func (b *Budget) Report() string {
	var parts []string
	for k := range nKinds {
		used := b.Used(k)
		if b.Limit(k) <= 0 {
			parts = append(parts, fmt.Sprintf("%s %s (no limit)", k, k.approx(used)))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s of %s (%.1f%%)", k, k.approx(used), k.Format(b.Limit(k)),
			100*float64(used)/float64(b.Limit(k))))
	}
	return strings.Join(parts, ", ")
}

// approx prints n units of k rounded, bytes in MiB.
func (k Kind) approx(n int64) string {
	if bytesKind[k] {
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	}
	return strconv.FormatInt(n, 10)
}

// Set parses "kind=N[,kind=N...]" (N a count, or bytes with a KiB, MiB,
// GiB or TiB suffix; 0 for no limit) into lim.
func (lim *Limits) Set(s string) error {
	for _, kv := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("budget %q: want kind=N (kinds: %s)", kv, strings.Join(names[:], ", "))
		}
		if err := lim.SetOne(name, val); err != nil {
			return err
		}
	}
	return nil
}

// SetOne sets the limit of the Kind named name to val.
func (lim *Limits) SetOne(name, val string) error {
	k := -1
	for i, n := range names {
		if n == name {
			k = i
		}
	}
	if k < 0 {
		return fmt.Errorf("unknown budget %q (kinds: %s)", name, strings.Join(names[:], ", "))
	}
	n, err := parseAmount(val, bytesKind[k])
	if err != nil {
		return fmt.Errorf("budget %s: %w", name, err)
	}
	lim[k] = n
	return nil
}

var units = []struct {
	suffix string
	shift  uint
}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}}

func parseAmount(s string, bytes bool) (int64, error) {
	s = strings.TrimSpace(s)
	shift := uint(0)
	if bytes {
		for _, u := range units {
			if rest, ok := strings.CutSuffix(s, u.suffix); ok {
				s, shift = rest, u.shift
				break
			}
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("want a non-negative integer" + map[bool]string{true: " (bytes, or with KiB, MiB, GiB, TiB)"}[bytes])
	}
	if n > (1<<62)>>shift {
		return 0, errors.New("too large")
	}
	return n << shift, nil
}

// String prints lim as Set reads it.
func (lim Limits) String() string {
	var parts []string
	for k := range nKinds {
		parts = append(parts, names[k]+"="+k.Format(lim[k]))
	}
	return strings.Join(parts, ",")
}

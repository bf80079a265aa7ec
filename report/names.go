package report

import (
	"slices"
	"strings"

	"github.com/etlink/etlink/finding"
)

// nameWidth is the most columns a symbol's name takes in a group's line
// (-v shows names whole): a C++ template instance runs to thousands.
const nameWidth = 60

// apartContext is how many characters past the first that tells two names
// apart an elision keeps, so that the difference reads as a word.
const apartContext = 12

// reportNames is shortNames for the names of a report's findings.
func reportNames(fs []finding.Finding) map[string]string {
	all := make([]string, len(fs))
	for i := range fs {
		all[i] = findingName(&fs[i])
	}
	return shortNames(all, nameWidth)
}

// shortNames maps each of names wider than n columns to how the text
// shows it: elided in the middle where that leaves it unlike every other
// name, else with the part that tells it from the names it would read like
// (38 typeinfo names of one template elided alike were one name to a
// reader), else whole. Two distinct names never show alike.
func shortNames(names []string, n int) map[string]string {
	short := map[string]string{}
	alike := map[string][]string{}
	for _, s := range names {
		if _, done := short[s]; done || displayWidth(s) <= n {
			continue
		}
		e := elide(s, n)
		short[s] = e
		alike[e] = append(alike[e], s)
	}
	for _, group := range alike {
		if len(group) > 1 {
			apart(group, short)
		}
	}
	// A name elided apart from its group may meet another group's: then
	// both read whole, which always differ.
	for changed := true; changed; {
		changed = false
		seen := map[string]string{}
		for _, s := range names {
			shown := s
			if e, ok := short[s]; ok {
				shown = e
			}
			if other, ok := seen[shown]; ok && other != s {
				delete(short, s)
				delete(short, other)
				changed = true
				break
			}
			seen[shown] = s
		}
	}
	return short
}

// apart elides each name of group, names that elide alike, keeping the
// first character that tells it from the others (or the last, whichever
// leaves it shorter) and a few past it, and stores it in short.
func apart(group []string, short map[string]string) {
	rs := make([][]rune, len(group))
	for i, s := range group {
		rs[i] = []rune(s)
	}
	prefix := sharedRun(rs, false)
	suffix := sharedRun(rs, true)
	for i, s := range group {
		r := rs[i]
		head, tail, _ := strings.Cut(short[s], "…")
		h, t := len([]rune(head)), len([]rune(tail))
		byHead := [2]int{max(h, prefix[i]+1+apartContext), t}
		byTail := [2]int{h, max(t, suffix[i]+1+apartContext)}
		keep := byHead
		if byTail[0]+byTail[1] < byHead[0]+byHead[1] {
			keep = byTail
		}
		if keep[0]+keep[1] >= len(r) {
			delete(short, s) // shown whole
			continue
		}
		short[s] = string(r[:keep[0]]) + "…" + string(r[len(r)-keep[1]:])
	}
}

// sharedRun is, for each name, the longest start (or end, with fromEnd)
// it shares with another of the names, in characters. Sorted, a name's
// longest shared start is with a neighbour.
func sharedRun(rs [][]rune, fromEnd bool) []int {
	keys := make([][]rune, len(rs))
	order := make([]int, len(rs))
	for i, r := range rs {
		keys[i] = r
		if fromEnd {
			keys[i] = slices.Clone(r)
			slices.Reverse(keys[i])
		}
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(keys[a], keys[b]) })
	out := make([]int, len(rs))
	for k := 1; k < len(order); k++ {
		a, b := order[k-1], order[k]
		n := commonStart(keys[a], keys[b])
		out[a], out[b] = max(out[a], n), max(out[b], n)
	}
	return out
}

func commonStart(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

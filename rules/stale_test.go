package rules

import (
	"path/filepath"
	"testing"

	"github.com/etlink/etlink/analyze"
	"github.com/etlink/etlink/finding"
	"github.com/etlink/etlink/linkline"
)

// TestMarkUnverified: a line a File API reply gave is unverified when the
// reply is stale or the line is past the file's end; a line read from the
// file itself (lint's) is left alone, and so is a reply's line that holds.
func TestMarkUnverified(t *testing.T) {
	dir := t.TempDir()
	cml := filepath.Join(dir, "CMakeLists.txt")
	writeFile(t, cml, "project(x)\nadd_library(a SHARED a.cpp)\ntarget_link_libraries(a PRIVATE b)") // 3 lines, no final newline
	input := func(line int) linkline.Input {
		return linkline.Input{Source: linkline.Source{CMakeFile: cml, CMakeLine: line}}
	}
	fresh := &analyze.LinkFacts{Link: &linkline.Link{Inputs: []linkline.Input{input(3), input(26)}}}
	stale := &analyze.LinkFacts{Link: &linkline.Link{Inputs: []linkline.Input{input(2)}}, Stale: &analyze.StaleReply{}}
	at := func(line int) finding.Finding {
		return finding.Finding{Location: &finding.Location{File: cml, Line: line}}
	}
	fs := []finding.Finding{at(3), at(26), at(2), at(1)}
	markUnverified(fs, []*analyze.LinkFacts{fresh, stale})
	for i, want := range []bool{false, true, true, false} {
		if got := fs[i].Location.Unverified; got != want {
			t.Errorf("line %d: unverified %v, want %v", fs[i].Location.Line, got, want)
		}
	}
}

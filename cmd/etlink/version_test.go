package main

import (
	"runtime/debug"
	"testing"
)

// TestStamped: -X stamps win; what they leave empty comes from the go
// command's record (go install's module version, a checkout's revision,
// -dirty when modified, and commit time); what neither says is dev or
// unknown.
func TestStamped(t *testing.T) {
	vcs := &debug.BuildInfo{
		Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-12-05T10:16:30Z"}, {Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name    string
		bi      *debug.BuildInfo
		v, c, d string
		want    [3]string
	}{
		{"stamped", vcs, "0.1.0", "fff", "2020-01-01T00:00:00Z", [3]string{"0.1.0", "fff", "2020-01-01T00:00:00Z"}},
		{"go build in a checkout", vcs, "", "", "", [3]string{"1.2.3", "abc123-dirty", "2026-12-05T10:16:30Z"}},
		{"-buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "", "", "", [3]string{"dev", "unknown", "unknown"}},
		{"no build information", nil, "", "", "", [3]string{"dev", "unknown", "unknown"}},
	} {
		v, c, d := stamped(tc.bi, tc.v, tc.c, tc.d)
		if got := [3]string{v, c, d}; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

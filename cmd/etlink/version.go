package main

import (
	"cmp"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
)

// version, commit and date name this build. packaging/build-wheels.sh
// stamps all three with -ldflags "-X main.version=V -X main.commit=C
// -X main.date=D" (it builds with -buildvcs=false, so nothing else would
// say them); a plain go build or go install leaves them empty and
// thisBuild fills them from what the go command recorded.
var version, commit, date string

// buildName is what names this build: the stamps, completed.
type buildName struct{ version, commit, date string }

// thisBuild is read when first asked (the version command, a JSON or
// SARIF report): parsing the build information at start-up cost every run.
var thisBuild = sync.OnceValue(func() buildName {
	bi, _ := debug.ReadBuildInfo()
	v, c, d := stamped(bi, version, commit, date)
	return buildName{v, c, d}
})

// stamped completes the -X stamps v, c and d from bi (nil when the binary
// carries no build information): the module version go install or a
// go build in a checkout records, the checkout's revision (-dirty when
// modified) and commit time. What neither says is "dev" or "unknown".
func stamped(bi *debug.BuildInfo, v, c, d string) (string, string, string) {
	if bi != nil {
		if v == "" && bi.Main.Version != "(devel)" {
			v = strings.TrimPrefix(bi.Main.Version, "v")
		}
		vcs := map[string]string{}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
		if c == "" && vcs["vcs.revision"] != "" {
			c = vcs["vcs.revision"]
			if vcs["vcs.modified"] == "true" {
				c += "-dirty"
			}
		}
		d = cmp.Or(d, vcs["vcs.time"])
	}
	return cmp.Or(v, "dev"), cmp.Or(c, "unknown"), cmp.Or(d, "unknown")
}

var versionCmd = &command{
	name:    "version",
	summary: "print etlink's version",
	help:    "Prints the version of this etlink binary, the commit it was built from and that commit's date.",
	run: func(c *command, a *app, args []string) int {
		if code, ok := c.parse(a, c.flags(a), args); !ok {
			return code
		}
		b := thisBuild()
		fmt.Fprintf(a.stdout, "etlink %s (commit %s, date %s)\n", b.version, b.commit, b.date)
		return exitOK
	},
}

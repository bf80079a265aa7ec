//go:build race

package elfobj

const raceEnabled = true

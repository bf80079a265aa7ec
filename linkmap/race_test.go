//go:build race

package linkmap

const raceEnabled = true

//go:build !race

package linkmap

// raceEnabled says the race detector is on: the 2 GiB map test skips.
const raceEnabled = false

//go:build !race

package elfobj

// raceEnabled says the race detector is on: it makes inflation twenty
// times slower, so the tests of large wheel entries shrink or skip.
const raceEnabled = false

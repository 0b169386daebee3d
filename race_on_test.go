//go:build race

package selfheal_test

// raceEnabled skips allocation counts: the race detector allocates, and
// sync.Pool drops items at random under it.
const raceEnabled = true

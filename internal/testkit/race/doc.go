// Package race tells tests whether the race detector is on, so that tests
// counting allocations can skip: the detector allocates on its own, and
// sync.Pool drops items at random under it.
package race

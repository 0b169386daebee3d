//go:build !race

package selfheal_test

const raceEnabled = false

//go:build !race

package formatter

const raceEnabled = false

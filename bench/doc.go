// Package bench holds the project's benchmarks, each run side by side with
// the baseline a user has today on the same invalid input, so that results
// read as ratios from one run on one machine:
//
//	go test -run '^$' -bench . -benchmem ./bench/
//
// It has no code of its own; see the _test files and README.md for figures.
package bench

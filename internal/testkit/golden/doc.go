// Package golden compares test output with files under a package's
// testdata/ directory, so that every package checks and rewrites its golden
// files the same way: go test ./PKG -update rewrites them.
package golden

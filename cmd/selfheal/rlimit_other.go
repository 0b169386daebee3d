//go:build !unix

package main

// openFileLimit is 0 where the limit of open files is not read: the
// proxy then bounds no connections.
func openFileLimit() int { return 0 }

//go:build !unix

package main

import (
	"io"
	"os"
)

// polledStdin is os.Stdin where its descriptor cannot be made
// non-blocking.
func polledStdin() io.Reader { return os.Stdin }

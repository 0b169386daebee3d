// Package syncbuf is a bytes.Buffer that goroutines may write while a
// test reads it: a log, or a process's output copied by exec.
package syncbuf

// Package mutate changes everything a value reaches, for the tests that
// check that the module's public results own their memory: a test gets a
// result, has All change every string, number and element in it, and
// checks that the next call answers as before.
package mutate

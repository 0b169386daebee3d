// Package readme holds the test that keeps the README's Go snippets
// compiling: every ```go block of README.md at the module root is built, as a
// user outside this module would build it, by go vet in a temporary module
// that replaces github.com/selfheal/selfheal with this checkout. It has no
// code of its own.
package readme

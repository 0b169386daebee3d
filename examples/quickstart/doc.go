// Command quickstart shows what selfheal sends a model: a tool call's bad
// arguments decoded into a Go struct, answered with one exact line per
// problem, and the two envelopes of the wire contract.
package main

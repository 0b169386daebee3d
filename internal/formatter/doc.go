// Package formatter words issues as the lines of a validation_error: one
// line per issue, "<what is wrong>. You sent: <value>. Expected <what>.",
// in the catalog's language, and writes them through the envelope package.
//
// It is the one place that renders values for a model: strings in single
// quotes, numbers and literals as they are, arrays and objects as a short
// preview with their size, every control character escaped so a line stays
// one line, cut rune-safely (60 characters by default) with the full length
// said, and values of sensitive fields (password, token, api key …) shown
// only as their type and size. It picks the template for each issue (by
// code, then origin, format, type hint), suggests the closest key or value
// for near misses, reports a union by its closest alternative, sorts lines
// by path, drops duplicates, and keeps to an issue and byte budget with a
// final note on what was left out.
//
// Rendering into a caller's buffer allocates nothing once warm.
package formatter

// Package suggest finds the name a model most likely meant when it sent one
// that does not exist: the formatter uses it for "did you mean" on unknown
// keys and enum values, and the JSON Schema adapters to find near misses of
// declared properties in open schemas. One implementation, so that what an
// adapter calls a near miss is what the formatter would suggest.
//
// Nothing here allocates.
package suggest

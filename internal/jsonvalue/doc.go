// Package jsonvalue decodes one JSON value the way every part of the module
// reads arguments and schemas: numbers kept exactly as written
// (json.Number), nothing but white space allowed after the value, and no
// nesting deeper than MaxDepth.
//
// Most documents go through encoding/json. A document of plain strings
// (no escape) is parsed by hand instead, its strings and numbers slices of
// one copy of the bytes: that is every tools/call the proxy forwards, and
// the proxy's budget for a valid call (no more than 0.15 ms beside the
// server reached directly, in 63 allocations on stdio) is what needs it;
// encoding/json's map of interfaces costs a string allocation per key and
// value there.
package jsonvalue

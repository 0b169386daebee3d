//go:build !goexperiment.jsonv2

package jsondecode

// encoding/json's own decoder (the default build) writes
// UnmarshalTypeError.Field from struct field names only: no array index or
// map key, and the Go name of an embedded struct before its promoted field.
// Its SyntaxError.Offset counts the offending byte as read.
const (
	fieldHasIndexes      = false
	syntaxOffsetPastByte = true
)

//go:build goexperiment.jsonv2

package jsondecode

// With GOEXPERIMENT=jsonv2, encoding/json runs on encoding/json/v2, which
// writes UnmarshalTypeError.Field from a JSON Pointer (array indexes and map
// keys included, embedded Go names not) and points SyntaxError.Offset at the
// offending byte itself.
const (
	fieldHasIndexes      = true
	syntaxOffsetPastByte = false
)

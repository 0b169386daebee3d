// Package xmlenc is the module's one XML escaper and the streaming writer of
// a <validation_error>'s lines. Package envelope renders every envelope
// through it; the formatter streams a validation_error into its own buffer
// with it, without building an envelope.ValidationError.
//
// It is internal so that these streaming primitives, which only the
// formatter needs, are not part of the public API.
// The escaping rules are documented on envelope.ToolError.String.
package xmlenc

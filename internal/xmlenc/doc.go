// Package xmlenc is the module's one XML escaper and the streaming writer of
// a <validation_error>'s lines. Every byte of user data the project emits
// goes through it, so the well-formedness guarantee (fuzz-tested in fuzz/)
// rests on this package alone; the formatter streams with it without
// building an envelope.ValidationError. The escaping rules are documented on
// envelope.ToolError.String.
package xmlenc

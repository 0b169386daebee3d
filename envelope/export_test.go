package envelope

// Hooks for the external tests: the appenders behind the String methods,
// whose allocation-free rendering the tests and benchmarks check, and the
// unexported values the tests compare against.
func AppendToolError(e ToolError, dst []byte) []byte        { return e.appendXML(dst) }
func AppendBuilder(b *Builder, dst []byte) []byte           { return b.appendXML(dst) }
func AppendValidation(v ValidationError, dst []byte) []byte { return v.appendXML(dst) }

const MaxRetryAfter = maxRetryAfter

var ErrNotEnvelope = errNotEnvelope

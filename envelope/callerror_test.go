package envelope_test

import (
	"testing"

	"github.com/selfheal/selfheal/envelope"
)

func TestCallErrorError(t *testing.T) {
	fields := func(names ...string) []envelope.Field {
		var fs []envelope.Field
		for _, n := range names {
			fs = append(fs, envelope.Field{Name: n, Text: "x."})
		}
		return fs
	}
	for _, c := range []struct {
		ce   envelope.CallError
		want string
	}{
		{envelope.CallError{Code: envelope.NotFound, Message: "No invoice with that ID"}, "NOT_FOUND: No invoice with that ID"},
		{envelope.CallError{Code: envelope.NotFound}, "NOT_FOUND"},
		{envelope.CallError{Message: "boom"}, "INTERNAL_ERROR: boom"},
		{envelope.CallError{Code: "CUSTOM", Message: "a\r\nb\rc"}, "CUSTOM: a b c"},
		{envelope.CallError{Code: envelope.ValidationErrorCode, Fields: fields("(root)")}, "VALIDATION_ERROR: 1 field: (root)"},
		{envelope.CallError{Code: envelope.ValidationErrorCode}, "VALIDATION_ERROR: 0 fields"},
		{envelope.CallError{Code: envelope.ValidationErrorCode, Fields: fields("a", "b", "c", "d", "e", "f", "g")}, "VALIDATION_ERROR: 7 fields: a, b, c, d, e, …"},
		{envelope.CallError{Code: envelope.ValidationErrorCode, Fields: fields("labels[\"a\nb\"]")}, `VALIDATION_ERROR: 1 field: labels["a b"]`},
		// a tool_error whose code is VALIDATION_ERROR keeps its message
		{envelope.CallError{Code: envelope.ValidationErrorCode, Message: "bad"}, "VALIDATION_ERROR: bad"},
	} {
		if got := c.ce.Error(); got != c.want {
			t.Errorf("%#v.Error() = %q, want %q", c.ce, got, c.want)
		}
	}
}

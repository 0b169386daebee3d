package envelope_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// callError renders v, parses it back and builds the CallError, as a client
// does with a result's text.
func callError(t *testing.T, text string) *envelope.CallError {
	t.Helper()
	doc, err := envelope.Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, text)
	}
	return envelope.NewCallError(doc, text)
}

func TestCallErrorToolError(t *testing.T) {
	text := envelope.Error(envelope.RateLimited, "Too many calls\nslow down").
		Suggest("Wait, then call again").Actions("a.b", "c.d").
		Detail("limit", "5/s").Detail("tool", "billing.get_invoice").
		RetryAfter(1500 * time.Millisecond).Critical().String()
	ce := callError(t, text)
	want := &envelope.CallError{
		Code: envelope.RateLimited, Severity: envelope.SeverityCritical,
		Message: "Too many calls\nslow down", Recovery: "Wait, then call again",
		Actions:    []string{"a.b", "c.d"},
		Details:    []envelope.Detail{{Key: "limit", Value: "5/s"}, {Key: "tool", Value: "billing.get_invoice"}},
		RetryAfter: 2 * time.Second, // whole seconds on the wire, rounded up
		Text:       text,
	}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("NewCallError =\n%#v\nwant\n%#v", ce, want)
	}
	if got, want := ce.Error(), "RATE_LIMITED: Too many calls slow down"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestCallErrorValidation(t *testing.T) {
	v := envelope.ValidationError{
		Action: "users.create",
		Fields: []envelope.Field{
			{Name: "age", Text: "Too small. You sent: 9. Expected at least 13."},
			{Name: "items[0].name", Text: "Required field is missing. You sent: nothing. Expected a string."},
		},
		More:     "…and 1 more issue not shown.",
		Contract: &envelope.Contract{Changes: []envelope.ContractChange{{Severity: "BREAKING", Field: "age", Description: "Minimum raised", Before: "0", After: "13"}}, More: 2},
	}
	text := v.String()
	ce := callError(t, text)
	want := &envelope.CallError{
		Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError,
		Recovery: envelope.DefaultRecovery,
		Action:   "users.create", Fields: v.Fields, More: v.More, Contract: v.Contract,
		Text: text,
	}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("NewCallError =\n%#v\nwant\n%#v", ce, want)
	}
	if got, want := ce.Error(), "VALIDATION_ERROR: 2 fields: age, items[0].name"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

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

func TestCallErrorNone(t *testing.T) {
	if ce := envelope.NewCallError(envelope.Document{}, "text"); ce != nil {
		t.Errorf("NewCallError(empty) = %#v, want nil", ce)
	}
}

func TestCallErrorAs(t *testing.T) {
	doc, err := envelope.Parse(envelope.Error(envelope.NotFound, "gone").String())
	if err != nil {
		t.Fatal(err)
	}
	err = fmt.Errorf("calling billing.get_invoice: %w", envelope.NewCallError(doc, ""))
	var ce *envelope.CallError
	if !errors.As(err, &ce) || ce.Code != envelope.NotFound {
		t.Fatalf("errors.As(%v) = %v, %#v", err, ce != nil, ce)
	}
}

// A client reads a failed call's envelope back and branches on its code.
func ExampleNewCallError() {
	text := envelope.Error(envelope.RateLimited, "Too many calls").RetryAfter(30 * time.Second).String()
	doc, err := envelope.Parse(text)
	if err != nil {
		return // not one of our envelopes: show the text as it is
	}
	err = envelope.NewCallError(doc, text)

	var ce *envelope.CallError
	if errors.As(err, &ce) && ce.Code == envelope.RateLimited {
		fmt.Println(ce, "- retry after", ce.RetryAfter)
	}
	// Output:
	// RATE_LIMITED: Too many calls - retry after 30s
}

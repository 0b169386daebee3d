package callerror_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/callerror"
)

// callError renders v, parses it back and builds the CallError, as a client
// does with a result's text.
func callError(t *testing.T, text string) *envelope.CallError {
	t.Helper()
	doc, err := envelope.Parse(text)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, text)
	}
	return callerror.FromDocument(doc, text)
}

func TestCallErrorToolError(t *testing.T) {
	text := envelope.Error(envelope.RateLimited, "Too many calls\nslow down").
		Suggest("Wait, then call again").Actions("a.b", "c.d").
		Detail("limit", "5/s").Detail("tool", "billing.get_invoice").
		RetryAfter(1500*time.Millisecond + 1).Critical().String()
	ce := callError(t, text)
	want := &envelope.CallError{
		Code: envelope.RateLimited, Severity: envelope.SeverityCritical,
		Message: "Too many calls\nslow down", Recovery: "Wait, then call again",
		Actions:    []string{"a.b", "c.d"},
		Details:    []envelope.Detail{{Key: "limit", Value: "5/s"}, {Key: "tool", Value: "billing.get_invoice"}},
		RetryAfter: 1501 * time.Millisecond, // milliseconds on the wire below 10 s, rounded up
		Text:       text,
	}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("FromDocument =\n%#v\nwant\n%#v", ce, want)
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
		More:          "…and 1 more issue not shown.",
		ServerMessage: "MCP error -32602: Invalid arguments for tool users.create",
		Contract:      &envelope.Contract{Changes: []envelope.ContractChange{{Severity: "BREAKING", Field: "age", Description: "Minimum raised", Before: "0", After: "13"}}, More: 2},
	}
	text := v.String()
	ce := callError(t, text)
	want := &envelope.CallError{
		Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError,
		Recovery: envelope.DefaultRecovery,
		Action:   "users.create", Fields: v.Fields, More: v.More, ServerMessage: v.ServerMessage, Contract: v.Contract,
		Text: text,
	}
	if !reflect.DeepEqual(ce, want) {
		t.Errorf("FromDocument =\n%#v\nwant\n%#v", ce, want)
	}
	if got, want := ce.Error(), "VALIDATION_ERROR: 2 fields: age, items[0].name"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestCallErrorNone(t *testing.T) {
	if ce := callerror.FromDocument(envelope.Document{}, "text"); ce != nil {
		t.Errorf("FromDocument(empty) = %#v, want nil", ce)
	}
}

func TestCallErrorAs(t *testing.T) {
	doc, err := envelope.Parse(envelope.Error(envelope.NotFound, "gone").String())
	if err != nil {
		t.Fatal(err)
	}
	err = fmt.Errorf("calling billing.get_invoice: %w", callerror.FromDocument(doc, ""))
	var ce *envelope.CallError
	if !errors.As(err, &ce) || ce.Code != envelope.NotFound {
		t.Fatalf("errors.As(%v) = %v, %#v", err, ce != nil, ce)
	}
}

// A client reads a failed call's envelope back and branches on its code.
func ExampleFromDocument() {
	text := envelope.Error(envelope.RateLimited, "Too many calls").RetryAfter(30 * time.Second).String()
	doc, err := envelope.Parse(text)
	if err != nil {
		return // not one of our envelopes: show the text as it is
	}
	err = callerror.FromDocument(doc, text)

	var ce *envelope.CallError
	if errors.As(err, &ce) && ce.Code == envelope.RateLimited {
		fmt.Println(ce, "- retry after", ce.RetryAfter)
	}
	// Output:
	// RATE_LIMITED: Too many calls - retry after 30s
}

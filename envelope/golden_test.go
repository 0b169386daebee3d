package envelope_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/selfheal/selfheal/envelope"
)

// The examples of docs/ARCHITECTURE.md 2.1, 2.2 and 2.3, which must be reproduced
// byte for byte. They are literals here as well as golden files so that
// -update cannot quietly change the wire contract.
const (
	seedToolError = `<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <recovery>List invoices first, then retry with a real ID</recovery>
  <available_actions>
    <action>billing.list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_2026_9999</detail>
  </details>
  <retry_after>30 seconds</retry_after>
</tool_error>`
	seedValidation = `<validation_error action="billing.get_invoice">
  <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	// 2.3: a forwarded call the server rejected, with the server's own
	// words kept beside selfheal's (issue 27).
	seedServerMessage = `<validation_error action="write_file">
  <field name="content">You sent: nothing. Expected a string.</field>
  <server_message>MCP error -32602: Input validation error: Invalid arguments for tool write_file: …</server_message>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
)

func seedServerMessageError() envelope.ValidationError {
	return envelope.ValidationError{
		Action:        "write_file",
		Fields:        []envelope.Field{{Name: "content", Text: "You sent: nothing. Expected a string."}},
		ServerMessage: "MCP error -32602: Input validation error: Invalid arguments for tool write_file: …",
	}
}

func seedBuilder() *envelope.Builder {
	return envelope.Error(envelope.NotFound, "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Detail("requestedId", "inv_2026_9999").
		RetryAfter(30 * time.Second)
}

func seedValidationError() envelope.ValidationError {
	return envelope.ValidationError{
		Action: "billing.get_invoice",
		Fields: []envelope.Field{{Name: "id", Text: "Invalid email format. You sent: 'not-an-email'. Expected a valid email address."}},
	}
}

var goldens = []struct {
	file string
	got  func() string
}{
	{"tool_error_seed.golden", func() string { return seedBuilder().String() }},
	{"validation_error_seed.golden", func() string { return seedValidationError().String() }},
	{"validation_error_server_message.golden", func() string { return seedServerMessageError().String() }},
	{"tool_error_full.golden", func() string {
		return envelope.Error("QUOTA_EXCEEDED", "Monthly quota used up & reset on the 1st").
			Warning().
			Suggest("Use a smaller page size <= 50").
			Actions("billing.get_usage", "billing.upgrade_plan").
			Detail("limit", "1000").Detail("used", "1000").
			Detail("plan", `"free"`).
			RetryAfter(500 * time.Millisecond).
			String()
	}},
	{"tool_error_nil_builder.golden", func() string { var b *envelope.Builder; return b.String() }},
	{"tool_error_wrapped.golden", func() string { return envelope.Wrap(errors.New("pq: password authentication failed")).String() }},
	{"validation_error_full.golden", func() string {
		return envelope.ValidationError{
			Action: "billing.create_invoice",
			Fields: []envelope.Field{
				{Name: "amount", Text: "You sent: 0. Expected a number >= 1."},
				{Name: `labels["a.b"]`, Text: "Invalid type. You sent: '42'. Expected an integer: drop the quotes."},
			},
			More:          "…and 3 more issues not shown.",
			ServerMessage: "MCP error -32602: amount: Number must be greater than or equal to 1",
			Recovery:      "Fix amount and labels, then call billing.create_invoice again. Do not explain the error.",
			Contract: &envelope.Contract{
				Changes: []envelope.ContractChange{
					{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
					{Severity: "RISKY", Field: "labels", Description: "New optional field"},
				},
				More: 2,
			},
		}.String()
	}},
	{"escaping.golden", func() string {
		nasty := "a]]>b </field><x y=\"z\">&amp; \x00\x1b\r\n\ttab \xff\xfe \uFFFE \u202Eevil 🙂"
		return envelope.ValidationError{
			Action:        nasty,
			Fields:        []envelope.Field{{Name: nasty, Text: nasty}},
			More:          nasty,
			ServerMessage: nasty,
			Recovery:      nasty,
			Contract:      &envelope.Contract{Changes: []envelope.ContractChange{{nasty, nasty, nasty, nasty, nasty}}},
		}.String()
	}},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			got := g.got()
			golden.Check(t, g.file, []byte(got))
			if _, err := envelope.Parse(got); err != nil {
				t.Errorf("Parse: %v", err)
			}
		})
	}
}

func TestSeedExamplesByteForByte(t *testing.T) {
	if got := seedBuilder().String(); got != seedToolError {
		t.Errorf("builder:\n%s\nwant:\n%s", got, seedToolError)
	}
	te := envelope.Wrap(seedBuilder())
	if got := te.String(); got != seedToolError {
		t.Errorf("ToolError value:\n%s", got)
	}
	if got := string(envelope.AppendBuilder(seedBuilder(), []byte("x"))); got != "x"+seedToolError {
		t.Errorf("AppendXML:\n%s", got)
	}
	if got := seedValidationError().String(); got != seedValidation {
		t.Errorf("validation:\n%s\nwant:\n%s", got, seedValidation)
	}
	if got := seedServerMessageError().String(); got != seedServerMessage {
		t.Errorf("validation with a server message:\n%s\nwant:\n%s", got, seedServerMessage)
	}
	if strings.HasSuffix(seedToolError, "\n") || strings.HasSuffix(seedValidation, "\n") || strings.HasSuffix(seedServerMessage, "\n") {
		t.Fatal("no trailing newline by convention")
	}
}

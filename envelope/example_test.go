package envelope_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

func ExampleError() {
	err := envelope.Error(envelope.NotFound, "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Detail("requestedId", "inv_2026_9999").
		RetryAfter(30 * time.Second)

	fmt.Println(err.Error())                  // the short form, for logs
	fmt.Println(envelope.Wrap(err).IsError()) // what a result's isError says
	fmt.Println(err.String())                 // the XML, for the model
	// Output:
	// NOT_FOUND: No invoice with that ID
	// true
	// <tool_error code="NOT_FOUND" severity="error">
	//   <message>No invoice with that ID</message>
	//   <recovery>List invoices first, then retry with a real ID</recovery>
	//   <available_actions>
	//     <action>billing.list_invoices</action>
	//   </available_actions>
	//   <details>
	//     <detail key="requestedId">inv_2026_9999</detail>
	//   </details>
	//   <retry_after>30 seconds</retry_after>
	// </tool_error>
}

func ExampleBuilder_Warning() {
	// A warning rides on a successful result: isError stays false.
	w := envelope.Error(envelope.Deprecated, "Parameter 'limit' is deprecated; use 'page_size'").Warning()
	fmt.Println(envelope.Wrap(w).IsError())
	fmt.Println(w.String())
	// Output:
	// false
	// <tool_error code="DEPRECATED" severity="warning">
	//   <message>Parameter 'limit' is deprecated; use 'page_size'</message>
	// </tool_error>
}

func ExampleWrap() {
	getInvoice := func(id string) error {
		if id == "" {
			return envelope.Error(envelope.MissingRequiredField, "id is required")
		}
		return errors.New("pq: connection refused to 10.0.0.7")
	}

	// An envelope passes through wrapping unchanged.
	fmt.Println(envelope.Wrap(fmt.Errorf("handler: %w", getInvoice(""))).Error())

	// Any other error becomes a generic INTERNAL_ERROR: log the raw error,
	// the model only sees what it can act on.
	fmt.Println(envelope.Wrap(getInvoice("inv_1")).String())
	// Output:
	// MISSING_REQUIRED_FIELD: id is required
	// <tool_error code="INTERNAL_ERROR" severity="error">
	//   <message>The tool failed because of an internal error.</message>
	//   <recovery>This is not caused by your arguments. Do not retry the same call blindly; if it fails again, tell the user the tool is not working.</recovery>
	// </tool_error>
}

func ExampleFromPanic() {
	call := func() (res envelope.ToolError) {
		defer func() {
			if v := recover(); v != nil {
				res = envelope.FromPanic(v)
			}
		}()
		items, i := []string{"inv_1"}, 1
		fmt.Println(items[i]) // a bug: index out of range
		return envelope.ToolError{}
	}
	fmt.Println(call().Error())
	// Output:
	// INTERNAL_ERROR: The tool failed because of an internal error.
}

func ExampleValidationError() {
	v := envelope.ValidationError{
		Action: "billing.get_invoice",
		Fields: []envelope.Field{
			{Name: "id", Text: "Invalid email format. You sent: 'not-an-email'. Expected a valid email address."},
		},
		Contract: &envelope.Contract{Changes: []envelope.ContractChange{
			{Severity: "BREAKING", Field: "id", Description: "Now an email address, was an invoice number", Before: "string", After: "email"},
		}},
	}
	fmt.Println(v.String())
	// Output:
	// <validation_error action="billing.get_invoice">
	//   <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
	//   <contract_awareness>
	//     <change severity="BREAKING" field="id" before="string" after="email">Now an email address, was an invoice number</change>
	//   </contract_awareness>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleParse() {
	result := "Tool call failed:\n" + `<tool_error code="RATE_LIMITED" severity="error">
  <message>Too many calls</message>
  <retry_after>30 seconds</retry_after>
</tool_error>`

	doc, err := envelope.Parse(result)
	if err != nil {
		panic(err)
	}
	e := doc.ToolError
	fmt.Println(e.Code == envelope.RateLimited, e.Message, e.RetryAfter, e.IsError())

	_, err = envelope.Parse("Everything is fine")
	fmt.Println(err)
	// Output:
	// true Too many calls 30s true
	// envelope: not a tool_error or validation_error envelope: no <tool_error> or <validation_error> element found
}

func ExampleValidationError_serverMessage() {
	// A proxy forwarded write_file, the server rejected it, and the schema
	// says why: the model reads selfheal's fields and, in case the server
	// failed for another reason, the server's own words.
	engine := selfheal.New()
	list := issues.List{{Code: issues.InvalidType, Path: issues.Path{"content"}, Absent: true, Expected: issues.TypeString}}
	v, _ := engine.Result("write_file", list)
	v.ServerMessage = "MCP error -32602: Input validation error: Invalid arguments for tool write_file: …"
	fmt.Println(v.String())
	// Output:
	// <validation_error action="write_file">
	//   <field name="content">You sent: nothing. Expected a string.</field>
	//   <server_message>MCP error -32602: Input validation error: Invalid arguments for tool write_file: …</server_message>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

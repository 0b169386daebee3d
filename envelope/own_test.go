package envelope_test

import (
	"fmt"
	"testing"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/mutate"
)

// TestWrapOwnsItsMemory: a caller that changes everything in what Wrap
// returned (mutate.All) changes neither the error it wrapped nor what
// Wrap returns for it next, whichever envelope the error holds.
func TestWrapOwnsItsMemory(t *testing.T) {
	value := envelope.ToolError{Code: envelope.NotFound, Message: "No invoice with that ID",
		Actions: []string{"billing.list_invoices"}, Details: []envelope.Detail{{Key: "requestedId", Value: "inv_1"}}}
	const want = `<tool_error code="NOT_FOUND" severity="error">
  <message>No invoice with that ID</message>
  <available_actions>
    <action>billing.list_invoices</action>
  </available_actions>
  <details>
    <detail key="requestedId">inv_1</detail>
  </details>
</tool_error>`
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"ToolError", value},
		{"*ToolError", &value},
		{"*Builder", envelope.Error(envelope.NotFound, "No invoice with that ID").
			Actions("billing.list_invoices").Detail("requestedId", "inv_1")},
		{"wrapped ToolError", fmt.Errorf("get invoice: %w", value)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := envelope.Wrap(tc.err)
			if got := te.String(); got != want {
				t.Fatalf("Wrap gave\n%s\nwant\n%s", got, want)
			}
			mutate.All(&te)
			if got := envelope.Wrap(tc.err).String(); got != want {
				t.Errorf("after a change to the first result, Wrap gave\n%s\nwant\n%s", got, want)
			}
		})
	}
}

package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// A tool registered with AddTool answers invalid arguments with a
// validation_error and its handler's envelopes with their tool_error. The
// server is driven with raw JSON-RPC here, as a client would.
func Example() {
	s := server.NewMCPServer("billing", "1.0.0")
	mcpgo.AddTool(s, mcp.NewTool("billing.get_invoice",
		mcp.WithString("id", mcp.Required(), mcp.Pattern("^inv_")),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Error(envelope.NotFound, "No invoice with that ID").
			Suggest("List invoices first, then retry with a real ID").
			Actions("billing.list_invoices")
	})

	for _, args := range []string{`{"id": 42}`, `{"id": "inv_2026_9999"}`} {
		msg := `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "billing.get_invoice", "arguments": ` + args + `}}`
		resp := s.HandleMessage(context.Background(), json.RawMessage(msg)).(mcp.JSONRPCResponse)
		res := resp.Result.(*mcp.CallToolResult)
		fmt.Println("isError:", res.IsError)
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// isError: true
	// <validation_error action="billing.get_invoice">
	//   <field name="id">You sent: 42. Expected a string.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
	// isError: true
	// <tool_error code="NOT_FOUND" severity="error">
	//   <message>No invoice with that ID</message>
	//   <recovery>List invoices first, then retry with a real ID</recovery>
	//   <available_actions>
	//     <action>billing.list_invoices</action>
	//   </available_actions>
	// </tool_error>
}

package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// A client reads a failed call back as an *envelope.CallError and branches
// on its code; a warning riding on a success is read with Warning.
func ExampleCallTool() {
	s := server.NewMCPServer("billing", "1.0.0", server.WithToolCapabilities(true))
	mcpgo.AddTool(s, mcp.NewTool("billing.get_invoice", mcp.WithReadOnlyHintAnnotation(true), mcp.WithString("id", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			switch id := req.GetString("id", ""); id {
			case "inv_old":
				return mcp.NewToolResultText(`{"id":"inv_old"}`), envelope.Error(envelope.Deprecated, "Old IDs are deprecated").Warning()
			default:
				return nil, envelope.Error(envelope.NotFound, "No invoice with that ID").
					Actions("billing.list_invoices").Detail("requestedId", id)
			}
		})

	ctx := context.Background()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "agent", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		log.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		log.Fatal(err)
	}

	for _, args := range []map[string]any{{"id": "inv_9"}, {"id": "inv_old"}, {"id": 9}} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "billing.get_invoice", args
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		res, err := mcpgo.CallTool(ctx, c, req,
			mcpgo.WithRetry(3), mcpgo.WithTool(tools.Tools[0])) // read-only: RATE_LIMITED would be retried
		cancel()
		var ce *envelope.CallError
		switch {
		case errors.As(err, &ce) && ce.Code == envelope.NotFound:
			fmt.Println(ce, "- try", ce.Actions, "- requested", ce.Details[0].Value)
		case errors.As(err, &ce):
			fmt.Println(ce) // VALIDATION_ERROR: the model must change its call
		case err != nil:
			log.Fatal(err)
		case mcpgo.Warning(res) != nil:
			fmt.Println("ok, but", mcpgo.Warning(res))
		}
	}
	// Output:
	// NOT_FOUND: No invoice with that ID - try [billing.list_invoices] - requested inv_9
	// ok, but DEPRECATED: Old IDs are deprecated
	// VALIDATION_ERROR: 1 field: id
}

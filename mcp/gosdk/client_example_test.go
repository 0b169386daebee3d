package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

type InvoiceID struct {
	ID string `json:"id"`
}

// A client reads a failed call back as an *envelope.CallError and branches
// on its code; a warning riding on a success is read with Warning.
func ExampleCallTool() {
	server := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "1.0.0"}, nil)
	gosdk.AddTool(server, &mcp.Tool{Name: "billing.get_invoice", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in InvoiceID) (*mcp.CallToolResult, Created, error) {
			switch in.ID {
			case "inv_old":
				return nil, Created(in), envelope.Error(envelope.Deprecated, "Old IDs are deprecated").Warning()
			case "inv_1":
				return nil, Created(in), nil
			}
			return nil, Created{}, envelope.Error(envelope.NotFound, "No invoice with that ID").
				Actions("billing.list_invoices").Detail("requestedId", in.ID)
		})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}

	for _, id := range []string{"inv_9", "inv_old"} {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		res, err := gosdk.CallTool(ctx, session,
			&mcp.CallToolParams{Name: "billing.get_invoice", Arguments: InvoiceID{ID: id}},
			gosdk.WithRetry(3), gosdk.WithTool(tools.Tools[0])) // read-only: RATE_LIMITED would be retried
		cancel()
		var ce *envelope.CallError
		switch {
		case errors.As(err, &ce) && ce.Code == envelope.NotFound:
			fmt.Println(ce, "- try", ce.Actions, "- requested", ce.Details[0].Value)
		case err != nil:
			log.Fatal(err)
		case gosdk.Warning(res) != nil:
			fmt.Println("ok, but", gosdk.Warning(res))
		}
	}
	// Output:
	// NOT_FOUND: No invoice with that ID - try [billing.list_invoices] - requested inv_9
	// ok, but DEPRECATED: Old IDs are deprecated
}

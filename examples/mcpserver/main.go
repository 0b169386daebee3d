// Command mcpserver is an example MCP server on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) whose tools answer bad calls the
// selfheal way. It speaks MCP over stdio:
//
//	go run ./examples/mcpserver
//
// Its tools: billing.get_invoice (NOT_FOUND with the action to call
// instead; rate-limited), billing.list_invoices (formats, enums, bounds, a
// union; a DEPRECATED warning on a success), billing.export_invoices (one at
// a time: SERVER_BUSY), users.create (nested objects and arrays). Any bad
// argument is answered with a validation_error listing every problem. Logs,
// including the errors the model does not see, go to standard error.
package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/gosdk"
)

func main() {
	locale := flag.String("locale", "en", "language of validation errors when the client declares none (en, ja)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s := NewServer(NewStore(), DefaultLimits, logger, gosdk.WithLocale(*locale))
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

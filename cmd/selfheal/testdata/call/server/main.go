// Command server is the stdio MCP server of selfheal call's revision tests:
// a go-sdk v1.8 server with package gosdk, speaking the revisions -versions
// lists (go-sdk's by default: 2026-07-28 and older), that writes the
// revision of each tool call it serves to standard error.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

type noArgs struct{}

type ok struct {
	OK bool `json:"ok"`
}

func main() {
	versions := flag.String("versions", "", "comma-separated revisions to serve (default: go-sdk's)")
	flag.Parse()
	var supported []string
	if *versions != "" {
		supported = strings.Split(*versions, ",")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "invoices", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: supported})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, isCall := req.(*mcp.CallToolRequest); isCall {
				fmt.Fprintf(os.Stderr, "server: %s %s in %s\n", method, r.Params.Name, r.ProtocolVersion())
			}
			return next(ctx, method, req)
		}
	})
	type get struct {
		ID string `json:"id"`
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "invoice.get", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"^inv_"}},"required":["id"],"additionalProperties":false}`)},
		func(_ context.Context, _ *mcp.CallToolRequest, in get) (*mcp.CallToolResult, ok, error) {
			if in.ID != "inv_1" {
				return nil, ok{}, envelope.Error(envelope.NotFound, "No invoice with that ID").Actions("invoice.list")
			}
			return nil, ok{OK: true}, nil
		})
	gosdk.AddTool(s, &mcp.Tool{Name: "invoice.void"}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, ok, error) {
		if len(req.Params.InputResponses) > 0 {
			return nil, ok{OK: true}, nil
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
				Message:         "Void invoice inv_1?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: "void-inv_1",
		}, ok{}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

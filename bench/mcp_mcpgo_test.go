package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// The mcp-go integration's cost, beside what a server has without it.
// Every server benchmark sends one tools/call JSON-RPC message through
// MCPServer.HandleMessage, as a transport does.

const mcpgoSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "email", "age"],
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 40},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 18, "maximum": 130},
    "role": {"enum": ["admin", "member", "viewer"]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5}
  }
}`

const (
	mcpgoValid   = `{"name": "Ann Lee", "email": "ann@example.com", "age": 36, "role": "admin", "tags": ["a", "b"]}`
	mcpgoInvalid = `{"name": "A", "emial": "ann@example.com", "age": "36", "role": "Admin"}` // 5 issues
)

func mcpgoTool() mcp.Tool {
	return mcp.NewToolWithRawSchema("users.create", "Create a user", json.RawMessage(mcpgoSchema))
}

func mcpgoHandler(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return okResult, nil
}

var okResult = mcp.NewToolResultText("ok")

func mcpgoMessage(args string) []byte {
	return []byte(`{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "users.create", "arguments": ` + args + `}}`)
}

func benchServer(b *testing.B, s *server.MCPServer, args string, wantError bool) {
	b.Helper()
	msg := mcpgoMessage(args)
	ctx := context.Background()
	check := func() {
		resp, ok := s.HandleMessage(ctx, msg).(mcp.JSONRPCResponse)
		if !ok {
			b.Fatalf("not a result: %#v", s.HandleMessage(ctx, msg))
		}
		if res := resp.Result.(*mcp.CallToolResult); res.IsError != wantError {
			b.Fatalf("IsError = %v: %+v", res.IsError, res.Content)
		}
	}
	check()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.HandleMessage(ctx, msg)
	}
}

// bare: s.AddTool, no validation at all (what most mcp-go servers run).
func bareServer() *server.MCPServer {
	s := server.NewMCPServer("bench", "1")
	s.AddTool(mcpgoTool(), mcpgoHandler)
	return s
}

// builtin: mcp-go's own WithInputSchemaValidation.
func builtinServer() *server.MCPServer {
	s := server.NewMCPServer("bench", "1", server.WithInputSchemaValidation())
	s.AddTool(mcpgoTool(), mcpgoHandler)
	return s
}

// selfheal: mcpgo.AddTool.
func selfhealServer() *server.MCPServer {
	s := server.NewMCPServer("bench", "1")
	mcpgo.AddTool(s, mcpgoTool(), mcpgoHandler)
	return s
}

// middleware: s.AddTool with mcpgo.Middleware installed.
func middlewareServer() *server.MCPServer {
	s := server.NewMCPServer("bench", "1")
	s.Use(mcpgo.Middleware())
	s.AddTool(mcpgoTool(), mcpgoHandler)
	return s
}

func BenchmarkMCPGoValidCall(b *testing.B) {
	b.Run("bare", func(b *testing.B) { benchServer(b, bareServer(), mcpgoValid, false) })
	b.Run("mcp-go-validation", func(b *testing.B) { benchServer(b, builtinServer(), mcpgoValid, false) })
	b.Run("selfheal-AddTool", func(b *testing.B) { benchServer(b, selfhealServer(), mcpgoValid, false) })
	b.Run("selfheal-Middleware", func(b *testing.B) { benchServer(b, middlewareServer(), mcpgoValid, false) })
}

func BenchmarkMCPGoInvalidCall(b *testing.B) {
	b.Run("mcp-go-validation", func(b *testing.B) { benchServer(b, builtinServer(), mcpgoInvalid, true) })
	b.Run("selfheal-AddTool", func(b *testing.B) { benchServer(b, selfhealServer(), mcpgoInvalid, true) })
}

// BenchmarkMCPGoHandlerValid isolates the handler AddTool registers from
// the JSON-RPC layer: on a valid call it must allocate what validating the
// arguments allocates, and nothing more.
func BenchmarkMCPGoHandlerValid(b *testing.B) {
	var args map[string]any
	if err := json.Unmarshal([]byte(mcpgoValid), &args); err != nil {
		b.Fatal(err)
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "users.create"
	req.Params.Arguments = args
	req.Params.RawArguments = json.RawMessage(mcpgoValid)
	ctx := context.Background()

	b.Run("validate-only", func(b *testing.B) {
		sch, err := jsonschemav6.Compile([]byte(mcpgoSchema))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if sch.Validate(args) != nil {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("bare-handler", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mcpgoHandler(ctx, req)
		}
	})
	b.Run("selfheal-handler", func(b *testing.B) {
		h, err := mcpgo.Handler(mcpgoTool(), mcpgoHandler)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if res, _ := h(ctx, req); res.IsError {
				b.Fatal("invalid")
			}
		}
	})
}

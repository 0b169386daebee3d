package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// handle sends one tools/call to s as a transport does and returns its
// result.
func handle(t *testing.T, s *server.MCPServer, name, args string) *mcp.CallToolResult {
	t.Helper()
	msg := `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "` + name + `", "arguments": ` + args + `}}`
	resp, ok := s.HandleMessage(context.Background(), []byte(msg)).(mcp.JSONRPCResponse)
	if !ok {
		t.Fatalf("%s: not a result: %#v", args, s.HandleMessage(context.Background(), []byte(msg)))
	}
	return resp.Result.(*mcp.CallToolResult)
}

const tooShort = `<validation_error action="t">
  <field name="id">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`

// The middleware knows a tool's schema by its content, not by the address
// of its bytes or maps: a schema changed in place (as a new schema at the
// address of a collected one would be) is compiled again, never served
// stale.
func TestMiddlewareSchemaChangedInPlace(t *testing.T) {
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	engine := mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false)))

	t.Run("RawInputSchema", func(t *testing.T) {
		s := server.NewMCPServer("s", "1")
		s.Use(mcpgo.Middleware(engine))
		raw := []byte(`{"type": "object", "properties": {"id": {"type": "string", "minLength": 3}}}`)
		s.AddTool(mcp.NewToolWithRawSchema("t", "", raw), ok)
		if res := handle(t, s, "t", `{"id": "ab"}`); !res.IsError || text(res) != tooShort {
			t.Fatalf("minLength 3:\n%s\nwant\n%s", text(res), tooShort)
		}
		// The same bytes, at the same address, now say minLength 1.
		i := bytes.Index(raw, []byte(`3}}}`))
		raw[i] = '1'
		if res := handle(t, s, "t", `{"id": "ab"}`); res.IsError || text(res) != "ok" {
			t.Errorf("minLength 1, changed in place: %s; want ok", text(res))
		}
	})

	t.Run("InputSchema", func(t *testing.T) {
		s := server.NewMCPServer("s", "1")
		s.Use(mcpgo.Middleware(engine))
		tool := mcp.NewTool("t", mcp.WithString("id", mcp.MinLength(3)))
		s.AddTool(tool, ok)
		if res := handle(t, s, "t", `{"id": "ab"}`); !res.IsError || text(res) != tooShort {
			t.Fatalf("minLength 3:\n%s\nwant\n%s", text(res), tooShort)
		}
		// The server holds the same Properties map: changed in place.
		tool.InputSchema.Properties["id"] = map[string]any{"type": "string", "minLength": 1}
		if res := handle(t, s, "t", `{"id": "ab"}`); res.IsError || text(res) != "ok" {
			t.Errorf("minLength 1, changed in place: %s; want ok", text(res))
		}
		// Registered again with the first schema: checked by it again.
		s.AddTool(mcp.NewTool("t", mcp.WithString("id", mcp.MinLength(3))), ok)
		if res := handle(t, s, "t", `{"id": "ab"}`); !res.IsError || text(res) != tooShort {
			t.Errorf("registered again with minLength 3:\n%s\nwant\n%s", text(res), tooShort)
		}
	})
}

// A schema that does not compile is logged once, however many calls arrive
// at once; fixed in place, it checks the next call.
func TestMiddlewareBadSchemaLoggedOnce(t *testing.T) {
	var log syncBuffer
	s := server.NewMCPServer("s", "1")
	s.Use(mcpgo.Middleware(mcpgo.WithLogger(slog.New(slog.NewTextHandler(&log, nil))),
		mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false)))))
	raw := []byte(`{"type": "object", "properties": {"id": {"type": "string", "minLength": "3"}}}`)
	s.AddTool(mcp.NewToolWithRawSchema("t", "", raw), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if res := handle(t, s, "t", `{"id": "ab"}`); res.IsError || text(res) != "ok" {
				t.Errorf("unchecked call: %s; want ok", text(res))
			}
		})
	}
	wg.Wait()
	if n := strings.Count(log.String(), "its arguments are not validated"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
	// `"3"` becomes ` 3 `: the same length, the same address.
	i := bytes.Index(raw, []byte(`"3"`))
	copy(raw[i:], ` 3 `)
	if err := json.Unmarshal(raw, new(any)); err != nil {
		t.Fatal(err)
	}
	if res := handle(t, s, "t", `{"id": "ab"}`); !res.IsError || text(res) != tooShort {
		t.Errorf("fixed in place:\n%s\nwant\n%s", text(res), tooShort)
	}
}

package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// The go-sdk integration's cost beside a bare go-sdk server, on the same
// tool, schema and arguments, at two depths:
//
//   - Dispatch: the server's receiving method handler called directly with a
//     tools/call request, as the session does after decoding the JSON-RPC
//     message; everything from go-sdk's dispatch to the result, nothing of
//     the transport;
//   - Session: a go-sdk client calling the tool over an in-memory
//     transport, JSON-RPC encoding and the pipe included.
//
// Three servers: mcp.AddTool (go-sdk alone, its own validation),
// gosdk.AddTool, and mcp.AddTool behind gosdk.Middleware.

const gosdkSchema = `{
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
	gosdkValid   = `{"name": "Ann Lee", "email": "ann@example.com", "age": 36, "role": "admin", "tags": ["a", "b"]}`
	gosdkInvalid = `{"name": "A", "emial": "ann@example.com", "age": "36", "role": "Admin"}` // 5 issues
)

type gosdkUser struct {
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Age   int      `json:"age"`
	Role  string   `json:"role,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

var gosdkOK = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}

func gosdkHandler(context.Context, *mcp.CallToolRequest, gosdkUser) (*mcp.CallToolResult, any, error) {
	return gosdkOK, nil, nil
}

func gosdkTool() *mcp.Tool {
	return &mcp.Tool{Name: "users.create", InputSchema: json.RawMessage(gosdkSchema)}
}

// gosdkServer returns a server with the tool registered the given way.
func gosdkServer(kind string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	switch kind {
	case "mcp.AddTool":
		mcp.AddTool(s, gosdkTool(), gosdkHandler)
	case "gosdk.AddTool":
		gosdk.AddTool(s, gosdkTool(), gosdkHandler)
	case "Middleware":
		s.AddReceivingMiddleware(gosdk.Middleware())
		mcp.AddTool(s, gosdkTool(), gosdkHandler)
	}
	return s
}

var gosdkKinds = []string{"mcp.AddTool", "gosdk.AddTool", "Middleware"}

// gosdkDispatch connects s in memory and returns its receiving method
// handler (middleware included) and the server session to call it with.
func gosdkDispatch(b *testing.B, s *mcp.Server) (mcp.MethodHandler, *mcp.ClientSession, *mcp.ServerSession) {
	b.Helper()
	var h mcp.MethodHandler
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler { h = next; return next })
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return h, cs, ss
}

func gosdkCheck(b *testing.B, kind string, res *mcp.CallToolResult, wantError bool) {
	b.Helper()
	if res.IsError != wantError {
		b.Fatalf("%s: isError %v", kind, res.IsError)
	}
	if wantError && kind != "mcp.AddTool" && !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "<validation_error") {
		b.Fatalf("%s: %s", kind, res.Content[0].(*mcp.TextContent).Text)
	}
}

func BenchmarkGoSDKDispatch(b *testing.B) {
	for _, args := range []struct {
		name string
		json string
	}{{"valid", gosdkValid}, {"invalid", gosdkInvalid}} {
		for _, kind := range gosdkKinds {
			b.Run(args.name+"/"+kind, func(b *testing.B) {
				h, _, ss := gosdkDispatch(b, gosdkServer(kind))
				ctx := context.Background()
				req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "users.create", Arguments: json.RawMessage(args.json)}}
				res, err := h(ctx, "tools/call", req)
				if err != nil {
					b.Fatal(err)
				}
				gosdkCheck(b, kind, res.(*mcp.CallToolResult), args.name == "invalid")
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					_, _ = h(ctx, "tools/call", req)
				}
			})
		}
	}
}

func BenchmarkGoSDKSession(b *testing.B) {
	for _, args := range []struct {
		name string
		json string
	}{{"valid", gosdkValid}, {"invalid", gosdkInvalid}} {
		for _, kind := range gosdkKinds {
			b.Run(args.name+"/"+kind, func(b *testing.B) {
				_, cs, _ := gosdkDispatch(b, gosdkServer(kind))
				ctx := context.Background()
				params := &mcp.CallToolParams{Name: "users.create", Arguments: json.RawMessage(args.json)}
				res, err := cs.CallTool(ctx, params)
				if err != nil {
					b.Fatal(err)
				}
				gosdkCheck(b, kind, res, args.name == "invalid")
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					_, _ = cs.CallTool(ctx, params)
				}
			})
		}
	}
}

// BenchmarkGoSDKAnswer splits the invalid session figure: a bare go-sdk
// server whose handler returns, without reading the arguments, the very
// result gosdk.AddTool answers the invalid call with. What it costs beyond
// GoSDKSession/invalid/mcp.AddTool is go-sdk's JSON-RPC carrying the longer
// answer (every problem and the structured issues, against one line);
// what GoSDKSession/invalid/gosdk.AddTool costs beyond it is this module.
func BenchmarkGoSDKAnswer(b *testing.B) {
	h, _, ss := gosdkDispatch(b, gosdkServer("gosdk.AddTool"))
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "users.create", Arguments: json.RawMessage(gosdkInvalid)}}
	res, err := h(context.Background(), "tools/call", req)
	if err != nil {
		b.Fatal(err)
	}
	answer := res.(*mcp.CallToolResult)
	gosdkCheck(b, "gosdk.AddTool", answer, true)
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	s.AddTool(gosdkTool(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return answer, nil
	})
	_, cs, _ := gosdkDispatch(b, s)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "users.create", Arguments: json.RawMessage(gosdkInvalid)}
	got, err := cs.CallTool(ctx, params)
	if err != nil {
		b.Fatal(err)
	}
	gosdkCheck(b, "answer", got, true)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_, _ = cs.CallTool(ctx, params)
	}
}

// The validation itself on the valid arguments, for reference: what
// gosdk.AddTool's valid path costs beyond it is decoding into the Go type.
func BenchmarkGoSDKValidationOnly(b *testing.B) {
	sch, err := jsonschemav6.Compile([]byte(gosdkSchema))
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(gosdkValid)
	b.ReportAllocs()
	for b.Loop() {
		if sch.ValidateJSON(data) != nil {
			b.Fatal("invalid")
		}
	}
}

package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// invoiceServer is an mcp-go server with selfheal's answers of every kind,
// and a tool that asks the client to confirm (an elicitation) before it
// runs.
func invoiceServer() *server.MCPServer {
	s := server.NewMCPServer("invoices", "1")
	mcpgo.AddTool(s, mcp.NewTool("invoice.get", mcp.WithString("id", mcp.Required(), mcp.Pattern("^inv_"))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetString("id", "") != "inv_1" {
				return nil, envelope.Error(envelope.NotFound, "No invoice with that ID").Actions("invoice.list")
			}
			return mcp.NewToolResultText("ok"), nil
		})
	mcpgo.AddTool(s, mcp.NewTool("invoice.list"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), envelope.Error(envelope.Deprecated, "Use invoice.search").Warning()
	})
	mcpgo.AddTool(s, mcp.NewTool("invoice.void"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if r := server.ElicitationResponse(req.Params.InputResponses, "confirm"); r != nil {
			if r.Action == mcp.ElicitationResponseActionAccept {
				return mcp.NewToolResultText("ok"), nil
			}
			return nil, envelope.Error(envelope.Forbidden, "The user did not confirm")
		}
		return server.NewInputRequestBuilder("void-inv_1").Elicit("confirm", mcp.ElicitationParams{
			Message:         "Void invoice inv_1?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}).ToolResult(), nil
	})
	return s
}

// goSDKInvoiceServer is the same for go-sdk v1.8, with package gosdk.
func goSDKInvoiceServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "invoices", Version: "1"}, nil)
	type get struct {
		ID string `json:"id"`
	}
	gosdk.AddTool(s, &sdk.Tool{Name: "invoice.get", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"^inv_"}},"required":["id"]}`)},
		func(_ context.Context, _ *sdk.CallToolRequest, in get) (*sdk.CallToolResult, any, error) {
			if in.ID != "inv_1" {
				return nil, nil, envelope.Error(envelope.NotFound, "No invoice with that ID").Actions("invoice.list")
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
		})
	gosdk.AddTool(s, &sdk.Tool{Name: "invoice.list"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, envelope.Error(envelope.Deprecated, "Use invoice.search").Warning()
	})
	gosdk.AddTool(s, &sdk.Tool{Name: "invoice.void"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		if r, ok := req.Params.InputResponses["confirm"].(*sdk.ElicitResult); ok {
			if r.Action == "accept" {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil, nil
			}
			return nil, nil, envelope.Error(envelope.Forbidden, "The user did not confirm")
		}
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{"confirm": &sdk.ElicitParams{
				Message:         "Void invoice inv_1?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: "void-inv_1",
		}, nil, nil
	})
	return s
}

type accept struct{}

func (accept) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{}}}, nil
}

// revisionSetups are servers an mcp-go v1.2.1 client reaches in either
// revision: mcp-go's and go-sdk v1.8's, each serving 2026-07-28 or only
// 2025-11-25, and a client pinned to 2025-11-25. connect returns a started
// client with opts, not initialized.
var revisionSetups = []struct {
	name    string
	rev     string
	connect func(t *testing.T, opts ...client.ClientOption) *client.Client
}{
	{"mcp-go in process", "2026-07-28", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		c, err := client.NewInProcessClientWithOptions(invoiceServer(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
	{"mcp-go in process, client pinned to 2025", "2025-11-25", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		c, err := client.NewInProcessClientWithOptions(invoiceServer(), append(opts, client.WithProtocolVersion("2025-11-25"))...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}},
	{"mcp-go HTTP", "2026-07-28", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		return httpClient(t, server.NewStreamableHTTPServer(invoiceServer(), quietHTTP), opts)
	}},
	{"mcp-go HTTP limited to 2025", "2025-11-25", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		return httpClient(t, server.NewStreamableHTTPServer(invoiceServer(), quietHTTP, server.WithStreamableHTTPProtocolVersions("2025-11-25")), opts)
	}},
	{"go-sdk stateless HTTP", "2026-07-28", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		s := goSDKInvoiceServer()
		return httpClient(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: true}), opts)
	}},
	// go-sdk's stateful handler serves 2025-11-25 only, and mcp-go's client
	// must be pinned to it there (see TestMCPGoClientOnGoSDKStatefulHTTP).
	{"go-sdk stateful HTTP, client pinned to 2025", "2025-11-25", func(t *testing.T, opts ...client.ClientOption) *client.Client {
		s := goSDKInvoiceServer()
		return httpClient(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil), append(opts, client.WithProtocolVersion("2025-11-25")))
	}},
}

// quietHTTP keeps mcp-go's HTTP server from logging each answer it
// delivers.
var quietHTTP = server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))

func httpClient(t *testing.T, h http.Handler, opts []client.ClientOption) *client.Client {
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	tr, err := transport.NewStreamableHTTP(hs.URL, transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	return client.NewClient(tr, opts...)
}

// revisionClient starts and initializes a client of setup and checks the
// revision it settled on.
func revisionClient(t *testing.T, connect func(*testing.T, ...client.ClientOption) *client.Client, rev string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	c := connect(t, opts...)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	if got := c.ProtocolVersion(); got != rev {
		t.Fatalf("the client speaks %s, want %s", got, rev)
	}
	return c
}

// CallTool reads selfheal's answers in either revision an mcp-go client
// speaks, from mcp-go and go-sdk servers: a 2026-07-28 result (resultType
// "complete") and a 2025-11-25 one (none) give the same CallError, warning
// or success.
func TestCallToolRevisions(t *testing.T) {
	ctx := context.Background()
	for _, setup := range revisionSetups {
		t.Run(setup.name, func(t *testing.T) {
			c := revisionClient(t, setup.connect, setup.rev)
			wantType := map[string]mcp.ResultType{"2026-07-28": mcp.ResultTypeComplete, "2025-11-25": ""}[setup.rev]
			call := func(tool, args string) (*mcp.CallToolResult, error) {
				t.Helper()
				res, err := mcpgo.CallTool(ctx, c, callRequest(tool, json.RawMessage(args)))
				if res != nil && res.ResultType != wantType {
					t.Errorf("%s: resultType %q, want %q", tool, res.ResultType, wantType)
				}
				return res, err
			}

			res, err := call("invoice.get", `{"id":5}`)
			var ce *envelope.CallError
			if !errors.As(err, &ce) || ce.Code != envelope.ValidationErrorCode || ce.Action != "invoice.get" ||
				len(ce.Fields) != 1 || ce.Fields[0].Name != "id" || ce.Fields[0].Text != "You sent: 5. Expected a string." || !res.IsError {
				t.Errorf("validation_error: err = %#v, want one field id", err)
			}

			res, err = call("invoice.get", `{"id":"inv_2"}`)
			if !errors.As(err, &ce) || ce.Code != envelope.NotFound || ce.Message != "No invoice with that ID" || ce.Text != resultText(res) ||
				len(ce.Actions) != 1 || ce.Actions[0] != "invoice.list" {
				t.Errorf("tool_error: err = %#v, want NOT_FOUND", err)
			}

			res, err = call("invoice.list", `{}`)
			if w := mcpgo.Warning(res); err != nil || res.IsError || w == nil || w.Code != envelope.Deprecated {
				t.Errorf("warning: err = %v, IsError %v, Warning %#v", err, res.IsError, w)
			}

			res, err = call("invoice.get", `{"id":"inv_1"}`)
			if err != nil || res.IsError || resultText(res) != "ok" {
				t.Errorf("success: err = %v, %q", err, resultText(res))
			}
		})
	}
}

// A tool that asks for input before it runs (resultType input_required in
// 2026-07-28; in 2025-11-25 the server asks the client with an
// elicitation/create request of its own) is never taken for a success or
// for the tool's failure: mcp-go's client fulfils the request with its
// elicitation handler and CallTool reads the final result; without a
// handler the call fails with the client's or the server's error.
func TestCallToolInputRequired(t *testing.T) {
	ctx := context.Background()
	for _, setup := range revisionSetups {
		t.Run(setup.name, func(t *testing.T) {
			t.Run("elicitation handler", func(t *testing.T) {
				c := revisionClient(t, setup.connect, setup.rev, client.WithElicitationHandler(accept{}))
				res, err := mcpgo.CallTool(ctx, c, callRequest("invoice.void", nil))
				if err != nil {
					t.Fatalf("err = %v; want the tool's success", err)
				}
				if res.IsError || res.NeedsInput() || resultText(res) != "ok" {
					t.Errorf("result %q; want the tool's success", resultText(res))
				}
			})

			t.Run("no handler", func(t *testing.T) {
				c := revisionClient(t, setup.connect, setup.rev)
				res, err := mcpgo.CallTool(ctx, c, callRequest("invoice.void", nil))
				var ce *envelope.CallError
				if err == nil || errors.As(err, &ce) || errors.Is(err, mcpgo.ErrInputRequired) || res != nil {
					t.Fatalf("res = %v, err = %v; want the client's error", res, err)
				}
				if !strings.Contains(err.Error(), "elicitation") {
					t.Errorf("err = %v; want it to say the client cannot elicit", err)
				}
			})
		})
	}
}

// callerOf is a CallTool of another kind than mcp-go's client, which
// returns the results it is given as they are.
type callerOf []*mcp.CallToolResult

func (c *callerOf) CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res := (*c)[0]
	*c = (*c)[1:]
	return res, nil
}

// A caller that does not fulfil input requests itself gets the
// input_required result back with ErrInputRequired, at once, never
// retried, never read as a failure or a warning.
func TestCallToolInputRequiredResult(t *testing.T) {
	busy := envelope.Error(envelope.ServerBusy, "busy").String()
	pending := server.NewInputRequestBuilder("s1").Elicit("confirm", mcp.ElicitationParams{Message: "Sure?"}).ToolResult()
	// Content a server must not send with it: not read either.
	pending.Content, pending.IsError = []mcp.Content{mcp.NewTextContent(busy)}, true
	calls := callerOf{pending, mcp.NewToolResultText("ok")}
	res, err := mcpgo.CallTool(context.Background(), &calls, callRequest("invoice.void", nil), mcpgo.WithRetry(3), mcpgo.WithRetryNonIdempotent())
	if !errors.Is(err, mcpgo.ErrInputRequired) || res != pending || len(calls) != 1 {
		t.Fatalf("res = %v, err = %v, %d results left; want the input_required result and ErrInputRequired after one call", res, err, len(calls))
	}
	if mcpgo.Warning(res) != nil {
		t.Errorf("Warning of an input_required result: %v", mcpgo.Warning(res))
	}
}

// mcp-go v1.2.1's client takes any answer to server/discover for
// 2026-07-28; go-sdk v1.8's stateful Streamable HTTP handler answers it
// with supportedVersions of 2025-11-25 and older only, then refuses every
// 2026-07-28 request. Unpinned, that client cannot call a tool there: the
// call fails with the server's refusal, never a result read as the tool's.
func TestMCPGoClientOnGoSDKStatefulHTTP(t *testing.T) {
	s := goSDKInvoiceServer()
	c := httpClient(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil), nil)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	res, err := mcpgo.CallTool(context.Background(), c, callRequest("invoice.get", json.RawMessage(`{"id":"inv_1"}`)))
	var unsupported mcp.UnsupportedProtocolVersionError
	if c.ProtocolVersion() != "2026-07-28" || !errors.As(err, &unsupported) || res != nil {
		t.Errorf("client on %s: res = %v, err = %v; want 2026-07-28 and the server's refusal (if mcp-go now negotiates 2025-11-25 here, drop the pin in revisionSetups and update the README)", c.ProtocolVersion(), res, err)
	}
}

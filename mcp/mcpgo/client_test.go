package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "selfheal-client-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
}

func callRequest(name string, args any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

// mcp-go's client, through CallTool, against the example server (a go-sdk
// server) started over stdio.
func TestCallToolExampleServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the example server")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c, err := client.NewStdioMCPClient(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	initialize(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	call := func(tool, args string, opts ...mcpgo.CallOption) (*mcp.CallToolResult, error) {
		return mcpgo.CallTool(ctx, c, callRequest(tool, json.RawMessage(args)), opts...)
	}

	t.Run("not found", func(t *testing.T) {
		res, err := call("billing.get_invoice", `{"id": "inv_1234_5678"}`, mcpgo.WithRetry(3))
		var ce *envelope.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a CallError", err)
		}
		want := &envelope.CallError{
			Code: envelope.NotFound, Severity: envelope.SeverityError,
			Message:  "No invoice with that ID",
			Recovery: "List invoices first, then retry with a real ID",
			Actions:  []string{"billing.list_invoices"},
			Details:  []envelope.Detail{{Key: "requestedId", Value: "inv_1234_5678"}},
			Text:     resultText(res),
		}
		if !reflect.DeepEqual(ce, want) {
			t.Errorf("CallError =\n%#v\nwant\n%#v", ce, want)
		}
		if !res.IsError {
			t.Error("IsError false")
		}
	})

	t.Run("validation", func(t *testing.T) {
		res, err := call("billing.get_invoice", `{"id": "INV-1", "extra": true}`)
		var ce *envelope.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a CallError", err)
		}
		var paths []string
		for _, f := range ce.Fields {
			paths = append(paths, f.Name)
		}
		if want := []string{"(root)", "id"}; !reflect.DeepEqual(paths, want) {
			t.Errorf("paths = %q, want %q", paths, want)
		}
		if ce.Code != envelope.ValidationErrorCode || ce.Action != "billing.get_invoice" || ce.Text != resultText(res) || !strings.Contains(ce.Fields[1].Text, "You sent: 'INV-1'") {
			t.Errorf("CallError = %#v", ce)
		}
		if want := "VALIDATION_ERROR: 2 fields: (root), id"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
	})

	t.Run("warning on a success", func(t *testing.T) {
		res, err := call("billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "page_size": 1}`)
		if err != nil || res.IsError {
			t.Fatalf("err = %v, IsError %v: a warning is not an error", err, res.IsError)
		}
		w := mcpgo.Warning(res)
		if w == nil || w.Code != envelope.Deprecated || w.Severity != envelope.SeverityWarning {
			t.Fatalf("Warning = %#v", w)
		}
		if !strings.Contains(resultText(res), `"invoices"`) {
			t.Errorf("the result's data is gone: %q", resultText(res))
		}
	})
}

// newScripted is an mcp-go server of scripted tools, in process: each
// answers its script in order, then its last answer forever.
func newScripted(t *testing.T) (*client.Client, func(string) int) {
	t.Helper()
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(name string) int { mu.Lock(); defer mu.Unlock(); return calls[name] }
	s := server.NewMCPServer("scripted", "1", server.WithToolCapabilities(true))
	scripted := func(tool mcp.Tool, script ...error) {
		mcpgo.AddTool(s, tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			calls[tool.Name]++
			n := calls[tool.Name]
			mu.Unlock()
			if err := script[min(n, len(script))-1]; err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("ok"), nil
		})
	}
	rateLimited := envelope.Error(envelope.RateLimited, "Too many calls").RetryAfter(time.Second)
	scripted(mcp.NewTool("flaky", mcp.WithIdempotentHintAnnotation(true)), rateLimited, nil)
	scripted(mcp.NewTool("busy", mcp.WithReadOnlyHintAnnotation(true)), envelope.Error(envelope.ServerBusy, "Busy"))
	scripted(mcp.NewTool("critical", mcp.WithIdempotentHintAnnotation(true)), envelope.Error(envelope.Timeout, "Gave up").Critical(), nil)
	scripted(mcp.NewTool("create", mcp.WithDestructiveHintAnnotation(false)), rateLimited, rateLimited, nil) // additive: not idempotent
	s.AddTool(mcp.NewTool("plain"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("Error: ENOENT: no such file or directory, open 'x'"), nil
	})
	mcpgo.AddTool(s, mcp.NewTool("strict", mcp.WithIdempotentHintAnnotation(true), mcp.WithString("id", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			calls["strict"]++
			mu.Unlock()
			return mcp.NewToolResultText("ok"), nil
		})

	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	initialize(t, c)
	return c, count
}

// fakeClock records the waits of the retry policy instead of sleeping; its
// time moves only by them.
type fakeClock struct {
	now   time.Time
	waits []time.Duration
}

func (f *fakeClock) option() mcpgo.CallOption {
	return mcpgo.CallOptionOf(func(c *clientcall.Config) {
		c.Now = func() time.Time { return f.now }
		c.Sleep = func(_ context.Context, d time.Duration) error {
			f.waits = append(f.waits, d)
			f.now = f.now.Add(d)
			return nil
		}
	})
}

func listed(t *testing.T, c *client.Client, name string) mcp.Tool {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return mcp.Tool{}
}

func TestCallToolRetry(t *testing.T) {
	c, count := newScripted(t)
	ctx := context.Background()

	t.Run("rate limited waits retry_after", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		res, err := mcpgo.CallTool(ctx, c, callRequest("flaky", nil), mcpgo.WithRetry(3), mcpgo.WithTool(listed(t, c, "flaky")), clock.option())
		if err != nil || res.IsError || resultText(res) != "ok" {
			t.Fatalf("err = %v, result %#v", err, res)
		}
		if want := []time.Duration{time.Second}; !reflect.DeepEqual(clock.waits, want) || count("flaky") != 2 {
			t.Errorf("waits %v over %d calls, want %v over 2", clock.waits, count("flaky"), want)
		}
	})

	t.Run("server busy bounded by the context", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		ctx, cancel := context.WithDeadline(ctx, clock.now.Add(time.Second))
		defer cancel()
		_, err := mcpgo.CallTool(ctx, c, callRequest("busy", nil), mcpgo.WithRetry(100), mcpgo.WithTool(listed(t, c, "busy")), clock.option())
		var ce *envelope.CallError
		if !errors.As(err, &ce) || ce.Code != envelope.ServerBusy {
			t.Fatalf("err = %v, want SERVER_BUSY", err)
		}
		var total time.Duration
		for _, w := range clock.waits {
			total += w
		}
		if n := count("busy"); n != len(clock.waits)+1 || n < 2 || n > 10 || total > time.Second {
			t.Errorf("%d calls, waits %v (total %v): want a few, within the second left", n, clock.waits, total)
		}
	})

	t.Run("never", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			code envelope.Code
			opts []mcpgo.CallOption
		}{
			{"strict", envelope.ValidationErrorCode, []mcpgo.CallOption{{}, mcpgo.WithRetryNonIdempotent()}}, // a zero option is none
			{"critical", envelope.Timeout, []mcpgo.CallOption{mcpgo.WithRetryNonIdempotent()}},
			{"create", envelope.RateLimited, []mcpgo.CallOption{mcpgo.WithTool(listed(t, c, "create"))}},
		} {
			clock := &fakeClock{now: time.Now()}
			before := count(tc.name)
			opts := append([]mcpgo.CallOption{mcpgo.WithRetry(3), clock.option()}, tc.opts...)
			_, err := mcpgo.CallTool(ctx, c, callRequest(tc.name, map[string]any{}), opts...)
			var ce *envelope.CallError
			if !errors.As(err, &ce) || ce.Code != tc.code {
				t.Errorf("%s: err = %v, want %s", tc.name, err, tc.code)
			}
			if len(clock.waits) != 0 || tc.name != "strict" && count(tc.name)-before != 1 || tc.name == "strict" && count(tc.name) != 0 {
				t.Errorf("%s: %d calls, waits %v; want one call, no wait", tc.name, count(tc.name)-before, clock.waits)
			}
		}
	})

	t.Run("additive when asked", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		before := count("create")
		_, err := mcpgo.CallTool(ctx, c, callRequest("create", nil), mcpgo.WithRetry(2), mcpgo.WithRetryNonIdempotent(), clock.option())
		if err != nil || count("create")-before != 2 || !reflect.DeepEqual(clock.waits, []time.Duration{time.Second}) {
			t.Fatalf("err = %v, %d calls, waits %v", err, count("create")-before, clock.waits)
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		// mcp-go answers a JSON-RPC error: returned as the client does
		res, err := mcpgo.CallTool(ctx, c, callRequest("nope", nil), mcpgo.WithRetry(3), mcpgo.WithRetryNonIdempotent())
		var ce *envelope.CallError
		if err == nil || errors.As(err, &ce) || res != nil {
			t.Errorf("res = %v, err = %v; want the client's error", res, err)
		}
	})

	t.Run("plain error text passes through", func(t *testing.T) {
		res, err := mcpgo.CallTool(ctx, c, callRequest("plain", nil), mcpgo.WithRetry(3), mcpgo.WithRetryNonIdempotent())
		if err != nil {
			t.Fatalf("err = %v, want nil: not an envelope", err)
		}
		if !res.IsError || resultText(res) != "Error: ENOENT: no such file or directory, open 'x'" || mcpgo.Warning(res) != nil {
			t.Errorf("result = %#v", res)
		}
	})
}

// resultText is the text of a result's text blocks, in order.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

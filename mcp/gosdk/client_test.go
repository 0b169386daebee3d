package gosdk_test

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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
)

// The client helper against the example server (examples/mcpserver), built
// and started over stdio as a host application would.
func TestCallToolExampleServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the example server")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/mcpserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	call := func(tool, args string, opts ...gosdk.CallOption) (*mcp.CallToolResult, error) {
		return gosdk.CallTool(ctx, session, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}, opts...)
	}

	t.Run("not found", func(t *testing.T) {
		res, err := call("billing.get_invoice", `{"id": "inv_1234_5678"}`, gosdk.WithRetry(3))
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
		if err.Error() != "NOT_FOUND: No invoice with that ID" || !res.IsError {
			t.Errorf("Error() = %q, IsError %v", err, res.IsError)
		}
	})

	t.Run("validation", func(t *testing.T) {
		res, err := call("users.create", `{"name": "A", "email": "ada@example.com", "role": "Admin", "address": {"postcode": "1"}}`)
		var ce *envelope.CallError
		if !errors.As(err, &ce) {
			t.Fatalf("err = %v, want a CallError", err)
		}
		var paths []string
		for _, f := range ce.Fields {
			paths = append(paths, f.Name)
			if !strings.Contains(f.Text, "You sent:") {
				t.Errorf("field %s: %q", f.Name, f.Text)
			}
		}
		if want := []string{"address.city", "address.postcode", "name", "role"}; !reflect.DeepEqual(paths, want) {
			t.Errorf("paths = %q, want %q", paths, want)
		}
		if ce.Code != envelope.ValidationErrorCode || ce.Action != "users.create" || ce.Recovery != envelope.DefaultRecovery || ce.Text != resultText(res) {
			t.Errorf("CallError = %#v", ce)
		}
		if want := "VALIDATION_ERROR: 4 fields: address.city, address.postcode, name, role"; err.Error() != want {
			t.Errorf("Error() = %q, want %q", err, want)
		}
	})

	t.Run("warning on a success", func(t *testing.T) {
		res, err := call("billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "page_size": 1}`)
		if err != nil || res.IsError {
			t.Fatalf("err = %v, IsError %v: a warning is not an error", err, res.IsError)
		}
		w := gosdk.Warning(res)
		if w == nil || w.Code != envelope.Deprecated || w.Severity != envelope.SeverityWarning || w.Recovery != "Send limit instead of page_size next time" {
			t.Fatalf("Warning = %#v", w)
		}
		if !strings.Contains(resultText(res), `"invoices"`) {
			t.Errorf("the result's data is gone: %q", resultText(res))
		}
	})

	t.Run("success", func(t *testing.T) {
		res, err := call("billing.get_invoice", `{"id": "inv_2026_0002"}`)
		if err != nil || res.IsError || gosdk.Warning(res) != nil {
			t.Fatalf("err = %v, IsError %v, Warning %v", err, res.IsError, gosdk.Warning(res))
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		// go-sdk answers a JSON-RPC error: returned as the session does
		res, err := call("billing.nope", `{}`)
		var ce *envelope.CallError
		if err == nil || errors.As(err, &ce) || res != nil {
			t.Errorf("res = %v, err = %v; want the session's error", res, err)
		}
	})
}

// testServer is a go-sdk server of scripted tools: each answers its script
// in order, then its last answer forever, and counts its calls.
type testServer struct {
	mu    sync.Mutex
	calls map[string]int
}

func (ts *testServer) count(name string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.calls[name]
}

type noArgs struct{}
type okOut struct {
	OK bool `json:"ok"`
}

func newTestSession(t *testing.T) (*mcp.ClientSession, *testServer) {
	t.Helper()
	ts := &testServer{calls: map[string]int{}}
	s := mcp.NewServer(&mcp.Implementation{Name: "scripted", Version: "1"}, nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				ts.mu.Lock()
				ts.calls[p.Name]++
				ts.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	scripted := func(tool *mcp.Tool, script ...error) {
		gosdk.AddTool(s, tool, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, okOut, error) {
			n := ts.count(tool.Name)
			if err := script[min(n, len(script))-1]; err != nil {
				return nil, okOut{}, err
			}
			return nil, okOut{OK: true}, nil
		})
	}
	idem := &mcp.ToolAnnotations{IdempotentHint: true}
	rateLimited := envelope.Error(envelope.RateLimited, "Too many calls").RetryAfter(time.Second)
	busy := envelope.Error(envelope.ServerBusy, "Busy, slow down")
	scripted(&mcp.Tool{Name: "flaky", Annotations: idem}, rateLimited, nil)
	scripted(&mcp.Tool{Name: "busy", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, busy)
	scripted(&mcp.Tool{Name: "critical", Annotations: idem}, envelope.Error(envelope.ServerBusy, "Down for maintenance").Critical(), nil)
	scripted(&mcp.Tool{Name: "create"}, rateLimited, rateLimited, rateLimited, nil) // no annotations: destructive by default
	gosdk.AddTool(s, &mcp.Tool{Name: "strict", Annotations: idem, InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)},
		func(context.Context, *mcp.CallToolRequest, struct {
			ID string `json:"id"`
		}) (*mcp.CallToolResult, okOut, error) {
			return nil, okOut{OK: true}, nil
		})
	// another server's plain error text, not one of our envelopes
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "Error: ENOENT: no such file or directory, open 'x'"}}}, nil
	})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session, ts
}

// fakeClock records the waits of the retry policy instead of sleeping; its
// time moves only by them.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (f *fakeClock) option() gosdk.CallOption {
	return gosdk.CallOptionOf(func(c *clientcall.Config) {
		c.Now = func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
		c.Sleep = func(_ context.Context, d time.Duration) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.waits = append(f.waits, d)
			f.now = f.now.Add(d)
			return nil
		}
	})
}

func tool(session *mcp.ClientSession, t *testing.T, name string) *mcp.Tool {
	t.Helper()
	for tl, err := range session.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestCallToolRetry(t *testing.T) {
	session, ts := newTestSession(t)
	ctx := context.Background()
	params := func(name string) *mcp.CallToolParams { return &mcp.CallToolParams{Name: name} }

	t.Run("rate limited waits retry_after", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		res, err := gosdk.CallTool(ctx, session, params("flaky"), gosdk.WithRetry(3), gosdk.WithTool(tool(session, t, "flaky")), clock.option())
		if err != nil || res.IsError {
			t.Fatalf("err = %v, IsError %v", err, res.IsError)
		}
		if want := []time.Duration{time.Second}; !reflect.DeepEqual(clock.waits, want) || ts.count("flaky") != 2 {
			t.Errorf("waits %v over %d calls, want %v over 2", clock.waits, ts.count("flaky"), want)
		}
	})

	t.Run("off by default", func(t *testing.T) {
		_, err := gosdk.CallTool(ctx, session, params("flaky"), gosdk.WithTool(tool(session, t, "flaky")))
		// the script's last answer is a success: flaky was called a third time
		if err != nil || ts.count("flaky") != 3 {
			t.Fatalf("err = %v after %d calls", err, ts.count("flaky"))
		}
	})

	t.Run("server busy bounded by the context", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		ctx, cancel := context.WithDeadline(ctx, clock.now.Add(2*time.Second))
		defer cancel()
		res, err := gosdk.CallTool(ctx, session, params("busy"), gosdk.WithRetry(100), gosdk.WithTool(tool(session, t, "busy")), clock.option())
		var ce *envelope.CallError
		if !errors.As(err, &ce) || ce.Code != envelope.ServerBusy || !res.IsError {
			t.Fatalf("err = %v, want SERVER_BUSY", err)
		}
		var total time.Duration
		for _, w := range clock.waits {
			total += w
		}
		if n := ts.count("busy"); n != len(clock.waits)+1 || n < 2 || n > 10 || total > 2*time.Second {
			t.Errorf("%d calls, waits %v (total %v): want a few, within the 2s left", n, clock.waits, total)
		}
		for i, w := range clock.waits {
			if lo, hi := clientcall.BaseBackoff<<i/2, clientcall.BaseBackoff<<i; w < lo || w >= hi {
				t.Errorf("wait %d = %v, want in [%v, %v)", i, w, lo, hi)
			}
		}
	})

	t.Run("never", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args any
			code envelope.Code
			opts []gosdk.CallOption
		}{
			{"strict", map[string]any{}, envelope.ValidationErrorCode, []gosdk.CallOption{gosdk.WithRetryNonIdempotent()}},
			{"critical", nil, envelope.ServerBusy, []gosdk.CallOption{gosdk.WithRetryNonIdempotent()}},
			{"create", nil, envelope.RateLimited, []gosdk.CallOption{{}}},                                        // annotations unknown; a zero option is none
			{"create", nil, envelope.RateLimited, []gosdk.CallOption{gosdk.WithTool(&mcp.Tool{Name: "create"})}}, // destructive by default
		} {
			clock := &fakeClock{now: time.Now()}
			before := ts.count(c.name)
			opts := append([]gosdk.CallOption{gosdk.WithRetry(3), clock.option()}, c.opts...)
			if c.name != "create" {
				opts = append(opts, gosdk.WithTool(tool(session, t, c.name)))
			}
			_, err := gosdk.CallTool(ctx, session, &mcp.CallToolParams{Name: c.name, Arguments: c.args}, opts...)
			var ce *envelope.CallError
			if !errors.As(err, &ce) || ce.Code != c.code {
				t.Errorf("%s: err = %v, want %s", c.name, err, c.code)
			}
			if n := ts.count(c.name) - before; n != 1 || len(clock.waits) != 0 {
				t.Errorf("%s: %d calls, waits %v; want 1 call, no wait", c.name, n, clock.waits)
			}
		}
	})

	t.Run("destructive when asked", func(t *testing.T) {
		clock := &fakeClock{now: time.Now()}
		before := ts.count("create")
		_, err := gosdk.CallTool(ctx, session, params("create"), gosdk.WithRetry(1), gosdk.WithRetryNonIdempotent(), clock.option())
		if err != nil || ts.count("create")-before != 2 || !reflect.DeepEqual(clock.waits, []time.Duration{time.Second}) {
			t.Fatalf("err = %v, %d calls, waits %v", err, ts.count("create")-before, clock.waits)
		}
	})

	t.Run("plain error text passes through", func(t *testing.T) {
		res, err := gosdk.CallTool(ctx, session, params("plain"), gosdk.WithRetry(3), gosdk.WithRetryNonIdempotent())
		if err != nil {
			t.Fatalf("err = %v, want nil: not an envelope", err)
		}
		if !res.IsError || resultText(res) != "Error: ENOENT: no such file or directory, open 'x'" || gosdk.Warning(res) != nil {
			t.Errorf("result = %#v", res)
		}
	})
}

// resultText is the text of a result's text blocks, in order.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

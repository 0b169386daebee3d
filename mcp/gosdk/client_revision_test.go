package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// invoiceServer is a go-sdk server with selfheal's answers of every kind,
// and a tool that asks the client to confirm (an elicitation) before it
// runs. versions limits the revisions it speaks (nil: go-sdk's).
func invoiceServer(versions []string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "invoices", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: versions})
	type get struct {
		ID string `json:"id"`
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "invoice.get", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","pattern":"^inv_"}},"required":["id"]}`)},
		func(_ context.Context, _ *mcp.CallToolRequest, in get) (*mcp.CallToolResult, okOut, error) {
			if in.ID != "inv_1" {
				return nil, okOut{}, envelope.Error(envelope.NotFound, "No invoice with that ID").Actions("invoice.list")
			}
			return nil, okOut{OK: true}, nil
		})
	gosdk.AddTool(s, &mcp.Tool{Name: "invoice.list"}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, okOut, error) {
		return nil, okOut{OK: true}, envelope.Error(envelope.Deprecated, "Use invoice.search").Warning()
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "invoice.void"}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, okOut, error) {
		if r, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult); ok && r.Action == "accept" {
			return nil, okOut{OK: true}, nil
		}
		if len(req.Params.InputResponses) > 0 {
			return nil, okOut{}, envelope.Error(envelope.Forbidden, "The user did not confirm")
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{
				Message:         "Void invoice inv_1?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
			}},
			RequestState: "void-inv_1",
		}, okOut{}, nil
	})
	return s
}

// wireLog records what a client reads, one message a line.
type wireLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *wireLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// lastResult returns the last result the client read.
func (l *wireLog) lastResult(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(l.b.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		msg, ok := strings.CutPrefix(lines[i], "read: ")
		var r struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if ok && json.Unmarshal([]byte(msg), &r) == nil && r.Result != nil {
			return r.Result
		}
	}
	t.Fatalf("the client read no result:\n%s", l.b.String())
	return nil
}

// revisionSetups are go-sdk v1.8 servers a go-sdk v1.8 client reaches in
// either revision: the revision the client settles on is the server's
// (2026-07-28 when it serves it, else 2025-11-25 after server/discover
// fails).
var revisionSetups = []struct {
	name    string
	rev     string
	connect func(t *testing.T) mcp.Transport
}{
	{"in-memory 2026", "2026-07-28", func(t *testing.T) mcp.Transport {
		return inMemory(t, invoiceServer(nil))
	}},
	{"in-memory limited to 2025", "2025-11-25", func(t *testing.T) mcp.Transport {
		return inMemory(t, invoiceServer([]string{"2025-11-25"}))
	}},
	{"stateless HTTP 2026", "2026-07-28", func(t *testing.T) mcp.Transport {
		s := invoiceServer(nil)
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(hs.Close)
		return &mcp.StreamableClientTransport{Endpoint: hs.URL}
	}},
	{"stateful HTTP, 2025 only", "2025-11-25", func(t *testing.T) mcp.Transport {
		s := invoiceServer(nil)
		hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		t.Cleanup(hs.Close)
		return &mcp.StreamableClientTransport{Endpoint: hs.URL}
	}},
}

func inMemory(t *testing.T, s *mcp.Server) mcp.Transport {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return ct
}

// revisionSession connects a go-sdk client with opts through a logging
// transport and checks the revision it settled on.
func revisionSession(t *testing.T, tr mcp.Transport, rev string, opts *mcp.ClientOptions) (*mcp.ClientSession, *wireLog) {
	t.Helper()
	log := &wireLog{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.LoggingTransport{Transport: tr, Writer: log}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != rev {
		t.Fatalf("the client speaks %s, want %s", got, rev)
	}
	return cs, log
}

// CallTool reads selfheal's answers in either revision a go-sdk v1.8
// client speaks: a 2026-07-28 result (resultType "complete" on the wire)
// and a 2025-11-25 one (no resultType) give the same CallError, warning or
// success.
func TestCallToolRevisions(t *testing.T) {
	ctx := context.Background()
	for _, setup := range revisionSetups {
		t.Run(setup.name, func(t *testing.T) {
			cs, log := revisionSession(t, setup.connect(t), setup.rev, nil)
			wantType := map[string]string{"2026-07-28": `"complete"`, "2025-11-25": ""}[setup.rev]
			call := func(tool, args string) (*mcp.CallToolResult, error) {
				t.Helper()
				res, err := gosdk.CallTool(ctx, cs, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
				if got := string(log.lastResult(t)["resultType"]); got != wantType {
					t.Errorf("%s: the client read resultType %s, want %s", tool, got, wantType)
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
			want := &envelope.CallError{Code: envelope.NotFound, Severity: envelope.SeverityError, Message: "No invoice with that ID",
				Actions: []string{"invoice.list"}, Text: resultText(res)}
			if !errors.As(err, &ce) || ce.Code != want.Code || ce.Message != want.Message || ce.Text != want.Text || len(ce.Actions) != 1 || ce.Actions[0] != "invoice.list" {
				t.Errorf("tool_error: err = %#v, want %#v", err, want)
			}

			res, err = call("invoice.list", `{}`)
			if w := gosdk.Warning(res); err != nil || res.IsError || w == nil || w.Code != envelope.Deprecated {
				t.Errorf("warning: err = %v, IsError %v, Warning %#v", err, res.IsError, w)
			}

			res, err = call("invoice.get", `{"id":"inv_1"}`)
			if err != nil || res.IsError || resultText(res) != `{"ok":true}` {
				t.Errorf("success: err = %v, %q", err, resultText(res))
			}
		})
	}
}

// A tool that asks for input before it runs (resultType input_required in
// 2026-07-28; in 2025-11-25 the go-sdk server asks the client with an
// elicitation/create request of its own) is never taken for a success or
// for the tool's failure: the go-sdk client fulfils the request with its
// elicitation handler and CallTool reads the final result; without a
// handler the call fails with the client's error; with the client's
// multi-round-trip handling off, CallTool returns the input_required
// result and ErrInputRequired, and the caller finishes the exchange.
// The subtests share one params value, as a host calling the same tool of
// servers of both revisions would (see TestCallToolLeavesParams).
func TestCallToolInputRequired(t *testing.T) {
	ctx := context.Background()
	void := &mcp.CallToolParams{Name: "invoice.void", Arguments: json.RawMessage(`{}`)}
	accept := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	for _, setup := range revisionSetups {
		t.Run(setup.name, func(t *testing.T) {
			t.Run("elicitation handler", func(t *testing.T) {
				cs, _ := revisionSession(t, setup.connect(t), setup.rev, &mcp.ClientOptions{ElicitationHandler: accept})
				res, err := gosdk.CallTool(ctx, cs, void)
				if err != nil {
					t.Fatalf("err = %v; want the tool's success", err)
				}
				if res.IsError || res.NeedsInput() || resultText(res) != `{"ok":true}` {
					t.Errorf("err = %v, result %q; want the tool's success", err, resultText(res))
				}
			})

			t.Run("no handler", func(t *testing.T) {
				cs, _ := revisionSession(t, setup.connect(t), setup.rev, nil)
				res, err := gosdk.CallTool(ctx, cs, void)
				var ce *envelope.CallError
				if err == nil || errors.As(err, &ce) || errors.Is(err, gosdk.ErrInputRequired) || res != nil {
					t.Errorf("res = %v, err = %v; want the session's error", res, err)
				}
				if !strings.Contains(err.Error(), "does not support elicitation") {
					t.Errorf("err = %v; want it to say the client cannot elicit", err)
				}
			})

			if setup.rev != "2026-07-28" {
				return // in 2025-11-25 the server asks the client itself: no input_required result
			}
			t.Run("multi-round-trip off", func(t *testing.T) {
				cs, log := revisionSession(t, setup.connect(t), setup.rev, &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
				res, err := gosdk.CallTool(ctx, cs, void, gosdk.WithRetry(3), gosdk.WithRetryNonIdempotent())
				if !errors.Is(err, gosdk.ErrInputRequired) || res == nil || !res.NeedsInput() || res.RequestState != "void-inv_1" || res.InputRequests["confirm"] == nil {
					t.Fatalf("res = %+v, err = %v; want the input_required result and ErrInputRequired", res, err)
				}
				if got := string(log.lastResult(t)["resultType"]); got != `"input_required"` {
					t.Errorf("the client read resultType %s", got)
				}
				if gosdk.Warning(res) != nil {
					t.Errorf("Warning of an input_required result: %v", gosdk.Warning(res))
				}
				// The caller answers and calls again.
				again := *void
				again.InputResponses = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}
				again.RequestState = res.RequestState
				res, err = gosdk.CallTool(ctx, cs, &again)
				if err != nil || res.IsError || resultText(res) != `{"ok":true}` {
					t.Errorf("after the answer: err = %v, %q", err, resultText(res))
				}
				again.InputResponses = mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "decline"}}
				_, err = gosdk.CallTool(ctx, cs, &again)
				var ce *envelope.CallError
				if !errors.As(err, &ce) || ce.Code != envelope.Forbidden {
					t.Errorf("after a decline: err = %v, want FORBIDDEN", err)
				}
			})
		})
	}
}

// go-sdk v1.8's session.CallTool writes the 2026-07-28 _meta (protocol
// version, client info, capabilities) into the params it is given; CallTool
// hands it a copy, so params reused with a 2025-11-25 session do not claim
// 2026-07-28 there (the server would refuse the call: "unsupported protocol
// version").
func TestCallToolLeavesParams(t *testing.T) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "invoice.get", Arguments: json.RawMessage(`{"id":"inv_1"}`), Meta: mcp.Meta{"trace": "t1"}}
	for _, setup := range []int{0, 1, 0} { // 2026, 2025, 2026
		cs, log := revisionSession(t, revisionSetups[setup].connect(t), revisionSetups[setup].rev, nil)
		res, err := gosdk.CallTool(ctx, cs, params)
		if err != nil || res.IsError {
			t.Fatalf("%s: err = %v, %q", revisionSetups[setup].name, err, resultText(res))
		}
		if len(params.Meta) != 1 || params.Meta["trace"] != "t1" {
			t.Errorf("%s: params.Meta = %v, want the caller's", revisionSetups[setup].name, params.Meta)
		}
		if !strings.Contains(log.b.String(), `"trace":"t1"`) {
			t.Errorf("%s: the caller's _meta was not sent", revisionSetups[setup].name)
		}
	}
}

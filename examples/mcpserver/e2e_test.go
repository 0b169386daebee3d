package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/guard"
)

// These tests drive the example server with go-sdk's own client, as a host
// application would: over an in-memory transport, and once over stdio with
// the built binary. Each answer is compared whole (isError, the text the
// model reads, the structured issues) with a golden file in testdata/.

// call is one tools/call and the golden file its answer must match.
type call struct {
	golden string
	tool   string
	args   string         // raw JSON arguments; "" sends none
	meta   map[string]any // the request's _meta
}

// every issue code JSON Schema can produce, and the ways arguments can be
// broken as a whole.
var validationCalls = []call{
	{"invalid_type", "users.create", `{"name": 42, "email": "ada@example.com", "role": "admin", "age": "36", "tags": "vip"}`, nil},
	{"missing_required", "users.create", `{"email": "ada@example.com"}`, nil},
	{"too_small", "users.create", `{"name": "A", "email": "ada@example.com", "role": "admin", "age": 9, "tags": [""]}`, nil},
	{"too_big", "users.create", `{"name": "` + strings.Repeat("Ada ", 25) + `", "email": "ada@example.com", "role": "admin", "age": 131, "tags": ["a", "b", "c", "d", "e", "f"]}`, nil},
	{"invalid_format", "billing.list_invoices", `{"customer_id": "cust-42", "created_after": "2026-13-45"}`, nil},
	{"invalid_format_email", "users.create", `{"name": "Ada", "email": "not-an-email", "role": "admin", "address": {"city": "Lyon", "postcode": "69OO1"}}`, nil},
	{"not_multiple_of", "billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "amount_min": 10.005}`, nil},
	{"unrecognized_keys", "users.create", `{"name": "Ada", "emial": "ada@example.com", "role": "admin", "address": {"city": "Lyon", "zip": "69001"}}`, nil},
	{"invalid_union", "billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "payment": {"type": "card", "last4": "12"}}`, nil},
	// metadata alone: jsonschema v6.0.3 shares the instance location of a
	// propertyNames failure with later siblings (validator.go:296); the
	// adapter now corrects it, this case keeps to the simple shape.
	{"invalid_key", "users.create", `{"metadata": {"Team Name": "core"}}`, nil},
	{"invalid_value", "billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "status": "Paid"}`, nil},
	{"custom_unique", "users.create", `{"name": "Ada", "email": "ada@example.com", "role": "admin", "tags": ["vip", "beta", "vip"]}`, nil},
	{"many_issues", "users.create", `{"name": "A", "emial": "ada@example.com", "age": "36", "role": "Admin"}`, nil},
	// go-sdk's client sends {} for absent arguments (the TypeScript test
	// sends none; mcp/gosdk's own tests call the handler without any).
	{"arguments_empty", "users.create", ``, nil},
	{"arguments_array", "users.create", `["Ada", "ada@example.com"]`, nil},
	{"arguments_string", "billing.get_invoice", `"inv_2026_0001"`, nil},
	{"arguments_null", "billing.get_invoice", `null`, nil},
	{"locale_ja", "users.create", `{"name": "A", "email": "ada@example.com", "role": "Admin"}`, map[string]any{"selfheal/locale": "ja"}},
	{"secret_redacted", "users.create", `{"name": "Ada", "email": "ada@example.com", "role": "admin", "metadata": {"api_key": "` + strings.Repeat("k", 120) + `"}}`, nil},
}

var toolErrorCalls = []call{
	{"ok_get_invoice", "billing.get_invoice", `{"id": "inv_2026_0002"}`, nil},
	{"not_found", "billing.get_invoice", `{"id": "inv_2026_9999"}`, nil},
	{"warning_deprecated", "billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "status": "open", "page_size": 2}`, nil},
	{"conflict", "users.create", `{"name": "Ada", "email": "taken@example.com", "role": "admin"}`, nil},
	{"internal_error", "billing.get_invoice", `{"id": "inv_2026_0013"}`, nil},
	{"internal_error_panic", "debug.panic", `{}`, nil},
}

// newTestServer is the example server, with a log the test can read, a
// user whose email is taken, and one more tool whose handler panics.
func newTestServer(t *testing.T, store *Store, limits Limits) (*mcp.Server, *syncBuffer) {
	t.Helper()
	log := new(syncBuffer)
	logger := slog.New(slog.NewTextHandler(log, nil))
	s := NewServer(store, limits, logger)
	if _, err := store.CreateUser(context.Background(), NewUser{Name: "Taken", Email: "taken@example.com", Role: "member"}); err != nil {
		t.Fatal(err)
	}
	type panicArgs struct {
		Reason string `json:"reason,omitempty"`
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "debug.panic", Description: "Panics, to show what the model sees then."},
		func(_ context.Context, _ *mcp.CallToolRequest, in panicArgs) (*mcp.CallToolResult, any, error) {
			fields := strings.Split(in.Reason, ",")
			return nil, fields[3] + "sk-live-0123456789", nil // the bug: fewer than 4 fields

		}, gosdk.WithLogger(logger))
	return s, log
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent logging.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// connect runs s over an in-memory transport and returns a go-sdk client
// session on it.
func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func (c call) params() *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: c.tool, Meta: c.meta}
	if c.args != "" {
		p.Arguments = json.RawMessage(c.args)
	}
	return p
}

// render is the golden form of a result: isError, every text block, and
// the structured issues (structuredContent, or _meta's selfheal/issues).
func render(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("isError: ")
	if res.IsError {
		b.WriteString("true\n")
	} else {
		b.WriteString("false\n")
	}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		b.WriteString("--- text\n")
		b.WriteString(tc.Text)
		b.WriteString("\n")
	}
	if res.StructuredContent != nil {
		b.WriteString("--- structuredContent\n")
		b.WriteString(indent(t, res.StructuredContent))
	}
	if v, ok := res.Meta["selfheal/issues"]; ok {
		b.WriteString("--- _meta." + "selfheal/issues" + "\n")
		b.WriteString(indent(t, v))
	}
	return b.String()
}

func indent(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + "\n"
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name+".golden", []byte(got))
}

// checkEnvelope parses the first text block back and checks the basics
// every answer must have: well-formed, the expected kind, no Go syntax.
func checkEnvelope(t *testing.T, res *mcp.CallToolResult) {
	t.Helper()
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.HasPrefix(text, "{") {
		return // a success's JSON or plain text
	}
	if _, err := envelope.Parse(text); err != nil {
		t.Errorf("envelope.Parse: %v\n%s", err, text)
	}
	for _, bad := range []string{"&{", "map[", "validating \"arguments\"", "goroutine ", ".go:"} {
		if strings.Contains(text, bad) {
			t.Errorf("the model would read %q:\n%s", bad, text)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	s, _ := newTestServer(t, NewStore(), DefaultLimits)
	cs := connect(t, s)
	for _, c := range validationCalls {
		t.Run(c.golden, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), c.params())
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError {
				t.Errorf("isError false, want true")
			}
			checkEnvelope(t, res)
			if !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, `<validation_error action="`+c.tool+`">`) {
				t.Errorf("not a validation_error for %s", c.tool)
			}
			checkGolden(t, c.golden, render(t, res))
		})
	}
}

func TestToolErrors(t *testing.T) {
	s, log := newTestServer(t, NewStore(), DefaultLimits)
	cs := connect(t, s)
	for _, c := range toolErrorCalls {
		t.Run(c.golden, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), c.params())
			if err != nil {
				t.Fatal(err)
			}
			checkEnvelope(t, res)
			checkGolden(t, c.golden, render(t, res))
		})
	}
	// What the model does not see is in the server's log.
	for _, want := range []string{"s3cret-pw", "index out of range", "tool=debug.panic", "tool=billing.get_invoice"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// The model never reads the raw error, the panic value or anything else
// private.
func TestNoPrivateValueReachesTheModel(t *testing.T) {
	for _, name := range []string{"internal_error", "internal_error_panic", "server_busy", "rate_limited"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"s3cret", "postgres://", "/var/lib", "sk-live", "index out of range", "cus_Ab12Cd34", "inv_2026", "Rate", "Burst", "MaxActive"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s shows %q to the model", name, secret)
			}
		}
	}
}

func TestServerBusy(t *testing.T) {
	store := NewStore()
	started := make(chan struct{}, 1)
	store.exportStarted, store.exportDelay = started, time.Minute
	s, _ := newTestServer(t, store, DefaultLimits)
	cs := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "billing.export_invoices", Arguments: map[string]any{"customer_id": "cus_Ab12Cd34"}})
		first <- err
	}()
	<-started // the first export holds the only slot
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "billing.export_invoices", Arguments: map[string]any{"customer_id": "cus_Ab12Cd34"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Error("isError false, want true")
	}
	checkEnvelope(t, res)
	checkGolden(t, "server_busy", render(t, res))
	cancel()
	<-first
}

func TestRateLimited(t *testing.T) {
	limits := DefaultLimits
	limits.GetInvoice = guard.Limits{Rate: 1.0 / 60, Burst: 2} // two calls, then one a minute
	s, _ := newTestServer(t, NewStore(), limits)
	cs := connect(t, s)
	get := &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": "inv_2026_0001"}}
	for range 2 {
		res, err := cs.CallTool(context.Background(), get)
		if err != nil || res.IsError {
			t.Fatalf("call within the burst: %v %+v", err, res)
		}
	}
	// Invalid arguments are still told what to fix: validation comes first.
	bad, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": 7}})
	if err != nil || !strings.HasPrefix(bad.Content[0].(*mcp.TextContent).Text, "<validation_error") {
		t.Fatalf("invalid call while rate-limited: %v %+v", err, bad)
	}
	res, err := cs.CallTool(context.Background(), get)
	if err != nil {
		t.Fatal(err)
	}
	checkEnvelope(t, res)
	checkGolden(t, "rate_limited", render(t, res))
}

// The advertised schemas are the ones the tools check.
func TestToolsList(t *testing.T) {
	s, _ := newTestServer(t, NewStore(), DefaultLimits)
	cs := connect(t, s)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, tool := range res.Tools {
		b.WriteString("--- " + tool.Name + "\ninput: ")
		data, _ := json.Marshal(tool.InputSchema)
		b.Write(data)
		b.WriteString("\noutput: ")
		data, _ = json.Marshal(tool.OutputSchema)
		b.Write(data)
		b.WriteString("\n")
	}
	checkGolden(t, "tools_list", b.String())
}

// The built binary over stdio, with go-sdk's CommandTransport: the same
// answers byte for byte.
func TestCommandTransport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cs.Close(); err != nil && !errors.Is(err, io.EOF) {
			t.Log(err)
		}
	}()
	for _, c := range []call{validationCalls[0], validationCalls[12], validationCalls[13], toolErrorCalls[1], toolErrorCalls[2], toolErrorCalls[4]} {
		t.Run(c.golden, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), c.params())
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", c.golden+".golden"))
			if err != nil {
				t.Fatal(err)
			}
			if got := render(t, res); got != string(want) {
				t.Errorf("over stdio: got\n%s\nwant\n%s", got, want)
			}
		})
	}
	_ = cs.Close()
	if !strings.Contains(stderr.String(), "s3cret-pw") {
		t.Errorf("the server's standard error lacks the raw error:\n%s", stderr.String())
	}
}

package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// usersSchema reaches every issue code a JSON Schema can produce.
const usersSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "email", "age"],
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 20},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 18, "maximum": 130},
    "role": {"enum": ["admin", "member", "viewer"]},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3, "uniqueItems": true},
    "score": {"type": "number", "multipleOf": 0.5},
    "contact": {"anyOf": [
      {"type": "string", "format": "email"},
      {"type": "object", "required": ["phone"], "properties": {"phone": {"type": "string", "pattern": "^\\+[0-9]+$"}}}
    ]},
    "labels": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
    "nickname": {"not": {"const": "admin"}},
    "password": {"type": "string", "minLength": 12}
  }
}`

// fixture is a small mcp-go server with selfheal, driven by mcp-go's own
// in-process client: every request and result goes through JSON.
type fixture struct {
	c       *client.Client
	log     *syncBuffer
	entered chan struct{} // slow.op has started
	finish  chan struct{} // lets slow.op return
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{log: &syncBuffer{}, entered: make(chan struct{}, 1), finish: make(chan struct{})}
	logger := slog.New(slog.NewTextHandler(f.log, nil))
	opts := []mcpgo.Option{mcpgo.WithLogger(logger), mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false)))}
	s := server.NewMCPServer("selfheal-test", "1.0.0")

	users := mcp.NewToolWithRawSchema("users.create", "Create a user", json.RawMessage(usersSchema))
	mcpgo.AddTool(s, users, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("created " + req.GetString("name", "")), nil
	}, opts...)

	labels := mcp.NewToolWithRawSchema("labels.set", "Set labels",
		json.RawMessage(`{"type": "object", "properties": {"labels": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}}}`))
	mcpgo.AddTool(s, labels, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, opts...)

	get := mcp.NewTool("billing.get_invoice", mcp.WithString("id", mcp.Required(), mcp.Pattern("^inv_")))
	mcpgo.AddTool(s, get, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Error(envelope.NotFound, "No invoice with that ID").
			Suggest("List invoices first, then retry with a real ID").
			Actions("billing.list_invoices").
			Detail("requestedId", req.GetString("id", ""))
	}, opts...)

	list := mcp.NewTool("billing.list_invoices", mcp.WithNumber("limit", mcp.Min(1)))
	mcpgo.AddTool(s, list, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("inv_2026_0001"), fmt.Errorf("listing: %w",
			envelope.Error(envelope.Deprecated, "The limit argument is deprecated; all invoices are returned").
				Warning().Suggest("Leave limit out"))
	}, opts...)

	fail := mcp.NewTool("debug.fail")
	mcpgo.AddTool(s, fail, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("postgres: password=hunter2 connection refused")
	}, opts...)

	boom := mcp.NewTool("debug.panic")
	mcpgo.AddTool(s, boom, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var secrets []string
		return mcp.NewToolResultText(secrets[len(req.Params.Name)]), nil // panics: index out of range
	}, opts...)

	slow := mcp.NewTool("slow.op")
	busy := guard.New(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue})
	mcpgo.AddTool(s, slow, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.entered <- struct{}{}
		<-f.finish
		return mcp.NewToolResultText("done"), nil
	}, append(opts, mcpgo.WithGuard(busy))...)

	limited := mcp.NewTool("limited.op")
	hourly := guard.New(guard.Limits{Rate: 1.0 / 3600, Burst: 1})
	mcpgo.AddTool(s, limited, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, append(opts, mcpgo.WithGuard(hourly))...)

	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "selfheal-e2e", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	f.c = c
	return f
}

// call sends a tools/call with args as raw JSON ("" sends no arguments).
func (f *fixture) call(t *testing.T, name, args string) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != "" {
		req.Params.Arguments = json.RawMessage(args)
	}
	res, err := f.c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s(%s): %v", name, args, err)
	}
	return res
}

// render writes what the client received, for golden files.
func render(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "isError: %v\n", res.IsError)
	for _, c := range res.Content {
		tc, ok := c.(mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		b.WriteString("--- text\n")
		b.WriteString(tc.Text)
		b.WriteString("\n")
	}
	if len(res.RawStructuredContent) > 0 {
		var out bytes.Buffer
		if err := json.Indent(&out, res.RawStructuredContent, "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteString("--- structuredContent\n")
		b.Write(out.Bytes())
		b.WriteString("\n")
	}
	if res.Meta != nil && res.Meta.AdditionalFields["selfheal/issues"] != nil {
		data, err := json.MarshalIndent(res.Meta.AdditionalFields["selfheal/issues"], "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("--- _meta." + "selfheal/issues" + "\n")
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name+".golden", []byte(got))
}

// wellFormed parses the text content back with envelope.Parse.
func wellFormed(t *testing.T, res *mcp.CallToolResult) envelope.Document {
	t.Helper()
	doc, err := envelope.Parse(res.Content[0].(mcp.TextContent).Text)
	if err != nil {
		t.Fatalf("the text is not an envelope: %v", err)
	}
	return doc
}

type issue struct {
	Code string `json:"code"`
	Path []any  `json:"path"`
}

// pathName is the field name a line of the text gives the path of an
// issue as JSON decodes it (an index is a float64).
func pathName(p []any) string {
	path := make(issues.Path, len(p))
	for i, el := range p {
		if f, ok := el.(float64); ok {
			el = int(f)
		}
		path[i] = el
	}
	return path.String()
}

func TestValidationErrors(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, args string
		code       string // the code of the first issue
	}{
		{"invalid_type", `{"name": "Ann", "email": "ann@example.com", "age": "36"}`, "invalid_type"},
		{"missing_required", `{"name": "Ann"}`, "invalid_type"},
		{"too_small", `{"name": "A", "email": "ann@example.com", "age": 17}`, "too_small"},
		{"too_big", `{"name": "Ann", "email": "ann@example.com", "age": 200, "tags": ["a", "b", "c", "d"]}`, "too_big"},
		{"invalid_format", `{"name": "Ann", "email": "not-an-email", "age": 36}`, "invalid_format"},
		{"not_multiple_of", `{"name": "Ann", "email": "ann@example.com", "age": 36, "score": 0.3}`, "not_multiple_of"},
		{"unrecognized_keys", `{"name": "Ann", "emial": "ann@example.com", "age": 36}`, "unrecognized_keys"},
		// contact is an object or a string: the object alternative is
		// the one the model chose, and its own issue is given, at its path.
		{"invalid_union", `{"name": "Ann", "email": "ann@example.com", "age": 36, "contact": {"phone": "12345"}}`, "invalid_format"},
		{"invalid_value", `{"name": "Ann", "email": "ann@example.com", "age": 36, "role": "Admin"}`, "invalid_value"},
		{"custom", `{"name": "Ann", "email": "ann@example.com", "age": 36, "nickname": "admin", "tags": ["x", "x"]}`, "custom"},
		{"redacted", `{"name": "Ann", "email": "ann@example.com", "age": 36, "password": "hunter2"}`, "too_small"},
		{"exact_numbers", `{"name": "Ann", "email": "ann@example.com", "age": 9007199254740993}`, "too_big"},
		{"many", `{"name": "A", "emial": "x", "age": "36", "role": "Admin", "tags": "a,b"}`, ""},
		{"nested_secret", `{"name": "Ann", "email": "ann@example.com", "age": 36, "extra": {"password": "hunter2"}}`, "unrecognized_keys"},
		{"absent_arguments", ``, "invalid_type"},
		{"string_arguments", `"name=Ann"`, "invalid_type"},
		{"array_arguments", `[{"name": "Ann"}]`, "invalid_type"},
		{"null_arguments", `null`, "invalid_type"},
		// labels.set has the labels property alone: with siblings, the
		// adapter's propertyNames path is not stable yet (reported).
		{"labels.set invalid_key", `{"labels": {"Bad Key": 1}}`, "invalid_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool, name, _ := strings.Cut(tc.name, " ")
			if name == "" {
				tool, name = "users.create", tc.name
			}
			res := f.call(t, tool, tc.args)
			if !res.IsError {
				t.Error("IsError is false")
			}
			doc := wellFormed(t, res)
			if doc.Validation == nil || doc.Validation.Action != tool {
				t.Fatalf("not a validation_error for %s: %+v", tool, doc)
			}
			var sc struct {
				Issues []issue `json:"issues"`
			}
			if err := json.Unmarshal(res.RawStructuredContent, &sc); err != nil || len(sc.Issues) == 0 {
				t.Fatalf("structuredContent %s: %v", res.RawStructuredContent, err)
			}
			if tc.code != "" && !slices.ContainsFunc(sc.Issues, func(is issue) bool { return is.Code == tc.code }) {
				t.Errorf("no issue has code %q", tc.code)
			}
			// One issue per line of the text, at the line's field, in
			// its order: the structured issues say what the text says.
			if len(sc.Issues) != len(doc.Validation.Fields) {
				t.Errorf("%d issues for %d lines", len(sc.Issues), len(doc.Validation.Fields))
			}
			for i := range min(len(sc.Issues), len(doc.Validation.Fields)) {
				if p, name := pathName(sc.Issues[i].Path), doc.Validation.Fields[i].Name; p != name {
					t.Errorf("issue %d (%s) is at %s, its line at %s", i, sc.Issues[i].Code, p, name)
				}
			}
			got := render(t, res)
			if strings.Contains(got, "hunter2") {
				t.Error("a secret was echoed")
			}
			checkGolden(t, tool+"."+name, got)
		})
	}
	// The handler runs for valid arguments, and was not run for any above.
	res := f.call(t, "users.create", `{"name": "Ann", "email": "ann@example.com", "age": 36, "score": 1.5}`)
	if res.IsError || res.Content[0].(mcp.TextContent).Text != "created Ann" {
		t.Errorf("valid call: %s", render(t, res))
	}
}

func TestToolErrors(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		golden, tool, args string
		isError            bool
		code               envelope.Code
	}{
		{"not_found", "billing.get_invoice", `{"id": "inv_2026_9999"}`, true, envelope.NotFound},
		{"warning", "billing.list_invoices", `{"limit": 5}`, false, envelope.Deprecated},
		{"internal_error", "debug.fail", `{}`, true, envelope.InternalError},
		{"panic", "debug.panic", ``, true, envelope.InternalError},
		{"structured_schema_invalid", "billing.get_invoice", `{"id": 42}`, true, ""},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			res := f.call(t, tc.tool, tc.args)
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tc.isError)
			}
			got := render(t, res)
			checkGolden(t, tc.tool+"."+tc.golden, got)
			if tc.code == "" {
				return
			}
			last := res.Content[len(res.Content)-1].(mcp.TextContent).Text
			doc, err := envelope.Parse(last)
			if err != nil || doc.ToolError == nil || doc.ToolError.Code != tc.code {
				t.Fatalf("last content is not a %s tool_error: %v\n%s", tc.code, err, last)
			}
			if strings.Contains(got, "hunter2") || strings.Contains(got, "index out of range") {
				t.Error("the raw error reached the model")
			}
		})
	}
	logs := f.log.String()
	for _, want := range []string{"password=hunter2 connection refused", "index out of range", "stack="} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %q:\n%s", want, logs)
		}
	}
}

func TestGuards(t *testing.T) {
	f := newFixture(t)
	t.Run("server_busy", func(t *testing.T) {
		done := make(chan *mcp.CallToolResult)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "slow.op"
			res, err := f.c.CallTool(context.Background(), req)
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		<-f.entered // the first call holds the only slot
		res := f.call(t, "slow.op", `{}`)
		if !res.IsError {
			t.Error("IsError is false")
		}
		checkGolden(t, "slow.op.server_busy", render(t, res))
		close(f.finish)
		if first := <-done; first == nil || first.IsError {
			t.Errorf("the admitted call failed: %+v", first)
		}
		if res := f.call(t, "slow.op", `{}`); res.IsError { // the slot is free again
			t.Errorf("after release: %s", render(t, res))
		}
	})
	t.Run("rate_limited", func(t *testing.T) {
		if res := f.call(t, "limited.op", `{}`); res.IsError {
			t.Fatalf("first call: %s", render(t, res))
		}
		res := f.call(t, "limited.op", `{}`)
		if !res.IsError {
			t.Error("IsError is false")
		}
		doc := wellFormed(t, res)
		if doc.ToolError == nil || doc.ToolError.Code != envelope.RateLimited || doc.ToolError.RetryAfter <= 0 {
			t.Fatalf("not RATE_LIMITED with retry_after: %+v", doc.ToolError)
		}
		checkGolden(t, "limited.op.rate_limited", render(t, res))
	})
}

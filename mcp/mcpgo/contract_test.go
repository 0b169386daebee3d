package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// oldUsersSchema is usersSchema as it was when the lock was taken: name up
// to 40 characters, age from 0, role also "owner", an "phone" property
// since removed, password without a minimum, tags at least one.
var oldUsersSchema = strings.NewReplacer(
	`"maxLength": 20`, `"maxLength": 40`,
	`"minimum": 18`, `"minimum": 0`,
	`"member", "viewer"`, `"member", "owner", "viewer"`,
	`"password": {"type": "string", "minLength": 12}`, `"password": {"type": "string"}, "phone": {"type": "string"}`,
	`"maxItems": 3,`, `"maxItems": 3, "minItems": 1,`,
).Replace(usersSchema)

func usersTool() mcp.Tool {
	return mcp.NewToolWithRawSchema("users.create", "Create a user", json.RawMessage(usersSchema))
}

func usersLock(t testing.TB, name, schema string) *contract.Lock {
	t.Helper()
	ct, err := contract.NewTool(name, "Create a user", json.RawMessage(schema), nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := contract.NewLock([]contract.Tool{ct})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func ok(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

func callHandler(t *testing.T, h server.ToolHandlerFunc, name, args string) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = json.RawMessage(args)
	res, err := h(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func contractOf(t *testing.T, res *mcp.CallToolResult) *envelope.Contract {
	t.Helper()
	doc := wellFormed(t, res)
	if doc.Validation == nil {
		t.Fatalf("not a validation_error:\n%s", text(res))
	}
	return doc.Validation.Contract
}

func fields(c *envelope.Contract) string {
	if c == nil {
		return "none"
	}
	var b strings.Builder
	for _, ch := range c.Changes {
		fmt.Fprintf(&b, "%s %s; ", ch.Severity, ch.Field)
	}
	fmt.Fprintf(&b, "more %d", c.More)
	return b.String()
}

const badUser = `{"name": "A", "age": 12, "role": "owner"}`

func TestContractOptions(t *testing.T) {
	lock := usersLock(t, "users.create", oldUsersSchema)
	path := filepath.Join(t.TempDir(), "selfheal.lock")
	data, err := lock.Marshal()
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	first5 := "BREAKING age; BREAKING name; BREAKING password; BREAKING phone; BREAKING role; "
	for _, tc := range []struct {
		name string
		opts []mcpgo.Option
		want string
	}{
		{"no lock", nil, "none"},
		{"WithContract", []mcpgo.Option{mcpgo.WithContract(lock)}, first5 + "more 1"},
		{"WithLockfile", []mcpgo.Option{mcpgo.WithLockfile(path)}, first5 + "more 1"},
		{"limit 2", []mcpgo.Option{mcpgo.WithContract(lock), mcpgo.WithContractLimit(2)}, "BREAKING age; BREAKING name; more 4"},
		{"no limit", []mcpgo.Option{mcpgo.WithContractLimit(-1), mcpgo.WithLockfile(path)}, first5 + "RISKY tags; more 0"},
		{"nil lock turns it off", []mcpgo.Option{mcpgo.WithContract(lock), mcpgo.WithContract(nil)}, "none"},
		{"tool not in the lock", []mcpgo.Option{mcpgo.WithContract(usersLock(t, "users.create.v2", oldUsersSchema))}, "none"},
		{"same contract", []mcpgo.Option{mcpgo.WithContract(usersLock(t, "users.create", usersSchema))}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := mcpgo.Handler(usersTool(), ok, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := fields(contractOf(t, callHandler(t, h, "users.create", badUser))); got != tc.want {
				t.Errorf("contract_awareness: %s\nwant %s", got, tc.want)
			}
			if res := callHandler(t, h, "users.create", `{"name": "Ada", "email": "ada@example.com", "age": 36}`); res.IsError || text(res) != "ok" {
				t.Errorf("valid call: %s", text(res))
			}
		})
	}
}

// The live tool is snapshotted as tools/list shows it, whether its schema
// is raw JSON or mcp-go's structured ToolInputSchema: against a lock taken
// from the tool's own JSON, nothing changed.
func TestContractOfStructuredSchema(t *testing.T) {
	tool := mcp.NewTool("billing.list_invoices", mcp.WithDescription("List invoices"),
		mcp.WithNumber("limit", mcp.Min(1), mcp.Max(100)), mcp.WithString("status", mcp.Enum("open", "paid")),
		mcp.WithOutputSchema[struct {
			IDs []string `json:"ids"`
		}]())
	data, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(data, &wire); err != nil {
		t.Fatal(err)
	}
	snapshot := func(in string) *contract.Lock {
		ct, err := contract.NewTool(tool.Name, tool.Description, json.RawMessage(in), wire.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := contract.NewLock([]contract.Tool{ct})
		return l
	}
	for _, tc := range []struct {
		name, in, want string
	}{
		{"same", string(wire.InputSchema), "none"},
		{"older", strings.Replace(string(wire.InputSchema), `"maximum":100`, `"maximum":500`, 1), "BREAKING limit; more 0"},
	} {
		h, err := mcpgo.Handler(tool, ok, mcpgo.WithContract(snapshot(tc.in)))
		if err != nil {
			t.Fatal(err)
		}
		if got := fields(contractOf(t, callHandler(t, h, tool.Name, `{"limit": 0}`))); got != tc.want {
			t.Errorf("%s: %s, want %s (wire schema %s)", tc.name, got, tc.want, wire.InputSchema)
		}
	}
}

// A lockfile that cannot be read is a registration error, found at startup.
func TestLockfileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lock")
	if err := os.WriteFile(bad, []byte(`{"version": 1, "tools": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.lock"), bad} {
		if _, err := mcpgo.Handler(usersTool(), ok, mcpgo.WithLockfile(path)); err == nil || !strings.Contains(err.Error(), "lockfile: ") || !strings.Contains(err.Error(), path) {
			t.Errorf("Handler with %s: %v", path, err)
		}
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), `mcpgo.AddTool: tool "users.create": lockfile: `) {
					t.Errorf("AddTool with %s: panic %v", path, v)
				}
			}()
			mcpgo.AddTool(server.NewMCPServer("s", "1"), usersTool(), ok, mcpgo.WithLockfile(path))
		}()
		// Middleware logs it once and works without contract awareness.
		var log bytes.Buffer
		s := server.NewMCPServer("s", "1")
		s.Use(mcpgo.Middleware(mcpgo.WithLockfile(path), mcpgo.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
		s.AddTool(usersTool(), ok)
		c := inProcess(t, s)
		for range 2 {
			if ct := contractOf(t, call(t, c, "users.create", badUser, nil)); ct != nil {
				t.Errorf("middleware with %s: contract %v", path, ct)
			}
		}
		if n := strings.Count(log.String(), "cannot read the lockfile"); n != 1 {
			t.Errorf("middleware logged the lockfile error %d times:\n%s", n, log.String())
		}
	}
}

// The validation_error as a model reads it, through AddTool and through
// Middleware: the same bytes.
func TestContractGolden(t *testing.T) {
	lock := usersLock(t, "users.create", oldUsersSchema)
	s := server.NewMCPServer("s", "1")
	mcpgo.AddTool(s, usersTool(), ok, mcpgo.WithContract(lock), mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false))))
	res := call(t, inProcess(t, s), "users.create", badUser, nil)
	got := render(t, res)
	checkGolden(t, "users.create.contract_awareness", got)

	s = server.NewMCPServer("s", "1")
	s.Use(mcpgo.Middleware(mcpgo.WithContract(lock), mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false)))))
	s.AddTool(usersTool(), ok)
	if m := render(t, call(t, inProcess(t, s), "users.create", badUser, nil)); m != got {
		t.Errorf("middleware:\n%s\nwant\n%s", m, got)
	}
	want := envelope.ContractChange{Severity: "BREAKING", Field: "age", Description: "Minimum raised from 0 to 18", Before: "0", After: "18"}
	if c := contractOf(t, res); c == nil || !reflect.DeepEqual(c.Changes[0], want) || c.More != 1 {
		t.Errorf("parsed back: %+v", c)
	}
}

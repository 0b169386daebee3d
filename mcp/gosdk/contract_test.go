package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/golden"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// The live search tool and what it was when the lock was taken: seven
// BREAKING or RISKY changes (a cap of 5 leaves two out), a SAFE one (a
// property added) and a COSMETIC one (the description), which never show.
const (
	liveSearch = `{"type":"object","properties":{
		"query":{"type":"string","minLength":3,"pattern":"^[^<>]*$"},
		"limit":{"type":"integer","minimum":1,"maximum":50},
		"sort":{"enum":["date","score"]},
		"lang":{"type":"string","default":"en"},
		"page":{"type":"integer"}},
		"required":["query","sort"],"additionalProperties":false}`
	oldSearch = `{"type":"object","properties":{
		"query":{"type":"string","minLength":1},
		"limit":{"type":"integer","minimum":1,"maximum":100},
		"sort":{"enum":["date","score","relevance"]},
		"lang":{"type":"string","default":"any"},
		"from":{"type":"string"}},
		"required":["query"],"additionalProperties":false}`
)

func searchTool() *mcp.Tool {
	return &mcp.Tool{Name: "search", Description: "Search documents.", InputSchema: json.RawMessage(liveSearch)}
}

// lockOf is a lock of the given tools (name → input schema), all described
// as "Search the documents." so that the description change is COSMETIC.
func lockOf(t testing.TB, tools map[string]string) *contract.Lock {
	t.Helper()
	var ts []contract.Tool
	for name, schema := range tools {
		ct, err := contract.NewTool(name, "Search the documents.", json.RawMessage(schema), nil)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, ct)
	}
	l, err := contract.NewLock(ts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func callSearch(t *testing.T, h mcp.ToolHandler, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "search", Arguments: json.RawMessage(args)}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func rawHandler(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
}

// contractOf parses a validation_error back and returns its contract
// section.
func contractOf(t *testing.T, res *mcp.CallToolResult) *envelope.Contract {
	t.Helper()
	doc, err := envelope.Parse(res.Content[0].(*mcp.TextContent).Text)
	if err != nil || doc.Validation == nil {
		t.Fatalf("not a validation_error (%v):\n%s", err, text(t, res))
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

func TestContractOptions(t *testing.T) {
	lock := lockOf(t, map[string]string{"search": oldSearch})
	withoutPage := strings.Replace(liveSearch, ",\n\t\t\"page\":{\"type\":\"integer\"}", "", 1)
	if withoutPage == liveSearch {
		t.Fatal("page not removed")
	}
	first5 := "BREAKING from; BREAKING limit; BREAKING query; BREAKING query; BREAKING sort; "
	for _, tc := range []struct {
		name string
		opts []gosdk.Option
		want string
	}{
		{"no lock", nil, "none"},
		{"WithContract", []gosdk.Option{gosdk.WithContract(lock)}, first5 + "more 2"},
		{"limit 2", []gosdk.Option{gosdk.WithContract(lock), gosdk.WithContractLimit(2)}, "BREAKING from; BREAKING limit; more 5"},
		{"limit before the lock", []gosdk.Option{gosdk.WithContractLimit(1), gosdk.WithContract(lock)}, "BREAKING from; more 6"},
		{"no limit", []gosdk.Option{gosdk.WithContract(lock), gosdk.WithContractLimit(0)}, first5 + "BREAKING sort; RISKY lang; more 0"},
		{"nil lock turns it off", []gosdk.Option{gosdk.WithContract(lock), gosdk.WithContract(nil)}, "none"},
		{"tool not in the lock", []gosdk.Option{gosdk.WithContract(lockOf(t, map[string]string{"search2": oldSearch}))}, "none"},
		{"only SAFE and COSMETIC changes", []gosdk.Option{gosdk.WithContract(lockOf(t, map[string]string{"search": withoutPage}))}, "none"},
		{"same contract", []gosdk.Option{gosdk.WithContract(lockOf(t, map[string]string{"search": liveSearch}))}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, h, err := gosdk.Handler(searchTool(), rawHandler, tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if got := fields(contractOf(t, callSearch(t, h, `{"query":"go","sort":"x"}`))); got != tc.want {
				t.Errorf("contract_awareness: %s\nwant %s", got, tc.want)
			}
			// A valid call is not touched.
			if res := callSearch(t, h, `{"query":"golang","sort":"date"}`); res.IsError || text(t, res) != "ok" {
				t.Errorf("valid call: %s", text(t, res))
			}
		})
	}
}

// The validation_error as a model reads it, through AddTool and through
// Middleware: the same bytes.
func TestContractGolden(t *testing.T) {
	lock := lockOf(t, map[string]string{"search": oldSearch})
	args := map[string]any{"query": "go", "sort": "relevance", "limit": 80}

	s := newServer()
	gosdk.AddTool(s, searchTool(), rawHandler, gosdk.WithContract(lock))
	viaAddTool, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	got := text(t, viaAddTool)
	golden.Check(t, "contract_awareness.golden", []byte(got))

	s = newServer()
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithContract(lock)))
	mcp.AddTool(s, searchTool(), rawHandler)
	viaMiddleware, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if m := text(t, viaMiddleware); m != got {
		t.Errorf("middleware:\n%s\nwant\n%s", m, got)
	}
	want := &envelope.Contract{Changes: []envelope.ContractChange{
		{Severity: "BREAKING", Field: "from", Description: "Property removed", Before: `{"type":"string"}`},
		{Severity: "BREAKING", Field: "limit", Description: "Maximum lowered from 100 to 50", Before: "100", After: "50"},
		{Severity: "BREAKING", Field: "query", Description: "Minimum length raised from 1 to 3", Before: "1", After: "3"},
		{Severity: "BREAKING", Field: "query", Description: `Pattern "^[^<>]*$" added`, After: `"^[^<>]*$"`},
		{Severity: "BREAKING", Field: "sort", Description: `Value "relevance" is no longer accepted`, Before: `["date","score","relevance"]`, After: `["date","score"]`},
	}, More: 2}
	if c := contractOf(t, viaAddTool); !reflect.DeepEqual(c, want) {
		t.Errorf("parsed back: %+v", c)
	}
}

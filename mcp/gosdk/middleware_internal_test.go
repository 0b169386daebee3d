package gosdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// The cache holds one entry per tool name: a tool listed as a new copy of
// the same content each time (as a middleware between this one and the
// server may list it) is compiled once, another tool under the name
// replaces the entry, and a tool is never known by an address alone.
func TestMiddlewareCacheByName(t *testing.T) {
	m := &middleware{cfg: toolcall.NewConfig(nil)}
	ctx := context.Background()
	tool := func(schema string) *mcp.Tool {
		return &mcp.Tool{Name: "t", InputSchema: json.RawMessage(schema)}
	}
	first := m.compile(ctx, tool(`{"type":"object","properties":{"a":{"minLength":3}}}`))
	for range 100 {
		if c := m.compile(ctx, tool(`{"type":"object","properties":{"a":{"minLength":3}}}`)); c != first {
			t.Fatal("a copy of the same tool was compiled again")
		}
	}
	second := m.compile(ctx, tool(`{"type":"object","properties":{"a":{"minLength":1}}}`))
	if second == first {
		t.Fatal("another schema under the same name got the first one's entry")
	}
	if list := second.in.sch.Validate(map[string]any{"a": "ab"}); list != nil {
		t.Errorf("the second schema (minLength 1) finds %v in \"ab\"", list)
	}
	n := 0
	m.cache.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Errorf("the cache holds %d entries after 102 lookups of one tool name, want 1", n)
	}
}

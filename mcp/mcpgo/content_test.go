package mcpgo

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// A tool's content is what its schemas hold, not where: every change in
// place is seen, and comparing an unchanged tool allocates nothing.
func TestContent(t *testing.T) {
	build := func() mcp.Tool {
		return mcp.NewTool("t", mcp.WithDescription("d"),
			mcp.WithString("name", mcp.Required(), mcp.MinLength(2)),
			mcp.WithString("role", mcp.Enum("admin", "member")),
			mcp.WithNumber("age", mcp.Min(18)),
			mcp.WithArray("tags", mcp.Items(map[string]any{"type": "string", "examples": []any{"a", json.Number("1")}})),
			mcp.WithObject("meta", mcp.Properties(map[string]any{"x": map[string]any{"type": "integer"}})),
		)
	}
	changes := map[string]func(t *mcp.Tool){
		"a nested number":  func(t *mcp.Tool) { t.InputSchema.Properties["name"].(map[string]any)["minLength"] = 3 },
		"a number's type":  func(t *mcp.Tool) { t.InputSchema.Properties["name"].(map[string]any)["minLength"] = 2.0 },
		"an enum item":     func(t *mcp.Tool) { t.InputSchema.Properties["role"].(map[string]any)["enum"].([]string)[1] = "viewer" },
		"an item of []any": func(t *mcp.Tool) { items(t)["examples"].([]any)[1] = json.Number("2") },
		"a key added deep": func(t *mcp.Tool) { items(t)["maxLength"] = 5 },
		"a key removed":    func(t *mcp.Tool) { delete(t.InputSchema.Properties, "age") },
		"a property renamed": func(t *mcp.Tool) {
			t.InputSchema.Properties["agE"] = t.InputSchema.Properties["age"]
			delete(t.InputSchema.Properties, "age")
		},
		"a required name":           func(t *mcp.Tool) { t.InputSchema.Required[0] = "role" },
		"the type":                  func(t *mcp.Tool) { t.InputSchema.Type = "array" },
		"$defs":                     func(t *mcp.Tool) { t.InputSchema.Defs = map[string]any{"x": true} },
		"additionalProperties":      func(t *mcp.Tool) { t.InputSchema.AdditionalProperties = false },
		"the property order":        func(t *mcp.Tool) { t.InputSchema.PropertyOrder = []string{"role"} },
		"an output schema declared": func(t *mcp.Tool) { t.RawOutputSchema = json.RawMessage(`{"type":"object"}`) },
		"RawInputSchema set":        func(t *mcp.Tool) { t.RawInputSchema = json.RawMessage(`{"type":"object"}`) },
	}
	for what, change := range changes {
		tool := build()
		c := contentOf(tool, false)
		if !c.is(tool) {
			t.Fatalf("%s: an unchanged tool is not its content", what)
		}
		change(&tool)
		if c.is(tool) {
			t.Errorf("%s changed in place: not seen", what)
		}
	}

	raw := mcp.NewToolWithRawSchema("t", "d", json.RawMessage(`{"type":"object","properties":{"a":{"minLength":3}}}`))
	c := contentOf(raw, false)
	raw.RawInputSchema[len(raw.RawInputSchema)-4] = '4'
	if c.is(raw) {
		t.Errorf("RawInputSchema changed in place: not seen")
	}

	// With a contract, the description and the output schema count too.
	for what, change := range map[string]func(t *mcp.Tool){
		"the description":   func(t *mcp.Tool) { t.Description = "e" },
		"the output schema": func(t *mcp.Tool) { t.OutputSchema.Properties["n"].(map[string]any)["type"] = "string" },
	} {
		tool := build()
		tool.OutputSchema = mcp.ToolOutputSchema{Type: "object", Properties: map[string]any{"n": map[string]any{"type": "number"}}}
		without, with := contentOf(tool, false), contentOf(tool, true)
		change(&tool)
		if !without.is(tool) {
			t.Errorf("%s, without a contract: seen", what)
		}
		if with.is(tool) {
			t.Errorf("%s, with a contract: not seen", what)
		}
	}

	tool := build()
	c = contentOf(tool, true)
	if n := testing.AllocsPerRun(100, func() { c.is(tool) }); n != 0 {
		t.Errorf("comparing an unchanged tool allocates %v times, want 0", n)
	}
}

func items(t *mcp.Tool) map[string]any {
	return t.InputSchema.Properties["tags"].(map[string]any)["items"].(map[string]any)
}

// A schema that holds itself, or values that are not JSON, is compared by
// its JSON (or the error of marshaling it), without recursing forever.
func TestContentOpaque(t *testing.T) {
	loop := map[string]any{"type": "object"}
	loop["properties"] = map[string]any{"self": loop}
	tool := mcp.NewTool("t")
	tool.InputSchema.Properties = loop
	c := contentOf(tool, false)
	if !c.is(tool) {
		t.Errorf("a schema that holds itself is not its content")
	}

	type pattern struct {
		Pattern string `json:"pattern"`
	}
	p := &pattern{"^a"}
	tool = mcp.NewTool("t")
	tool.InputSchema.Properties = map[string]any{"a": p}
	c = contentOf(tool, false)
	if !c.is(tool) {
		t.Errorf("an unchanged struct value is not its content")
	}
	p.Pattern = "^b"
	if c.is(tool) {
		t.Errorf("a struct value changed in place: not seen")
	}
}

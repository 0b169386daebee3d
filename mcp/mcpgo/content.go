package mcpgo

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/mark3labs/mcp-go/mcp"
)

// content is what a tool's compiled schema depends on, held by value so
// that it is compared by content, never by the address of the tool's maps
// or bytes: its input schema, whether it declares an output schema, and,
// with a contract, its description and output schema. Comparing walks the
// schema without allocating; only a change makes a new content.
type content struct {
	in         schemaCopy
	structured bool
	contract   bool // desc and out are set
	desc       string
	out        schemaCopy
}

// contentOf returns t's content; withContract adds what the contract
// section depends on.
func contentOf(t mcp.Tool, withContract bool) content {
	c := content{in: copyInput(t), structured: !hasOutputSchema(t), contract: withContract}
	if withContract {
		c.desc = t.Description
		c.out = copyOutput(t)
	}
	return c
}

// is reports whether t's content is c.
func (c *content) is(t mcp.Tool) bool {
	return c.structured == !hasOutputSchema(t) && c.in.sameInput(t) &&
		(!c.contract || c.desc == t.Description && c.out.sameOutput(t))
}

// schemaCopy is a schema by value: raw JSON, or the fields of an
// mcp.ToolArgumentsSchema deep-copied.
type schemaCopy struct {
	raw      []byte // nil: the fields below
	typ      string
	props    any // deep copies (see deepCopy)
	defs     any
	more     any // AdditionalProperties
	required []string
	order    []string // PropertyOrder
}

// copyInput copies what schemaJSON marshals: RawInputSchema when set, else
// InputSchema.
func copyInput(t mcp.Tool) schemaCopy {
	if len(t.RawInputSchema) > 0 {
		return schemaCopy{raw: bytes.Clone(t.RawInputSchema)}
	}
	return copyArgs(mcp.ToolArgumentsSchema(t.InputSchema))
}

func (s *schemaCopy) sameInput(t mcp.Tool) bool {
	if len(t.RawInputSchema) > 0 || s.raw != nil {
		return bytes.Equal(s.raw, t.RawInputSchema)
	}
	return s.sameArgs(mcp.ToolArgumentsSchema(t.InputSchema))
}

// copyOutput copies the output schema as wireSchemas reads it.
func copyOutput(t mcp.Tool) schemaCopy {
	if t.RawOutputSchema != nil {
		return schemaCopy{raw: bytes.Clone(t.RawOutputSchema)}
	}
	return copyArgs(mcp.ToolArgumentsSchema(t.OutputSchema))
}

func (s *schemaCopy) sameOutput(t mcp.Tool) bool {
	if t.RawOutputSchema != nil || s.raw != nil {
		return t.RawOutputSchema != nil && s.raw != nil && bytes.Equal(s.raw, t.RawOutputSchema)
	}
	return s.sameArgs(mcp.ToolArgumentsSchema(t.OutputSchema))
}

func copyArgs(a mcp.ToolArgumentsSchema) schemaCopy {
	return schemaCopy{
		typ:      a.Type,
		props:    deepCopy(a.Properties, 0),
		defs:     deepCopy(a.Defs, 0),
		more:     deepCopy(a.AdditionalProperties, 0),
		required: cloneStrings(a.Required),
		order:    cloneStrings(a.PropertyOrder),
	}
}

func (s *schemaCopy) sameArgs(a mcp.ToolArgumentsSchema) bool {
	return s.typ == a.Type && sameStrings(s.required, a.Required) && sameStrings(s.order, a.PropertyOrder) &&
		same(a.Properties, s.props, 0) && same(a.Defs, s.defs, 0) && same(a.AdditionalProperties, s.more, 0)
}

// maxWalk is the depth past which deepCopy and same treat a value as
// opaque (its JSON): a schema this deep is rare, and a map that holds
// itself must not recurse forever.
const maxWalk = 100

// opaque is a value deepCopy does not walk, by its JSON (or the error of
// marshaling it).
type opaque struct {
	data []byte
	err  string
}

func opaqueOf(v any) opaque {
	data, err := json.Marshal(v)
	if err != nil {
		return opaque{err: err.Error()}
	}
	return opaque{data: data}
}

// deepCopy copies v, a value of a schema, so that no later change to v
// shows in the copy: maps and slices of JSON values are copied, scalars
// kept, anything else kept as its JSON.
func deepCopy(v any, depth int) any {
	if depth > maxWalk {
		return opaqueOf(v)
	}
	switch x := v.(type) {
	case nil, bool, string, json.Number,
		float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return x
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e, depth+1)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = deepCopy(e, depth+1)
		}
		return s
	case []string:
		if x == nil {
			return x
		}
		return cloneStrings(x)
	case json.RawMessage:
		if x == nil {
			return x
		}
		return json.RawMessage(bytes.Clone(x))
	}
	return opaqueOf(v)
}

// same reports whether v has the content of c, a deepCopy: the same types
// and values (an int and a float64 of one value differ: a change that
// compiles again, never one missed).
func same(v, c any, depth int) bool {
	if depth > maxWalk {
		return sameOpaque(v, c)
	}
	switch x := v.(type) {
	case nil, bool, string, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return v == c
	case float64:
		y, ok := c.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case float32:
		y, ok := c.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case map[string]any:
		y, ok := c.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !same(e, f, depth+1) {
				return false
			}
		}
		return true
	case []any:
		y, ok := c.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case []string:
		y, ok := c.([]string)
		return ok && (x == nil) == (y == nil) && sameStrings(x, y)
	case json.RawMessage:
		y, ok := c.(json.RawMessage)
		return ok && (x == nil) == (y == nil) && bytes.Equal(x, y)
	}
	return sameOpaque(v, c)
}

// sameOpaque reports whether c is the opaque copy of v.
func sameOpaque(v, c any) bool {
	o, ok := c.(opaque)
	if !ok {
		return false
	}
	p := opaqueOf(v)
	return o.err == p.err && bytes.Equal(o.data, p.data)
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append(make([]string, 0, len(s)), s...)
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

package mcpgo

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// validator is one tool's compiled input schema.
type validator struct {
	sch *jsonschemav6.Schema
	// structured: issues go in StructuredContent, since no output schema
	// constrains it (else in _meta, see AddTool).
	structured bool
	// contract is the validation errors' contract_awareness section; nil
	// for none (see withContract).
	contract *envelope.Contract
}

// schemaJSON returns the JSON Schema that arguments of t are validated
// against: t.RawInputSchema when set, else t.InputSchema marshaled. A tool
// with an empty InputSchema (no type, properties or required names) is
// validated against {"type":"object"}: MCP arguments are always an object.
func schemaJSON(t mcp.Tool) ([]byte, error) {
	if len(t.RawInputSchema) > 0 {
		return t.RawInputSchema, nil
	}
	is := t.InputSchema
	if is.Type == "" && len(is.Properties) == 0 && len(is.Required) == 0 && is.AdditionalProperties == nil && len(is.Defs) == 0 {
		return []byte(`{"type":"object"}`), nil
	}
	return json.Marshal(is)
}

// compile compiles t's input schema with the configured options.
func compile(t mcp.Tool, c *toolcall.Config) (*validator, error) {
	data, err := schemaJSON(t)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	sch, err := jsonschemav6.Compile(data, c.SchemaOptions()...)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return &validator{sch: sch, structured: !hasOutputSchema(t)}, nil
}

// withContract sets v's contract_awareness section: t's changes since its
// entry in lock (nil: none).
func (v *validator) withContract(t mcp.Tool, lock *contract.Lock, c *toolcall.Config) error {
	in, out := wireSchemas(t)
	ct, err := c.ToolContract(lock, t.Name, t.Description, in, out)
	if err != nil {
		return fmt.Errorf("contract: %w", err)
	}
	v.contract = ct
	return nil
}

// wireSchemas returns t's input and output schemas as tools/list sends them
// (mcp.Tool's MarshalJSON), the form a lockfile holds; out is nil when t
// declares no output schema.
func wireSchemas(t mcp.Tool) (in, out any) {
	in = t.InputSchema
	if t.RawInputSchema != nil {
		in = t.RawInputSchema
	}
	if t.RawOutputSchema != nil {
		out = t.RawOutputSchema
	} else if t.OutputSchema.Type != "" {
		out = t.OutputSchema
	}
	return in, out
}

func hasOutputSchema(t mcp.Tool) bool {
	return len(t.RawOutputSchema) > 0 || t.OutputSchema.Type != "" || len(t.OutputSchema.Properties) > 0
}

// check validates the arguments of req and returns their issues, or nil
// when they are valid.
//
// The hot path validates the arguments as mcp-go decoded them (the map the
// handler reads with GetArguments or BindArguments), so a valid call costs
// the validation and nothing more. When they are invalid and the wire JSON
// is at hand, the issues come from the same JSON decoded with exact
// numbers, so a model is shown 1e400 or 9007199254740993 as it sent them;
// wire JSON without a number would decode to the same map, and is not
// decoded again.
//
// Arguments nested deeper than the schema's limit (WithMaxDepth) are
// refused by the schema before the library validates them, and the refusal
// is final: the wire JSON is not decoded again for it.
func (v *validator) check(req mcp.CallToolRequest) issues.List {
	raw := req.Params.RawArguments
	switch args := req.Params.Arguments.(type) {
	case map[string]any:
		list := toolcall.Validate(v.sch, args)
		if list == nil || len(raw) == 0 || toolcall.IsDepthRefusal(list) || !hasNumber(raw) {
			return list
		}
		if exact, err := jsonvalue.Decode(raw); err == nil {
			if m, ok := exact.(map[string]any); ok {
				if l := toolcall.Validate(v.sch, m); l != nil {
					return l
				}
			}
		}
		return list
	case nil:
		if len(bytes.TrimSpace(raw)) == 0 {
			return v.absent()
		}
	case json.RawMessage:
		raw = args
	case []byte:
		raw = args
	default:
		if len(raw) == 0 { // a Go caller's value (a struct, a slice …)
			data, err := json.Marshal(args)
			if err != nil {
				return issues.List{{Code: issues.InvalidType, Expected: issues.TypeObject, Input: fmt.Sprintf("%T", args), Source: "mcp:arguments"}}
			}
			raw = data
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return v.absent()
	}
	inst, err := jsonvalue.Decode(raw)
	if err != nil {
		// The adapter's malformed-JSON issue at (root), or its depth issue
		// for JSON deeper than jsonvalue decodes (it checks the bytes first).
		return v.sch.ValidateJSON(raw)
	}
	if _, ok := inst.(map[string]any); !ok {
		return toolcall.NotObject(inst)
	}
	return toolcall.Validate(v.sch, inst)
}

// hasNumber reports whether the JSON text data holds a number outside its
// strings. Without one, decoding it with exact numbers gives what mcp-go
// decoded (numbers are all that json.Number changes), so the issues found
// in mcp-go's map stand and the wire JSON need not be decoded and
// validated again. Outside strings, a digit or a minus sign only appears in
// a number.
func hasNumber(data []byte) bool {
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++ // the escaped byte, a quote included
				}
			}
		case c == '-' || '0' <= c && c <= '9':
			return true
		}
	}
	return false
}

// absent validates missing arguments as {}: a tool without required
// arguments may be called without any. When {} is invalid the answer also
// says at (root) that the arguments are missing.
func (v *validator) absent() issues.List {
	list := v.sch.Validate(map[string]any{})
	if list == nil {
		return nil
	}
	return toolcall.Absent(list)
}

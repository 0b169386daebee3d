package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// AddTool adds a tool and its typed handler to s, as mcp.AddTool does, with
// selfheal answering every failure:
//
//   - the tool's input schema is t.InputSchema, or else the schema go-sdk
//     infers from In (jsonschema.ForType, exactly as mcp.AddTool does), and
//     the output schema likewise from Out; tools/list advertises the same
//     tool mcp.AddTool would;
//   - the input schema is compiled once, here, with jsonschemav6. Like
//     mcp.AddTool, AddTool panics when a schema cannot be inferred, resolved
//     or compiled: a registration error is a programming error, found at
//     startup (use Handler to get it as an error instead);
//   - per call, the arguments are validated against it and every failure is
//     reported in one validation_error (see below); the handler is not
//     called. Absent arguments are validated as {} (a tool without
//     required arguments may be called without any), and when that fails the
//     answer also says at (root) that the arguments are missing. Arguments
//     that are not a JSON object, or not JSON, are a validation_error at
//     (root). Arguments nested deeper than WithMaxDepth (64 levels by
//     default) are refused before they are validated, with one issue;
//   - with WithContract, the tool as tools/list shows it is compared here
//     with its entry in the lockfile, and its validation errors carry the
//     BREAKING and RISKY changes in a <contract_awareness> section;
//   - valid arguments get the schema's property defaults, as in go-sdk, and
//     are decoded into In with go-sdk's decoder (case-sensitive field names);
//   - then WithGuard's guard, if any, admits or sheds the call;
//   - the handler's result is sent as mcp.AddTool sends it (Out as
//     structured content and JSON text, validated against the output
//     schema), except for errors: an envelope (*envelope.Builder,
//     envelope.ToolError or *envelope.ToolError, also found wrapped in the
//     error) becomes its tool_error text, IsError from its severity; any
//     other error, and a panic, becomes INTERNAL_ERROR (envelope.Wrap,
//     envelope.FromPanic), the raw error going to the WithLogger logger
//     only. A *jsonrpc.Error is still returned as a protocol error.
//
// For invalid arguments the client receives IsError true, the
// validation_error text as the only content block, and the issues as
// {"issues": [...]}, each in Zod v4's issue JSON without the values sent:
// in structuredContent, or in _meta under "selfheal/issues" when the tool
// declares an output schema (clients check structuredContent against it
// even on errors). [WithEngine] says in which language.
//
// A warning rides on a success: return the result and output as usual with
// an envelope of severity warning as the error,
//
//	return nil, out, envelope.Error(envelope.Deprecated, "…").Warning()
//
// and the client gets IsError false, the output, and the warning's
// tool_error text as a last content block.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...Option) {
	tt, th, err := Handler(t, h, opts...)
	if err != nil {
		panic(fmt.Sprintf("gosdk.AddTool: tool %q: %v", t.Name, err))
	}
	s.AddTool(tt, th)
}

// Handler returns the handler AddTool registers for t, with the tool as
// AddTool advertises it (its schemas inferred as mcp.AddTool would), or the
// error for which AddTool would panic. It is for servers that register
// tools themselves with Server.AddTool, or call the handler directly in
// tests; package mcp/mcpgo's Handler is the same for mcp-go. t is not
// modified.
func Handler[In, Out any](t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...Option) (*mcp.Tool, mcp.ToolHandler, error) {
	tt := *t
	st := &tool[In, Out]{cfg: config(opts), name: t.Name, h: h}

	// As go-sdk's toolForErr: an "any" input is an empty object schema.
	if reflect.TypeFor[In]() == reflect.TypeFor[any]() && tt.InputSchema == nil {
		tt.InputSchema = &jsonschema.Schema{Type: "object"}
	}
	resolved, err := resolve[In](&tt.InputSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if tt.OutputSchema != nil || reflect.TypeFor[Out]() != reflect.TypeFor[any]() {
		out, err := resolve[Out](&tt.OutputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("output schema: %w", err)
		}
		st.output = out
		st.structuredErrors = false
		if rt := reflect.TypeFor[Out](); t.OutputSchema == nil && rt.Kind() == reflect.Pointer {
			st.elemZero = reflect.Zero(rt.Elem()).Interface()
		}
	} else {
		st.structuredErrors = true
	}
	if st.in, err = compileInput(tt.InputSchema, resolved, st.cfg.SchemaOptions()); err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	if st.contract, err = st.cfg.ToolContract(st.cfg.Lock(), tt.Name, tt.Description, tt.InputSchema, tt.OutputSchema); err != nil {
		return nil, nil, fmt.Errorf("contract: %w", err)
	}
	return &tt, st.handle, nil
}

// resolve sets *field to the schema inferred from T when it is nil, as
// go-sdk's setSchema does, and resolves it with go-sdk's options.
func resolve[T any](field *any) (*jsonschema.Resolved, error) {
	var s *jsonschema.Schema
	switch v := (*field).(type) {
	case nil:
		rt := reflect.TypeFor[T]()
		if rt.Kind() == reflect.Pointer {
			rt = rt.Elem()
		}
		var err error
		if s, err = jsonschema.ForType(rt, &jsonschema.ForOptions{}); err != nil {
			return nil, err
		}
		*field = s
	case *jsonschema.Schema:
		s = v
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, err
		}
	}
	if s == nil {
		return nil, fmt.Errorf("schema is nil for type %v", reflect.TypeFor[T]())
	}
	return s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
}

// hasDefaults reports whether go-sdk's ApplyDefaults could change an
// instance of s: a property, at any depth of properties, has a default.
func hasDefaults(s *jsonschema.Schema, depth int) bool {
	if s == nil || depth > 64 {
		return false
	}
	for _, p := range s.Properties {
		if p != nil && (p.Default != nil || hasDefaults(p, depth+1)) {
			return true
		}
	}
	return false
}

// tool is one registered tool: its compiled schemas and handler.
type tool[In, Out any] struct {
	cfg      *toolcall.Config
	name     string
	h        mcp.ToolHandlerFor[In, Out]
	in       input
	output   *jsonschema.Resolved // nil when the tool has no output schema
	elemZero any                  // Out's element zero value when Out is an inferred pointer
	contract *envelope.Contract   // the validation errors' contract_awareness section; nil for none
	// structuredErrors: issues go in StructuredContent, since no output
	// schema constrains it (else in _meta, see AddTool).
	structuredErrors bool
}

// handle is the mcp.ToolHandler registered for the tool.
func (st *tool[In, Out]) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if req.Params != nil {
		raw = req.Params.Arguments
	}
	data, list := st.in.arguments(raw)
	if list != nil {
		return validationResult(ctx, st.cfg, req, st.name, list, st.structuredErrors, st.contract), nil
	}
	if g := st.cfg.GuardFor(st.name); g != nil {
		release, te := g.Acquire(ctx)
		if te != nil {
			return errorResult(req, *te, te), nil
		}
		defer release()
	}
	var in In
	if _, err := segjson.Parse(data, &in, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		// Valid under the schema, yet not decodable into In: a value out
		// of a Go type's range, or a schema that does not describe In.
		if list := decodeIssues[In](data); list != nil {
			return validationResult(ctx, st.cfg, req, st.name, list, st.structuredErrors, st.contract), nil
		}
		st.cfg.Logger.ErrorContext(ctx, "selfheal: arguments valid under the schema do not decode into the input type",
			"tool", st.name, "type", reflect.TypeFor[In]().String(), "error", err)
		return errorResult(req, envelope.Wrap(nil), err), nil
	}
	st.cfg.Accepted(sessionOf(req), st.name) // the arguments' outcome: valid
	return st.run(ctx, req, in)
}

// input is a tool's compiled input schema.
type input struct {
	sch      *jsonschemav6.Schema
	defaults *jsonschema.Resolved // nil when the schema has no property defaults
}

// compileInput compiles the input schema (as Tool.InputSchema holds it) with
// jsonschemav6; resolved, when given, supplies go-sdk's property defaults.
func compileInput(schema any, resolved *jsonschema.Resolved, opts []jsonschemav6.Option) (input, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return input{}, err
	}
	sch, err := jsonschemav6.Compile(data, opts...)
	if err != nil {
		return input{}, err
	}
	if resolved == nil {
		var s *jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil || s == nil {
			return input{sch: sch}, nil // no go-sdk defaults then
		}
		if resolved, err = s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
			return input{sch: sch}, nil
		}
	}
	in := input{sch: sch}
	if hasDefaults(resolved.Schema(), 0) {
		in.defaults = resolved
	}
	return in, nil
}

// arguments validates the raw arguments. It returns the JSON to decode into
// In (the arguments, or {} and the defaults applied) or the issues.
func (st input) arguments(raw json.RawMessage) ([]byte, issues.List) {
	absent := len(bytes.TrimSpace(raw)) == 0
	var inst any
	if absent {
		inst = map[string]any{}
	} else {
		var err error
		if inst, err = jsonvalue.Decode(raw); err != nil {
			// The adapter's malformed-JSON issue, or its depth issue for
			// JSON deeper than jsonvalue decodes (it checks the bytes first).
			return nil, st.sch.ValidateJSON(raw)
		}
		if _, ok := inst.(map[string]any); !ok {
			return nil, toolcall.NotObject(inst)
		}
	}
	if st.defaults != nil {
		// Defaults fill in what the model left out: "dryrun" sent for
		// "dryRun", which has a default, is a near miss only in the
		// arguments as sent (see WithTypos). Found there, they are the
		// answer, with whatever else is wrong with them.
		if st.sch.AppendNearMisses(nil, inst) != nil {
			return nil, st.sch.Validate(inst)
		}
		if err := st.defaults.ApplyDefaults(&inst); err != nil {
			return nil, issues.List{{Code: issues.Custom, Message: err.Error(), Input: inst, Source: "mcp:defaults"}}
		}
	}
	// Validate refuses nesting past the limit before the library sees it.
	if list := toolcall.Validate(st.sch, inst); list != nil {
		if absent {
			list = toolcall.Absent(list)
		}
		return nil, list
	}
	if absent || st.defaults != nil {
		data, err := json.Marshal(inst)
		if err != nil {
			return nil, issues.List{{Code: issues.Custom, Message: err.Error(), Input: inst, Source: "mcp:defaults"}}
		}
		return data, nil
	}
	return raw, nil
}

// decodeIssues returns what stops data from decoding into In, leaving out
// keys In does not have (the schema allowed them; go-sdk ignores them).
func decodeIssues[In any](data []byte) issues.List {
	var in In
	list, _ := jsondecode.Issues(jsondecode.Decode(data, &in))
	var out issues.List
	for _, is := range list {
		if is.Code != issues.UnrecognizedKeys {
			out = append(out, is)
		}
	}
	return out
}

// run calls the handler and turns what it returns into the result.
func (st *tool[In, Out]) run(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, _ error) {
	defer func() {
		if v := recover(); v != nil {
			st.cfg.Logger.ErrorContext(ctx, "selfheal: tool handler panicked",
				"tool", st.name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			te := envelope.FromPanic(v)
			res = errorResult(req, te, te)
		}
	}()
	res, out, err := st.h(ctx, req, in)
	var warning *envelope.ToolError
	if err != nil {
		if wireErr, ok := err.(*jsonrpc.Error); ok {
			return nil, wireErr // a protocol error, as in go-sdk
		}
		te, ok := toolcall.AsToolError(err)
		if !ok {
			st.cfg.Logger.ErrorContext(ctx, "selfheal: tool handler failed", "tool", st.name, "error", err)
		}
		if te.IsError() {
			return errorResult(req, te, err), nil
		}
		warning = &te
	}
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	var outval any = out
	if res.InputRequests != nil {
		outval = nil
	} else if st.elemZero != nil {
		var z Out
		if any(out) == any(z) {
			outval = st.elemZero
		}
	}
	if outval != nil {
		outJSON, err := st.outputJSON(outval)
		if err != nil {
			st.cfg.Logger.ErrorContext(ctx, "selfheal: tool output does not match its output schema", "tool", st.name, "error", err)
			return errorResult(req, envelope.Wrap(nil), err), nil
		}
		res.StructuredContent = outJSON
		if res.Content == nil {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(outJSON)}}
		} else if !isObjectJSON(outJSON) {
			res.Content = append(res.Content, &mcp.TextContent{Text: string(outJSON)})
		}
	}
	if warning != nil {
		res.Content = append(res.Content, &mcp.TextContent{Text: warning.String()})
	}
	return res, nil
}

// outputJSON marshals the output and validates it against the output
// schema, applying its defaults, as go-sdk does.
func (st *tool[In, Out]) outputJSON(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshaling output: %w", err)
	}
	if st.output == nil {
		return data, nil
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return nil, err
	}
	applied := false
	if _, ok := inst.(map[string]any); ok {
		applied = true
	} else if inst == nil && st.output.Schema().Type == "object" {
		inst, applied = map[string]any{}, true
	}
	if applied {
		if err := st.output.ApplyDefaults(&inst); err != nil {
			return nil, err
		}
	}
	if err := st.output.Validate(&inst); err != nil {
		return nil, err
	}
	if !applied {
		return data, nil
	}
	return json.Marshal(inst)
}

// isObjectJSON reports whether data starts with '{' after white space.
func isObjectJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

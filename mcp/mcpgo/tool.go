package mcpgo

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// AddTool adds a tool and its handler to s, as s.AddTool does, with
// selfheal answering every failure:
//
//   - the tool's input schema (RawInputSchema when set, else InputSchema,
//     {"type":"object"} when that is empty: MCP arguments are always an
//     object) is compiled once, here, with jsonschemav6. AddTool
//     panics when it does not compile, as s.AddTool panics on an invalid
//     tool definition: a registration error is found at startup (use
//     Handler to get it as an error instead). When s changes the schema at
//     registration (WithStrictInputSchemaDefault), the schema s stores is
//     the one validated against;
//   - per call, the arguments are validated against it and every failure is
//     reported in one validation_error (see below); the handler is not
//     called. Absent arguments are validated as {} (a tool without
//     required arguments may be called without any), and when that fails
//     the answer also says at (root) that the arguments are missing.
//     Arguments that are not a JSON object, or not JSON, are a
//     validation_error at (root);
//   - with WithContract, the tool is compared here with its entry in the
//     lockfile, and its validation errors carry the BREAKING and RISKY
//     changes in a <contract_awareness> section;
//   - then WithGuard's guard, if any, admits or refuses the call;
//   - the handler's result is sent unchanged, except for errors: an
//     envelope (*envelope.Builder, envelope.ToolError or
//     *envelope.ToolError, also found wrapped in the error) becomes its
//     tool_error text, IsError from its severity; any other error, and a
//     panic, becomes INTERNAL_ERROR (envelope.Wrap, envelope.FromPanic), the
//     raw error going to the WithLogger logger only. An
//     mcp.URLElicitationRequiredError is still returned as mcp-go's protocol
//     error.
//
// For invalid arguments the client receives IsError true, the
// validation_error text as the only content block, and the issues as
// {"issues": [...]}, each in Zod v4's issue JSON without the values sent:
// in StructuredContent, or in _meta under "selfheal/issues" when the tool
// declares an output schema (clients check structuredContent against it
// even on errors). [WithEngine] says in which language. A valid call costs
// the schema validation of the arguments mcp-go already decoded, and
// nothing else.
//
// A warning rides on a success: return the result as usual with an envelope
// of severity warning as the error,
//
//	return mcp.NewToolResultText("…"), envelope.Error(envelope.Deprecated, "…").Warning()
//
// and the client gets the result, IsError false, with the warning's
// tool_error text as a last content block.
//
// s must not have been created with server.WithInputSchemaValidation: that
// validation runs before any handler or middleware, so invalid arguments
// would never reach selfheal. AddTool logs an error (WithLogger) when it is
// on; Check returns it as an error.
func AddTool(s *server.MCPServer, tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) {
	c := config(opts)
	t, err := newTool(tool, h, c)
	if err != nil {
		panic(fmt.Sprintf("mcpgo.AddTool: tool %q: %v", tool.Name, err))
	}
	s.AddTool(tool, t.handle)
	if err := checkValidation(s); err != nil {
		c.Logger.Error("selfheal: "+err.Error(), "tool", tool.Name)
	}
	// The server may have rewritten the schema (WithStrictInputSchemaDefault):
	// validate against what it stores and advertises.
	if st := s.GetTool(tool.Name); st != nil && !sameSchema(st.Tool, tool) {
		if v, err := compile(st.Tool, c); err == nil {
			if err := v.withContract(st.Tool, t.lock, c); err != nil {
				c.Logger.Error("selfheal: cannot compare the tool the server stores with the lockfile", "tool", tool.Name, "error", err)
			}
			t.v.Store(v)
		} else {
			c.Logger.Error("selfheal: the input schema the server stores does not compile", "tool", tool.Name, "error", err)
		}
	}
}

// Handler returns the handler AddTool registers for tool: h behind the
// validation, guard and error handling AddTool describes, or the error for
// which AddTool would panic. It is for servers that register tools
// themselves (s.AddTools, session tools) or call the handler directly in
// tests. Register it with the same tool: its schema is the one validated.
func Handler(tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) (server.ToolHandlerFunc, error) {
	t, err := newTool(tool, h, config(opts))
	if err != nil {
		return nil, err
	}
	return t.handle, nil
}

// sameSchema reports whether a and b validate against the same schema.
func sameSchema(a, b mcp.Tool) bool {
	x, err1 := schemaJSON(a)
	y, err2 := schemaJSON(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// tool is one registered tool: its compiled schema, handler and options.
type tool struct {
	name string
	c    *toolcall.Config
	h    server.ToolHandlerFunc
	v    atomic.Pointer[validator]
	lock *contract.Lock // nil: no contract awareness
}

func newTool(t mcp.Tool, h server.ToolHandlerFunc, c *toolcall.Config) (*tool, error) {
	if h == nil {
		return nil, fmt.Errorf("nil handler")
	}
	v, err := compile(t, c)
	if err != nil {
		return nil, err
	}
	lock := c.Lock()
	if err := v.withContract(t, lock, c); err != nil {
		return nil, err
	}
	st := &tool{name: t.Name, c: c, h: h, lock: lock}
	st.v.Store(v)
	return st, nil
}

// handle is the server.ToolHandlerFunc registered for the tool.
func (t *tool) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return serve(ctx, t.c, req, t.name, t.v.Load(), t.h)
}

// serve validates, guards and runs one call of the tool named name. v may
// be nil (no usable schema: not validated).
func serve(ctx context.Context, c *toolcall.Config, req mcp.CallToolRequest, name string, v *validator, h server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	if v != nil {
		if list := v.check(req); list != nil {
			return validationResult(ctx, c, req, name, list, v.structured, v.contract), nil
		}
	}
	if g := c.GuardFor(name); g != nil {
		release, te := g.Acquire(ctx)
		if te != nil {
			return toolErrorResult(*te), nil
		}
		defer release()
	}
	if v != nil {
		c.Accepted(sessionOf(ctx), name) // the arguments' outcome: valid
	}
	return run(ctx, c, req, name, h)
}

// run calls the handler and turns what it returns into the result.
func run(ctx context.Context, c *toolcall.Config, req mcp.CallToolRequest, name string, h server.ToolHandlerFunc) (res *mcp.CallToolResult, err error) {
	defer func() {
		if v := recover(); v != nil {
			c.Logger.ErrorContext(ctx, "selfheal: tool handler panicked",
				"tool", name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			res, err = toolErrorResult(envelope.FromPanic(v)), nil
		}
	}()
	res, err = h(ctx, req)
	if err == nil {
		return res, nil
	}
	if isProtocolError(err) {
		return res, err
	}
	te, ok := toolcall.AsToolError(err)
	if !ok {
		c.Logger.ErrorContext(ctx, "selfheal: tool handler failed", "tool", name, "error", err)
	}
	if te.IsError() || res == nil {
		return toolErrorResult(te), nil // a lone warning: IsError false
	}
	res.Content = append(res.Content, mcp.TextContent{Type: mcp.ContentTypeText, Text: te.String()})
	return res, nil
}

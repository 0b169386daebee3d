package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// sdkValidationPrefix starts the error go-sdk's typed handlers set when the
// arguments fail the input schema (or are not a JSON object).
const sdkValidationPrefix = `validating "arguments": `

// Middleware returns a receiving middleware for servers that keep
// registering tools with mcp.AddTool:
//
//	server.AddReceivingMiddleware(gosdk.Middleware())
//
// On tools/call it first refuses arguments nested deeper than WithMaxDepth
// (64 levels by default) with a validation_error, before go-sdk validates
// them or the handler runs. That costs one pass over the arguments' bytes,
// and a valid call nothing more: it leaves a success alone and rewrites
// three kinds of failure:
//
//   - go-sdk's own argument validation failure (its one flattened string,
//     first error only) becomes selfheal's validation_error with every
//     issue, as AddTool answers it: the same arguments are validated
//     against the same tool's input schema, as tools/list advertises it,
//     compiled with jsonschemav6 on the first failure and cached per
//     tool name until another tool is registered under it. Should
//     selfheal find nothing wrong where go-sdk did, go-sdk's answer is
//     kept;
//   - a handler error holding an envelope (envelope.Error(...), a
//     ToolError) becomes its tool_error text, IsError from its severity
//     (with mcp.AddTool a warning returned as the error has already lost the
//     output: register with AddTool for warnings);
//   - a handler panic (go-sdk does not recover one) becomes INTERNAL_ERROR,
//     the panic and its stack going to the logger.
//
// With WithContract, the rewritten validation_error carries the tool's
// <contract_awareness> section, computed when its schema is compiled. Other handler errors keep go-sdk's text.
//
// WithGuard bounds the calls of every tool, or, given names, those of one
// tool (over WithGuard): a call the guard refuses is answered with its
// SERVER_BUSY, RATE_LIMITED or TIMEOUT tool_error and the handler does not
// run, unless its arguments are invalid: then it gets its
// validation_error, as with AddTool. As go-sdk validates the arguments
// after the middleware, an invalid call the guard admits holds its slot
// (and has used a token of the rate) while go-sdk rejects it.
func Middleware(opts ...Option) mcp.Middleware {
	m := &middleware{cfg: config(opts)}
	m.lock = m.cfg.Lock()
	return m.wrap
}

type middleware struct {
	cfg   *toolcall.Config
	lock  *contract.Lock // nil: no contract awareness
	cache sync.Map       // tool name → *compiled
}

// compiled is a registered tool's schema, compiled on its first failure.
type compiled struct {
	// tool is the tool it was compiled for, held so that its address is
	// never another tool's; go-sdk forbids changing a tool once added.
	tool *mcp.Tool
	// from is that tool's content (see toolContent), for a tool listed
	// as a copy by a middleware between this one and the server.
	from       []byte
	in         input
	structured bool               // no output schema: issues go in structuredContent
	contract   *envelope.Contract // the contract_awareness section; nil for none
	err        error              // the schema did not compile
}

func (m *middleware) wrap(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		creq, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok {
			return next(ctx, method, req)
		}
		if res := m.tooDeep(ctx, next, creq); res != nil {
			return res, nil
		}
		if g := m.guardFor(creq); g != nil {
			release, te := g.Acquire(ctx)
			if te != nil {
				if v := m.validate(ctx, next, creq); v != nil {
					return v, nil
				}
				return errorResult(creq, *te, te), nil
			}
			defer release()
		}
		res, err := m.call(ctx, next, method, creq)
		if err != nil {
			return res, err
		}
		r, ok := res.(*mcp.CallToolResult)
		if !ok || r == nil || !r.IsError || r.GetError() == nil {
			m.cfg.Accepted(sessionOf(creq), creq.Params.Name)
			return res, nil
		}
		cause := r.GetError()
		if strings.HasPrefix(cause.Error(), sdkValidationPrefix) {
			if v := m.validate(ctx, next, creq); v != nil {
				return v, nil
			}
			m.cfg.Logger.DebugContext(ctx, "selfheal: keeping go-sdk's answer to arguments selfheal accepts or cannot check",
				"tool", creq.Params.Name)
			return res, nil
		}
		if _, ours := cause.(issues.List); !ours { // else answered by AddTool's handler, and followed there
			m.cfg.Accepted(sessionOf(creq), creq.Params.Name) // the handler ran, and failed for its own reason
		}
		if te, ok := toolcall.AsToolError(cause); ok {
			return errorResult(creq, te, cause), nil
		}
		return res, nil
	}
}

// guardFor returns the guard of the called tool, or nil.
func (m *middleware) guardFor(req *mcp.CallToolRequest) *guard.Guard {
	if req.Params == nil {
		return m.cfg.Guard
	}
	return m.cfg.GuardFor(req.Params.Name)
}

// tooDeep returns the validation_error for arguments nested deeper than
// WithMaxDepth, or nil. It runs before the rest of the chain, so that
// go-sdk's validation (or a handler registered without one) never sees
// them. A call of a tool that the server does not list is left to go-sdk.
func (m *middleware) tooDeep(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) *mcp.CallToolResult {
	if req.Params == nil {
		return nil
	}
	list := toolcall.DepthIssues(req.Params.Arguments, m.cfg.MaxDepth)
	if list == nil {
		return nil
	}
	c := m.schema(ctx, next, req)
	if c == nil {
		return nil
	}
	return validationResult(ctx, m.cfg, req, req.Params.Name, list, c.structured, c.contract)
}

// call runs the rest of the chain, turning a panic into INTERNAL_ERROR.
func (m *middleware) call(ctx context.Context, next mcp.MethodHandler, method string, req *mcp.CallToolRequest) (res mcp.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			m.cfg.Logger.ErrorContext(ctx, "selfheal: tool handler panicked",
				"tool", req.Params.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			te := envelope.FromPanic(v)
			res, err = errorResult(req, te, te), nil
		}
	}()
	return next(ctx, method, req)
}

// validate validates the call's arguments with selfheal and returns the
// validation_error, or nil when it finds nothing wrong or cannot tell.
func (m *middleware) validate(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) *mcp.CallToolResult {
	if req.Params == nil {
		return nil
	}
	c := m.schema(ctx, next, req)
	if c == nil || c.err != nil {
		return nil
	}
	_, list := c.in.arguments(req.Params.Arguments)
	if list == nil {
		return nil
	}
	return validationResult(ctx, m.cfg, req, req.Params.Name, list, c.structured, c.contract)
}

// schema finds the called tool as tools/list shows it, through the rest of
// the chain, and returns its compiled schema (see compile).
func (m *middleware) schema(ctx context.Context, next mcp.MethodHandler, req *mcp.CallToolRequest) *compiled {
	var cursor string
	for range 1000 { // pages; a bound against a server that loops
		lr, err := next(ctx, "tools/list", &mcp.ListToolsRequest{
			Session: req.Session, Extra: req.Extra, Params: &mcp.ListToolsParams{Cursor: cursor},
		})
		if err != nil {
			m.cfg.Logger.WarnContext(ctx, "selfheal: cannot list tools to re-validate arguments", "error", err)
			return nil
		}
		list, ok := lr.(*mcp.ListToolsResult)
		if !ok || list == nil {
			return nil
		}
		for _, t := range list.Tools {
			if t != nil && t.Name == req.Params.Name {
				return m.compile(ctx, t)
			}
		}
		if list.NextCursor == "" {
			return nil
		}
		cursor = list.NextCursor
	}
	return nil
}

// compile returns t's compiled schema. Each tool name has one entry, for
// the tool last seen under it: the registered tool itself, or one with the
// same content; another tool replaces it.
func (m *middleware) compile(ctx context.Context, t *mcp.Tool) *compiled {
	v, ok := m.cache.Load(t.Name)
	if ok && v.(*compiled).tool == t {
		return v.(*compiled)
	}
	from := toolContent(t)
	if ok && bytes.Equal(v.(*compiled).from, from) {
		return v.(*compiled)
	}
	in, err := compileInput(t.InputSchema, nil, m.cfg.SchemaOptions())
	if err != nil {
		m.cfg.Logger.WarnContext(ctx, "selfheal: the tool's input schema does not compile; keeping go-sdk's answer",
			"tool", t.Name, "error", err)
	}
	c := &compiled{tool: t, from: from, in: in, structured: t.OutputSchema == nil, err: err}
	if err == nil {
		if c.contract, err = m.cfg.ToolContract(m.lock, t.Name, t.Description, t.InputSchema, t.OutputSchema); err != nil {
			m.cfg.Logger.WarnContext(ctx, "selfheal: cannot compare the tool with the lockfile", "tool", t.Name, "error", err)
		}
	}
	m.cache.Store(t.Name, c)
	return c
}

// toolContent is what t's compiled schema depends on, as JSON: its
// description and its input and output schemas (or the error of marshaling
// them).
func toolContent(t *mcp.Tool) []byte {
	data, err := json.Marshal(struct {
		Description string `json:"d"`
		In          any    `json:"i"`
		Out         any    `json:"o"`
	}{t.Description, t.InputSchema, t.OutputSchema})
	if err != nil {
		return []byte("\x00" + err.Error()) // no JSON starts with a NUL
	}
	return data
}

package mcpgo

import (
	"context"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// Middleware returns a tool handler middleware that does for every tool of
// a server what AddTool does for one: validate the arguments against the
// tool's input schema before the handler, apply the guards, and answer
// errors and panics with envelopes. Install it once:
//
//	s := server.NewMCPServer("billing", "1.0.0")
//	s.Use(mcpgo.Middleware(mcpgo.WithLogger(logger)))
//
// or with server.WithToolHandlerMiddleware. Put it last (innermost) when
// other middleware should see its results, first when it should catch their
// panics too.
//
// The tool is looked up per call (the session's tools first, then the
// server's, as mcp-go does) and its schema compiled on first use and cached
// until the tool is registered again with another schema. A schema that
// does not compile is logged once and the tool runs unvalidated, as with
// mcp-go's own validation; Check finds such schemas at startup. AddTool is
// cheaper per call (no lookup, the schema compiled at registration); do not
// use both for one tool, or its arguments are validated twice.
//
// With WithContract, a tool's validation errors carry its
// <contract_awareness> section, computed when its schema is compiled.
//
// The server must not be created with server.WithInputSchemaValidation:
// that validation runs before any middleware, so invalid arguments would
// never reach this one. Middleware logs an error (WithLogger) on the first
// call of a server where it is on; Check returns it as an error.
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	m := &middleware{c: toolcall.NewConfig(opts)}
	m.lock = m.c.Lock()
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return m.serve(ctx, req, next)
		}
	}
}

type middleware struct {
	c       *toolcall.Config
	lock    *contract.Lock // nil: no contract awareness
	tools   sync.Map       // tool name → *cached
	servers sync.Map       // *server.MCPServer → struct{}: checked for WithInputSchemaValidation
}

// cached is a tool's compiled schema and what it was compiled from.
type cached struct {
	fp fingerprint
	v  *validator // nil when the schema does not compile
}

func (m *middleware) serve(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	s := server.ServerFromContext(ctx)
	if s != nil {
		if _, seen := m.servers.Load(s); !seen {
			if _, seen := m.servers.LoadOrStore(s, struct{}{}); !seen {
				if err := checkValidation(s); err != nil {
					m.c.Logger.ErrorContext(ctx, "selfheal: "+err.Error())
				}
			}
		}
	}
	var v *validator
	if t, ok := lookupTool(ctx, s, name); ok {
		v = m.validator(ctx, t)
	}
	return serve(ctx, m.c, req, name, v, next)
}

// lookupTool finds the tool a call addresses as mcp-go does: the session's
// own tools first, then the server's.
func lookupTool(ctx context.Context, s *server.MCPServer, name string) (mcp.Tool, bool) {
	if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if t, ok := sess.GetSessionTools()[name]; ok {
			return t.Tool, true
		}
	}
	if s != nil {
		if t := s.GetTool(name); t != nil {
			return t.Tool, true
		}
	}
	return mcp.Tool{}, false
}

// validator returns t's compiled schema, compiling it on first use or when
// the tool's schema changed.
func (m *middleware) validator(ctx context.Context, t mcp.Tool) *validator {
	fp := fingerprintOf(t)
	if e, ok := m.tools.Load(t.Name); ok && e.(*cached).fp == fp {
		return e.(*cached).v
	}
	v, err := compile(t, m.c)
	if err != nil {
		m.c.Logger.ErrorContext(ctx, "selfheal: the tool's input schema does not compile; its arguments are not validated",
			"tool", t.Name, "error", err)
	} else if err := v.withContract(t, m.lock, m.c); err != nil {
		m.c.Logger.WarnContext(ctx, "selfheal: cannot compare the tool with the lockfile", "tool", t.Name, "error", err)
	}
	m.tools.Store(t.Name, &cached{fp: fp, v: v})
	return v
}

// fingerprint identifies a tool's schemas without marshaling them: the
// identity of their slices and maps. A tool registered again with new
// schema values gets a new fingerprint; a schema map changed in place does
// not (register the tool again instead).
type fingerprint struct {
	raw          *byte
	rawLen       int
	typ          string
	props, defs  uintptr
	required     *string
	requiredLen  int
	additional   uintptr
	outputSchema bool
}

func fingerprintOf(t mcp.Tool) fingerprint {
	fp := fingerprint{rawLen: len(t.RawInputSchema), outputSchema: hasOutputSchema(t)}
	if len(t.RawInputSchema) > 0 {
		fp.raw = &t.RawInputSchema[0]
		return fp
	}
	is := t.InputSchema
	fp.typ = is.Type
	fp.props = reflect.ValueOf(is.Properties).Pointer()
	fp.defs = reflect.ValueOf(is.Defs).Pointer()
	if len(is.Required) > 0 {
		fp.required, fp.requiredLen = &is.Required[0], len(is.Required)
	}
	switch a := is.AdditionalProperties.(type) {
	case nil:
	case bool:
		fp.additional = 1
		if a {
			fp.additional = 2
		}
	default:
		if rv := reflect.ValueOf(a); rv.Kind() == reflect.Map || rv.Kind() == reflect.Pointer {
			fp.additional = rv.Pointer()
		} else {
			fp.additional = 3
		}
	}
	return fp
}

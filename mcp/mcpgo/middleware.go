package mcpgo

import (
	"context"
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
// until it changes: each call compares the tool's schema with the one
// compiled, by content (a walk that allocates nothing), so a schema
// changed in place is compiled again too.
// A schema that does not compile is logged once and the tool runs
// unvalidated, as with mcp-go's own validation; Check finds such schemas
// at startup. AddTool is
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
	m := &middleware{c: config(opts)}
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
	from content
	once sync.Once
	v    *validator // nil when the schema does not compile; set by once
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
// the tool's schema changed. A tool is known by its content, never by the
// address of its schema: a schema changed in place, or a new one at the
// address of one garbage collected, is compiled anew. Each tool name holds
// one entry, and each entry is compiled once: concurrent first calls of a
// tool wait for the one compilation, calls of other tools do not.
func (m *middleware) validator(ctx context.Context, t mcp.Tool) *validator {
	c := m.entry(t)
	c.once.Do(func() { c.v = m.compile(ctx, t) })
	return c.v
}

// entry returns the entry of t, replacing one of other content.
func (m *middleware) entry(t mcp.Tool) *cached {
	for {
		e, ok := m.tools.Load(t.Name)
		if ok && e.(*cached).from.is(t) {
			return e.(*cached)
		}
		fresh := &cached{from: contentOf(t, m.lock != nil)}
		if ok && m.tools.CompareAndSwap(t.Name, e, fresh) {
			return fresh
		}
		if !ok {
			if _, loaded := m.tools.LoadOrStore(t.Name, fresh); !loaded {
				return fresh
			}
		}
		// Another call stored an entry meanwhile: look again.
	}
}

// compile compiles t's schema and computes its contract section, logging
// what fails.
func (m *middleware) compile(ctx context.Context, t mcp.Tool) *validator {
	v, err := compile(t, m.c)
	if err != nil {
		m.c.Logger.ErrorContext(ctx, "selfheal: the tool's input schema does not compile; its arguments are not validated",
			"tool", t.Name, "error", err)
		return nil
	}
	if err := v.withContract(t, m.lock, m.c); err != nil {
		m.c.Logger.WarnContext(ctx, "selfheal: cannot compare the tool with the lockfile", "tool", t.Name, "error", err)
	}
	return v
}

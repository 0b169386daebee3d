package mcpgo

import (
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// Option configures AddTool, Handler, Middleware and Check. Package
// mcp/gosdk has the same options, under the same names and with the same
// meaning.
type Option = toolcall.Option

// WithEngine sets the engine that words validation errors (selfheal.New()
// by default). Everything about the wording is the engine's: the server's
// language, the budgets, examples and redaction are set with its options,
//
//	mcpgo.WithEngine(selfheal.New(selfheal.WithLocale("de"), selfheal.WithMaxBytes(2048)))
//
// A client that declares its own language gets the same engine in that
// language (Engine.Locale): a BCP 47 tag ("ja", "de-CH") or an
// Accept-Language value under the _meta key "selfheal/locale" of the
// tools/call request, else the Accept-Language header of an HTTP
// transport. Else the language is e's.
func WithEngine(e *selfheal.Engine) Option { return toolcall.WithEngine(e) }

// WithLogger sets where what the model must not see is logged: a handler's
// plain error, a recovered panic with its stack, a schema that does not
// compile, a misconfigured server (slog.Default() by default).
func WithLogger(l *slog.Logger) Option { return toolcall.WithLogger(l) }

// WithGuard bounds calls with g (see package guard): a call it refuses is
// answered with its SERVER_BUSY, RATE_LIMITED or TIMEOUT tool_error and the
// handler does not run. An invalid call is told what to fix even when the
// guard refuses it. Without tools, g bounds the tool of AddTool and
// Handler, or every tool of Middleware that has no guard of its own; with
// tools, g is the own guard of the tools of those names (a nil g leaves
// them unguarded), over a guard given without names. Share one guard
// between tools to bound them together:
//
//	Middleware(WithGuard(perServer), WithGuard(slow, "export"), WithGuard(nil, "ping"))
func WithGuard(g *guard.Guard, tools ...string) Option { return toolcall.WithGuard(g, tools...) }

// WithSchemaOptions passes options to jsonschemav6.Compile, such as
// jsonschemav6.WithFormatAssertion(false) or a loader for remote $refs.
// Format assertion is on by default: an argument declared "format": "email"
// must be an email.
func WithSchemaOptions(opts ...jsonschemav6.Option) Option {
	return toolcall.WithSchemaOptions(opts...)
}

// WithMaxDepth sets how deeply a call's arguments may nest objects and
// arrays (the arguments object is level 1): deeper arguments are answered
// with a validation_error holding one too_big issue of origin "depth"
// (IsError true), checked on the wire bytes or the decoded arguments before
// any validation, so hostile nesting costs one linear pass. n == 0 means
// issues.DefaultMaxDepth (64), the default; n < 0 turns the check off. It
// replaces a jsonschemav6.WithMaxDepth given to WithSchemaOptions.
//
// mcp-go decodes requests with encoding/json, which refuses nesting deeper
// than 10,000 levels: such a request gets a JSON-RPC parse error from
// mcp-go and never reaches this check.
func WithMaxDepth(n int) Option { return toolcall.WithMaxDepth(n) }

// WithTypos turns on or off the reporting of near misses of declared
// properties (off by default): an argument key the tool's input schema does
// not declare that is a near miss of a declared property not sent
// ("dryrun" for "dryRun", "contents" for "content") is answered with a
// validation_error that says what was meant (IsError true), even when the
// schema is open and would accept the call, since the handler would never
// see the argument it was meant to be. The issue is an unrecognized_keys
// with Check issues.CheckNearMiss (see jsonschemav6.WithTypos); for a
// required property the missing-property issue is kept beside it, and the
// two are one line at the property ("Missing; did you mean 'content'?
// …"). A valid call without one pays a walk of its arguments and no
// allocation. It replaces a jsonschemav6.WithTypos given to
// WithSchemaOptions.
func WithTypos(on bool) Option { return toolcall.WithTypos(on) }

// WithContract makes the validation errors contract-aware: each tool's
// live contract (its name, description and schemas as tools/list shows
// them) is compared at registration (or, for Middleware, when its schema is
// first compiled) with the entry of the same name in l, a known-good
// snapshot of the tools (see package contract and selfheal lock), and every
// validation_error of the tool then carries a <contract_awareness> section
// listing the BREAKING and RISKY changes since l, at most
// WithContractLimit of them. A model that learned the old contract is told
// in the same turn what changed. A tool that l does not know, or with no
// such change, gets no section. nil turns it off. Read the lockfile with
// contract.ReadFile at startup: one that cannot be read is the server's
// error, not one for a model to meet.
func WithContract(l *contract.Lock) Option { return toolcall.WithContract(l) }

// WithContractLimit caps the changes a <contract_awareness> section lists
// (5 by default); the section says how many more there were. n <= 0 lists
// them all.
func WithContractLimit(n int) Option { return toolcall.WithContractLimit(n) }

// engineFor returns the engine in the language the client declared.
func engineFor(c *toolcall.Config, req mcp.CallToolRequest) *selfheal.Engine {
	return c.EngineFor(clientLocale(req))
}

// clientLocale returns the language the client declared for a call, or ""
// when it declared none: the "selfheal/locale" entry of the call's _meta, else the
// Accept-Language header of the HTTP request that carried the call.
func clientLocale(req mcp.CallToolRequest) string {
	if m := req.Params.Meta; m != nil {
		if s := toolcall.MetaLocaleOf(m.AdditionalFields); s != "" {
			return s
		}
	}
	return toolcall.AcceptLanguage(req.Header)
}

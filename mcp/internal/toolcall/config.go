package toolcall

import (
	"log/slog"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/repair"
)

// Config is the SDK-neutral configuration of a tool call: the options of
// both integrations (see Option) and the part of the proxy's that they
// share. It is complete once Init has run.
type Config struct {
	// Engine words validation errors, in its own locale unless the client
	// declares one (see EngineFor); selfheal.New() after Init when unset.
	Engine *selfheal.Engine
	// Logger receives what the model must not see; slog.Default() after
	// Init when unset.
	Logger *slog.Logger
	// Guard bounds the calls of the tool (or tools) configured, except
	// those of a tool with a guard of its own (see GuardFor).
	Guard *guard.Guard
	// toolGuards are the guards of single tools, by name (WithGuard with names).
	toolGuards map[string]*guard.Guard
	// SchemaOpts are passed to jsonschemav6.Compile (through
	// SchemaOptions, which adds MaxDepth).
	SchemaOpts []jsonschemav6.Option
	// MaxDepth is the nesting limit of a call's arguments: 0 for
	// issues.DefaultMaxDepth, negative for none (see SchemaOptions and
	// DepthIssues).
	MaxDepth int
	// Typos, when set, turns the reporting of near misses of declared
	// properties on or off (jsonschemav6.WithTypos, through
	// SchemaOptions), whatever SchemaOpts say; nil leaves SchemaOpts'
	// choice, off unless they turn it on. A pointer, so that the
	// integration's option replaces the schema option only when given.
	Typos *bool
	// Outcomes receives how each answer to a bad call settled (see package
	// repair); nil for none. The proxy follows the answers with a tracker
	// of its own (it writes them to its call log too); the SDK
	// integrations with Repairs.
	Outcomes func(repair.Outcome)
	// Repairs follows the answers of the SDK integrations (see Answered
	// and Accepted): made by WithOutcomes, once for the option, so that
	// the tools given the same options share it and its bounds.
	Repairs *repair.Tracker

	contract contractConfig
}

// Init completes the configuration once the options are applied: the
// engine (selfheal.New() when none was set) and the logger (slog.Default()
// when none was set).
func (c *Config) Init() {
	if c.Engine == nil {
		c.Engine = selfheal.New()
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Answered tells Repairs, if any, that the call of tool in session was
// answered with the issues of list.
func (c *Config) Answered(session, tool string, list issues.List) {
	if c.Repairs == nil {
		return
	}
	_, paths := Summary(list)
	c.Repairs.Answered(session, tool, paths)
}

// Accepted tells Repairs, if any, that a call of tool in session was
// accepted: its arguments were found valid.
func (c *Config) Accepted(session, tool string) {
	if c.Repairs != nil {
		c.Repairs.Accepted(session, tool)
	}
}

// GuardFor returns the guard of the tool named name: its own (see
// WithGuard), else Guard; nil for none.
func (c *Config) GuardFor(name string) *guard.Guard {
	if g, ok := c.toolGuards[name]; ok {
		return g
	}
	return c.Guard
}

// EngineFor returns the engine in the language tag the caller declared, or
// the server's engine for "".
func (c *Config) EngineFor(tag string) *selfheal.Engine {
	if tag == "" {
		return c.Engine
	}
	return c.Engine.Locale(tag)
}

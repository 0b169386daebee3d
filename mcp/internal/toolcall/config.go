package toolcall

import (
	"log/slog"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/mcp/guard"
)

// Config is the SDK-neutral part of an integration's options. Each
// integration embeds it in its own config, sets it through its options and
// calls Init once they are applied.
type Config struct {
	// Engine words validation errors; built by Init from EngineOpts when
	// nil, else switched to Locale when that is set.
	Engine *selfheal.Engine
	// EngineOpts are the options of the engine Init builds.
	EngineOpts []selfheal.Option
	// Locale is the server's language ("" for the engine's).
	Locale string
	// Logger receives what the model must not see; slog.Default() after
	// Init when unset.
	Logger *slog.Logger
	// Guard bounds the calls of the tool (or tools) configured.
	Guard *guard.Guard
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

	contract contractConfig
}

// SetLocale sets the server's language, for an engine built or given.
func (c *Config) SetLocale(tag string) {
	c.Locale = tag
	c.EngineOpts = append(c.EngineOpts, selfheal.WithLocale(tag))
}

// Init completes the configuration once the options are applied: the
// engine and the logger (slog.Default() when none was set).
func (c *Config) Init() {
	if c.Engine == nil {
		c.Engine = selfheal.New(c.EngineOpts...)
	} else if c.Locale != "" {
		c.Engine = c.Engine.Locale(c.Locale)
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// EngineFor returns the engine in the language tag the caller declared, or
// the server's engine for "".
func (c *Config) EngineFor(tag string) *selfheal.Engine {
	if tag == "" {
		return c.Engine
	}
	return c.Engine.Locale(tag)
}

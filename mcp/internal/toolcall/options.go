package toolcall

import (
	"log/slog"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/repair"
)

//go:generate go test -run TestExportedOptions -update

// Option is one option of the MCP integrations. It is defined here once,
// and mcp/gosdk and mcp/mcpgo export it (type Option = toolcall.Option)
// with the constructors below under the same names, so that both accept
// exactly the same options with the same meaning. Those exports and their
// documentation, the one users read, are written once too, in
// exported_options.go.tmpl (with those of CallTool, see clientcall.Option):
// each package's options.go is rendered from it (TestExportedOptions; go
// generate or go test -update rewrites them).
type Option func(*Config)

// NewConfig applies opts (nil ones are skipped) and completes the
// configuration (Init).
func NewConfig(opts []Option) *Config {
	c := &Config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	c.Init()
	return c
}

// WithEngine sets Engine: the engine wording validation errors, its
// locale, budgets, examples and redaction included.
func WithEngine(e *selfheal.Engine) Option {
	return func(c *Config) { c.Engine = e }
}

// WithLogger sets Logger.
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) { c.Logger = l }
}

// WithGuard sets Guard, the guard of every tool without one of its own,
// or, with tools, the own guard of each tool named.
func WithGuard(g *guard.Guard, tools ...string) Option {
	return func(c *Config) {
		if len(tools) == 0 {
			c.Guard = g
			return
		}
		if c.toolGuards == nil {
			c.toolGuards = map[string]*guard.Guard{}
		}
		for _, name := range tools {
			c.toolGuards[name] = g
		}
	}
}

// WithOutcomes sets Outcomes, and Repairs to a tracker reporting to f,
// made here once: every configuration given this option shares it.
func WithOutcomes(f func(repair.Outcome)) Option {
	var tr *repair.Tracker
	if f != nil {
		tr = repair.New(f, repair.Limits{}, nil)
	}
	return func(c *Config) { c.Outcomes, c.Repairs = f, tr }
}

// WithSchemaOptions appends to SchemaOpts.
func WithSchemaOptions(opts ...jsonschemav6.Option) Option {
	return func(c *Config) { c.SchemaOpts = append(c.SchemaOpts, opts...) }
}

// WithMaxDepth sets MaxDepth.
func WithMaxDepth(n int) Option {
	return func(c *Config) { c.MaxDepth = n }
}

// WithTypos sets Typos.
func WithTypos(on bool) Option {
	return func(c *Config) { c.Typos = &on }
}

// WithContract makes validation errors contract-aware against l (nil:
// not); see SetLock.
func WithContract(l *contract.Lock) Option {
	return func(c *Config) { c.SetLock(l) }
}

// WithContractLimit caps the changes of a contract_awareness section; see
// SetContractLimit.
func WithContractLimit(n int) Option {
	return func(c *Config) { c.SetContractLimit(n) }
}

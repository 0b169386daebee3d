package toolcall

import (
	"log/slog"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/guard"
)

// Option is one option of the MCP integrations. It is defined here once,
// and mcp/gosdk and mcp/mcpgo export it (type Option = toolcall.Option)
// with the constructors below under the same names, so that both accept
// exactly the same options with the same meaning. Their documentation, the
// one users read, is on the exported wrappers.
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

// WithGuard sets Guard, the guard of every tool without one of its own.
func WithGuard(g *guard.Guard) Option {
	return func(c *Config) { c.Guard = g }
}

// WithToolGuard gives the tool named name the guard g, over Guard.
func WithToolGuard(name string, g *guard.Guard) Option {
	return func(c *Config) {
		if c.toolGuards == nil {
			c.toolGuards = map[string]*guard.Guard{}
		}
		c.toolGuards[name] = g
	}
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

// WithLockfile makes validation errors contract-aware against the lockfile
// at path, read once, when first needed (see LockfileLoader).
func WithLockfile(path string) Option {
	load := LockfileLoader(path)
	return func(c *Config) { c.SetLockLoader(load) }
}

// WithContractLimit caps the changes of a contract_awareness section; see
// SetContractLimit.
func WithContractLimit(n int) Option {
	return func(c *Config) { c.SetContractLimit(n) }
}

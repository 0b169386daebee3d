package clientcall

// Option is one option of the client helpers. It is defined here once, and
// mcp/gosdk and mcp/mcpgo export it as CallOption (type CallOption =
// clientcall.Option) with WithRetry and WithRetryNonIdempotent under the
// same names; each adapts its SDK's tool annotations with WithHints. Those
// exports and the documentation users read are rendered into each
// package's options.go from mcp/internal/toolcall/exported_options.go.tmpl.
type Option func(*Config)

// NewConfig applies opts in order, skipping nil ones: a nil option from a
// caller's conditional list is no option, not a panic.
func NewConfig(opts []Option) *Config {
	c := &Config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// WithRetry sets Retries.
func WithRetry(max int) Option {
	return func(c *Config) { c.Retries = max }
}

// WithRetryNonIdempotent sets NonIdempotent.
func WithRetryNonIdempotent() Option {
	return func(c *Config) { c.NonIdempotent = true }
}

// WithHints sets Hints, the called tool's annotations as its SDK gives
// them.
func WithHints(h Hints) Option {
	return func(c *Config) { c.Hints = &h }
}

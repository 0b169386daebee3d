package toolcall

import (
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/issues"
)

// SchemaOptions returns the options an integration compiles a tool's input
// schema with: SchemaOpts, then jsonschemav6.WithMaxDepth(MaxDepth) and,
// when Typos is set, jsonschemav6.WithTypos(*Typos). The depth option comes
// last so that the integration's WithMaxDepth is the one limit of the
// tool, whatever SchemaOpts hold: the same limit then guards the bytes
// (DepthIssues) and the decoded arguments (Schema.Validate). The typos
// option comes after SchemaOpts for the same reason.
func (c *Config) SchemaOptions() []jsonschemav6.Option {
	opts := make([]jsonschemav6.Option, 0, len(c.SchemaOpts)+2)
	opts = append(opts, c.SchemaOpts...)
	opts = append(opts, jsonschemav6.WithMaxDepth(c.MaxDepth))
	if c.Typos != nil {
		opts = append(opts, jsonschemav6.WithTypos(*c.Typos))
	}
	return opts
}

// DepthIssues returns the one issue that refuses raw arguments nested
// deeper than max (0: issues.DefaultMaxDepth, negative: no limit), or nil.
// Integrations call it on the wire bytes before decoding them, so that
// hostile nesting costs one linear pass and no validation.
func DepthIssues(raw []byte, max int) issues.List {
	if is, deep := issues.CheckDepthJSON(raw, max); deep {
		return issues.List{is}
	}
	return nil
}

// IsDepthRefusal reports whether list is the answer DepthIssues or a
// schema's depth check gives: the arguments were refused unvalidated.
func IsDepthRefusal(list issues.List) bool {
	return len(list) == 1 && list[0].Origin == issues.OriginDepth
}

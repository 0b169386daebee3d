package jsonschemav5

import (
	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// WithTypos turns on or off the reporting of near misses of declared
// properties (off by default), exactly as
// [github.com/selfheal/selfheal/adapters/jsonschemav6.WithTypos] says.
func WithTypos(on bool) Option {
	return func(c *config) { c.typos = on }
}

// AppendNearMisses appends the near misses of instance (see WithTypos) to
// dst without validating it, and returns dst as it was when there is none
// or WithTypos is off, allocating nothing. A caller that changes the
// instance between receiving and validating it looks here first: one that
// fills in the schema's defaults would otherwise make "dryRun" sent when
// the model sent "dryrun", and the near miss would go unseen.
func (s *Schema) AppendNearMisses(dst issues.List, instance any) issues.List {
	if s.typos == nil {
		return dst
	}
	return schema.Own(dst, nearmiss.Append(dst, len(dst), s.typos, instance))
}

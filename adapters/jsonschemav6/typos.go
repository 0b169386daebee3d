package jsonschemav6

import (
	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// WithTypos turns on or off (off by default) the reporting of undeclared
// keys that are near misses of declared properties not sent ("dryrun" for
// "dryRun": the same name but for ASCII case, '_' and '-', or within the
// formatter's "did you mean" distance), even when the library finds the
// instance valid: an open schema accepts the key and the tool silently
// ignores it, so edit_file with "dryrun": true edits the file for real.
//
// Each such object gets one unrecognized_keys issue with Check
// issues.CheckNearMiss and Source "selfheal:typo", Keys the near-miss keys
// and Allowed the properties they stand for. A key standing for a required
// property keeps the library's missing-property issue beside it; the
// formatter words the two as one line. Objects whose schema refuses
// undeclared keys are left to the library, and records (additionalProperties
// a schema) have entries, not near misses. A valid call with no near miss
// allocates nothing; an error from validating with the library directly has
// no near misses.
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

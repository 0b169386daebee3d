package jsonschemav6

import (
	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// WithTypos turns on or off the reporting of near misses of declared
// properties (off by default). When on, Validate, AppendValidate and
// ValidateJSON also report an undeclared key that is a near miss of a
// declared property that was not sent ("dryrun" for "dryRun", "contents"
// for "content": the same name but for ASCII case, '_' and '-', or within
// the edit distance of the formatter's "did you mean"), even when the
// library finds the instance valid: an open schema (no
// additionalProperties: false) accepts the key and the tool silently
// ignores it, so edit_file with "dryrun": true edits the file for real.
//
// Each object with near misses gets one unrecognized_keys issue with Check
// issues.CheckNearMiss and Source "selfheal:typo": Path and Input the
// object, Keys the near-miss keys (sorted), Allowed the declared properties
// they stand for (each once, in the order of their first key; see
// issues.CheckNearMiss). A key that stands for a required property leaves
// the library's missing-property issue beside it, since the tool refuses
// the call rather than ignore the key (as a closed schema reports the key
// and the missing property); the formatter words the two as one line at
// the property, 'contents' → 'content', rather than two that read as two
// problems.
//
// Objects are looked at where the schema says which subschema applies:
// the arguments, and below them through properties, additionalProperties,
// items and prefixItems, with $ref, allOf, anyOf, oneOf, if/then/else and
// dependent schemas applied in place (the names any of them declares are
// declared). An object whose schemas refuse undeclared keys
// (additionalProperties: false, unevaluatedProperties: false) is left to
// the library, which reports them with the declared names to suggest from;
// one whose additionalProperties or unevaluatedProperties is a schema is a
// record whose undeclared keys are entries, not near misses. Keys matching
// patternProperties are declared (their values are not looked into).
//
// A valid call with no near miss pays one walk over the instance's objects
// and arrays at known subschemas, and allocates nothing. An error from
// validating with the library directly, which selfheal's Engine
// recognises, has no near misses: they are looked for by Validate,
// AppendValidate and ValidateJSON.
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

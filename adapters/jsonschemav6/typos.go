package jsonschemav6

import (
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/nearmiss"
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
// problems. issuesx.HasNearMiss is the rule that finds near misses in a
// list.
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

// typoShape describes sch for the near-miss walk (see package nearmiss),
// nil when there is nothing to look at.
func typoShape(sch *jsonschema.Schema) *nearmiss.Shape {
	return nearmiss.Build(sch, describe)
}

// describe reads what the near-miss walk needs of one subschema: the
// keywords nearmiss.Describe decides on for both versions.
func describe(x *jsonschema.Schema) nearmiss.Node[*jsonschema.Schema] {
	k := nearmiss.Keywords[*jsonschema.Schema]{Location: x.Location,
		Ref: x.Ref, RecursiveRef: x.RecursiveRef, AllOf: x.AllOf, AnyOf: x.AnyOf, OneOf: x.OneOf,
		If: x.If, Then: x.Then, Else: x.Else, DependentSchemas: x.DependentSchemas, Dependencies: x.Dependencies,
		Properties: x.Properties, AdditionalProperties: x.AdditionalProperties,
		PrefixItems: x.PrefixItems, Items: x.Items, AdditionalItems: x.AdditionalItems, Items2020: x.Items2020}
	if x.DynamicRef != nil {
		k.DynamicRef = x.DynamicRef.Ref
	}
	for re := range x.PatternProperties {
		k.Patterns = append(k.Patterns, re)
	}
	if u := x.UnevaluatedProperties; u != nil {
		k.UnevaluatedProperties, k.UnevaluatedBool = u, u.Bool
	}
	return nearmiss.Describe(k)
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
	return own(dst, nearmiss.Append(dst, len(dst), s.typos, instance))
}

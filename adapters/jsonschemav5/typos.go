package jsonschemav5

import (
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// WithTypos turns on or off the reporting of near misses of declared
// properties (off by default), found and reported exactly as
// [github.com/selfheal/selfheal/adapters/jsonschemav6.WithTypos] says: an
// undeclared key that is a near miss of a declared property that was not
// sent ("dryrun" for "dryRun") is an unrecognized_keys issue with Check
// issues.CheckNearMiss and Source "selfheal:typo", even when the library
// finds the instance valid, since an open schema accepts the key and the
// tool silently ignores it.
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
		Ref: x.Ref, RecursiveRef: x.RecursiveRef, DynamicRef: x.DynamicRef,
		AllOf: x.AllOf, AnyOf: x.AnyOf, OneOf: x.OneOf,
		If: x.If, Then: x.Then, Else: x.Else, DependentSchemas: x.DependentSchemas, Dependencies: x.Dependencies,
		Properties: x.Properties, AdditionalProperties: x.AdditionalProperties,
		PrefixItems: x.PrefixItems, Items: x.Items, AdditionalItems: x.AdditionalItems, Items2020: x.Items2020}
	for re := range x.PatternProperties {
		k.Patterns = append(k.Patterns, re)
	}
	if u := x.UnevaluatedProperties; u != nil {
		k.UnevaluatedProperties, k.UnevaluatedBool = u, u.Always
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

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

// describe reads what the near-miss walk needs of one subschema.
func describe(x *jsonschema.Schema) nearmiss.Node[*jsonschema.Schema] {
	n := nearmiss.Node[*jsonschema.Schema]{
		Location:   x.Location,
		Sure:       append([]*jsonschema.Schema{x.Ref, x.RecursiveRef, x.DynamicRef}, x.AllOf...),
		Branches:   append([]*jsonschema.Schema{x.If, x.Then, x.Else}, x.AnyOf...),
		Properties: x.Properties,
		Prefix:     x.PrefixItems,
	}
	n.Branches = append(n.Branches, x.OneOf...)
	for _, y := range x.DependentSchemas {
		n.Branches = append(n.Branches, y)
	}
	for _, d := range x.Dependencies {
		if y, ok := d.(*jsonschema.Schema); ok {
			n.Branches = append(n.Branches, y)
		}
	}
	for re := range x.PatternProperties {
		n.Patterns = append(n.Patterns, re)
	}
	switch ap := x.AdditionalProperties.(type) {
	case bool:
		n.Refuses = !ap
	case *jsonschema.Schema:
		n.Extra = append(n.Extra, ap)
	}
	if u := x.UnevaluatedProperties; u != nil {
		switch {
		case u.Always == nil:
			n.Extra = append(n.Extra, u)
		case !*u.Always:
			n.Refuses = true
		}
	}
	switch it := x.Items.(type) {
	case *jsonschema.Schema:
		n.Items = append(n.Items, it)
	case []*jsonschema.Schema:
		n.Prefix = it
		if ai, ok := x.AdditionalItems.(*jsonschema.Schema); ok {
			n.Items = append(n.Items, ai)
		}
	}
	if x.Items2020 != nil {
		n.Items = append(n.Items, x.Items2020)
	}
	return n
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

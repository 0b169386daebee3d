package nearmiss

// Keywords are the keywords of one compiled subschema that Describe reads,
// as an adapter copies them from its library, whose schemas are of type S:
// the library's own values, so that one code decides for both versions
// which subschemas apply where.
type Keywords[S comparable] struct {
	Location string
	// The subschemas applied to the same value.
	Ref, RecursiveRef, DynamicRef S
	AllOf, AnyOf, OneOf           []S
	If, Then, Else                S
	DependentSchemas              map[string]S
	Dependencies                  map[string]any // an S, or the names a property requires
	// The object's keywords.
	Properties           map[string]S
	Patterns             []Matcher // the patternProperties
	AdditionalProperties any       // a bool or an S
	// UnevaluatedProperties is the schema, and UnevaluatedBool its value
	// when it is true or false.
	UnevaluatedProperties S
	UnevaluatedBool       *bool
	// The array's keywords.
	PrefixItems     []S
	Items           any // an S, or an []S (before draft 2020-12)
	AdditionalItems any // a bool or an S
	Items2020       S
}

// Describe reads k into what Build walks.
func Describe[S comparable](k Keywords[S]) Node[S] {
	var none S
	n := Node[S]{
		Location:   k.Location,
		Sure:       append([]S{k.Ref, k.RecursiveRef, k.DynamicRef}, k.AllOf...),
		Branches:   append([]S{k.If, k.Then, k.Else}, k.AnyOf...),
		Properties: k.Properties,
		Patterns:   k.Patterns,
		Prefix:     k.PrefixItems,
	}
	n.Branches = append(n.Branches, k.OneOf...)
	for _, y := range k.DependentSchemas {
		n.Branches = append(n.Branches, y)
	}
	for _, d := range k.Dependencies {
		if y, ok := d.(S); ok {
			n.Branches = append(n.Branches, y)
		}
	}
	switch ap := k.AdditionalProperties.(type) {
	case bool:
		n.Refuses = !ap
	case S:
		n.Extra = append(n.Extra, ap)
	}
	if u := k.UnevaluatedProperties; u != none {
		switch {
		case k.UnevaluatedBool == nil:
			n.Extra = append(n.Extra, u)
		case !*k.UnevaluatedBool:
			n.Refuses = true
		}
	}
	switch it := k.Items.(type) {
	case S:
		n.Items = append(n.Items, it)
	case []S:
		n.Prefix = it
		if ai, ok := k.AdditionalItems.(S); ok {
			n.Items = append(n.Items, ai)
		}
	}
	if k.Items2020 != none {
		n.Items = append(n.Items, k.Items2020)
	}
	return n
}

package issuesx

import "github.com/selfheal/selfheal/issues"

// TypesOf lists the JSON types named by names, in their order, as an
// issue's Expected: what a schema's "type" keyword says. A name that is
// not a JSON type is left out.
func TypesOf(names ...string) issues.Types {
	var s issues.Types
	for _, name := range names {
		s = s.Or(typeNamed(name))
	}
	return s
}

// typeNamed returns the type a JSON type name names, or none.
func typeNamed(name string) issues.Types {
	switch name {
	case "string":
		return issues.TypeString
	case "number":
		return issues.TypeNumber
	case "integer":
		return issues.TypeInteger
	case "boolean":
		return issues.TypeBoolean
	case "null":
		return issues.TypeNull
	case "object":
		return issues.TypeObject
	case "array":
		return issues.TypeArray
	}
	return 0
}

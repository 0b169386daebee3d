package jsonschemav6

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/selfheal/selfheal/adapters/internal/schemaconv"
	"github.com/selfheal/selfheal/issues"
)

// Issues converts a validation failure of jsonschema v6 into normalized
// issues. instance is the value that was validated (decoded with
// json.Decoder.UseNumber for exact numbers); the value shown for each issue is
// read from it at the issue's instance location. It reports false when err
// holds no *jsonschema.ValidationError.
//
// Without the compiled schema, Issues words what the error itself carries:
// bounds are written from the library's exact rationals (0.1 stays 0.1, but
// 1e9 is written 1000000000), a missing property's expected type is unknown
// and unrecognized keys come without the allowed ones. Use Compile, or
// FromCompiled and Schema.Issues, to get the schema's own literals and names.
func Issues(err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).Issues(err, instance)
}

// Issues is the package-level Issues with the knowledge of s: bounds exactly
// as the schema wrote them (when s was built by Compile), the declared
// property names next to unrecognized keys, and the expected type of a
// missing property. A nil s knows nothing.
func (s *Schema) Issues(err error, instance any) (issues.List, bool) {
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return nil, false
	}
	c := conv{s: s, base: instance}
	// Issues are large; growing the list one by one would copy them over
	// and over. Required can give several issues per error, hence the slack.
	out := schemaconv.Sink{Out: make([]issues.Issue, 0, leaves(ve)+2)}
	c.add(&out, ve)
	return out.Finish(), true
}

// conv converts one tree of errors. base is the value instance locations are
// relative to and prefix the path of base from the root of the issues (nil
// inside property names and contents, whose issues are relative).
type conv struct {
	s      *Schema
	base   any
	prefix issues.Path
	// taken records the objects already blamed for a property name (see
	// propertyNamesLoc).
	taken map[string]bool
}

// locate returns the path and the value at an instance location.
func (c *conv) locate(loc []string) (issues.Path, any) {
	return schemaconv.Locate(c.base, c.prefix, loc)
}

// add converts ve and its causes into k.
func (c *conv) add(k *schemaconv.Sink, ve *jsonschema.ValidationError) {
	switch ve.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		// Containers of other failures: no path or schema to look up.
		for _, cause := range ve.Causes {
			c.add(k, cause)
		}
		return
	}
	loc := ve.InstanceLocation
	if e, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		loc = c.propertyNamesLoc(loc, e.Property)
	}
	path, v := c.locate(loc)
	sch := c.s.at(ve.SchemaURL)
	switch e := ve.ErrorKind.(type) {
	case *kind.InvalidJsonValue:
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidType, Path: path, Input: v,
			Expected: "string|number|boolean|null|object|array", Source: "jsonschema:type"})
	case *kind.Type:
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidType, Path: path, Input: v,
			Expected: c.s.types(ve.SchemaURL, e.Want), Source: "jsonschema:type"})
	case *kind.Enum:
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidValue, Path: path, Input: v,
			Values: e.Want, Source: "jsonschema:enum"})
	case *kind.Const:
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidValue, Path: path, Input: v,
			Values: []any{e.Want}, Source: "jsonschema:const"})
	case *kind.Format:
		is := issues.Issue{Code: issues.InvalidFormat, Path: path, Input: v, Format: e.Want,
			Source: "jsonschema:format"}
		if e.Err != nil {
			is.Message = e.Err.Error()
		}
		k.Out = append(k.Out, is)
	case *kind.Pattern:
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidFormat, Path: path, Input: v,
			Format: "regex", Pattern: e.Want, Source: "jsonschema:pattern"})
	case *kind.MinLength:
		k.Out = append(k.Out, size(issues.TooSmall, path, v, issues.OriginString, e.Want,
			sch != nil && sch.MaxLength != nil && *sch.MaxLength == e.Want, "jsonschema:minLength"))
	case *kind.MaxLength:
		k.Out = append(k.Out, size(issues.TooBig, path, v, issues.OriginString, e.Want,
			sch != nil && sch.MinLength != nil && *sch.MinLength == e.Want, "jsonschema:maxLength"))
	case *kind.MinItems:
		k.Out = append(k.Out, size(issues.TooSmall, path, v, issues.OriginArray, e.Want,
			sch != nil && sch.MaxItems != nil && *sch.MaxItems == e.Want, "jsonschema:minItems"))
	case *kind.MaxItems:
		k.Out = append(k.Out, size(issues.TooBig, path, v, issues.OriginArray, e.Want,
			sch != nil && sch.MinItems != nil && *sch.MinItems == e.Want, "jsonschema:maxItems"))
	case *kind.MinProperties:
		k.Out = append(k.Out, size(issues.TooSmall, path, v, issues.OriginObject, e.Want,
			sch != nil && sch.MaxProperties != nil && *sch.MaxProperties == e.Want, "jsonschema:minProperties"))
	case *kind.MaxProperties:
		k.Out = append(k.Out, size(issues.TooBig, path, v, issues.OriginObject, e.Want,
			sch != nil && sch.MinProperties != nil && *sch.MinProperties == e.Want, "jsonschema:maxProperties"))
	case *kind.Minimum:
		k.Out = append(k.Out, issues.Issue{Code: issues.TooSmall, Path: path, Input: v,
			Origin: numOrigin(sch), Minimum: c.s.literal(ve.SchemaURL, "minimum", e.Want),
			Inclusive: true, Source: "jsonschema:minimum"})
	case *kind.ExclusiveMinimum:
		k.Out = append(k.Out, issues.Issue{Code: issues.TooSmall, Path: path, Input: v,
			Origin: numOrigin(sch), Minimum: c.s.literal(ve.SchemaURL, "exclusiveMinimum", e.Want),
			Source: "jsonschema:exclusiveMinimum"})
	case *kind.Maximum:
		k.Out = append(k.Out, issues.Issue{Code: issues.TooBig, Path: path, Input: v,
			Origin: numOrigin(sch), Maximum: c.s.literal(ve.SchemaURL, "maximum", e.Want),
			Inclusive: true, Source: "jsonschema:maximum"})
	case *kind.ExclusiveMaximum:
		k.Out = append(k.Out, issues.Issue{Code: issues.TooBig, Path: path, Input: v,
			Origin: numOrigin(sch), Maximum: c.s.literal(ve.SchemaURL, "exclusiveMaximum", e.Want),
			Source: "jsonschema:exclusiveMaximum"})
	case *kind.MultipleOf:
		k.Out = append(k.Out, issues.Issue{Code: issues.NotMultipleOf, Path: path, Input: v,
			Divisor: c.s.literal(ve.SchemaURL, "multipleOf", e.Want), Source: "jsonschema:multipleOf"})
	case *kind.Required:
		for _, name := range e.Missing {
			k.Out = append(k.Out, issues.Issue{Code: issues.InvalidType, Path: path.Append(name),
				Absent: true, Expected: c.s.propType(sch, name), Source: "jsonschema:required"})
		}
	case *kind.DependentRequired:
		c.dependent(k, path, sch, e.Prop, e.Missing, "jsonschema:dependentRequired")
	case *kind.Dependency:
		c.dependent(k, path, sch, e.Prop, e.Missing, "jsonschema:dependencies")
	case *kind.AdditionalProperties:
		allowed := declared(sch)
		for _, name := range e.Properties {
			k.Unrecognized(path, v, name, allowed, "jsonschema:additionalProperties")
		}
	case *kind.PropertyNames:
		c.propertyName(k, path, v, e.Property, ve.Causes)
	case *kind.UniqueItems:
		is := issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: path, Input: v,
			Source: "jsonschema:uniqueItems"}
		if arr, ok := v.([]any); ok && e.Duplicates[1] < len(arr) {
			is.Values = []any{arr[e.Duplicates[1]]}
		}
		k.Out = append(k.Out, is)
	case *kind.Contains:
		k.Out = append(k.Out, contains(path, v, sch, 1, -1, "jsonschema:contains"))
	case *kind.MinContains:
		k.Out = append(k.Out, contains(path, v, sch, e.Want, -1, "jsonschema:minContains"))
	case *kind.MaxContains:
		k.Out = append(k.Out, contains(path, v, sch, -1, e.Want, "jsonschema:maxContains"))
	case *kind.AdditionalItems:
		is := issues.Issue{Code: issues.TooBig, Path: path, Input: v, Origin: issues.OriginArray,
			Inclusive: true, Source: "jsonschema:additionalItems"}
		if arr, ok := v.([]any); ok {
			is.Maximum = issues.Number(strconv.Itoa(len(arr) - e.Count))
		}
		k.Out = append(k.Out, is)
	case *kind.ContentEncoding:
		is := issues.Issue{Code: issues.InvalidFormat, Path: path, Input: v, Format: e.Want,
			Source: "jsonschema:contentEncoding"}
		if e.Err != nil {
			is.Message = e.Err.Error()
		}
		k.Out = append(k.Out, is)
	case *kind.ContentMediaType:
		is := issues.Issue{Code: issues.InvalidFormat, Path: path, Input: v, Format: schemaconv.MediaFormat(e.Want),
			Source: "jsonschema:contentMediaType"}
		if e.Err != nil {
			is.Message = e.Err.Error()
		}
		k.Out = append(k.Out, is)
	case *kind.ContentSchema:
		inner := conv{s: c.s, base: decodeContent(v, sch)}
		var ik schemaconv.Sink
		for _, cause := range ve.Causes {
			inner.add(&ik, cause)
		}
		k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: path,
			Input: v, Issues: ik.Finish(), Source: "jsonschema:contentSchema"})
	case *kind.Not:
		k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckNot, Path: path,
			Input: v, Source: "jsonschema:not"})
	case *kind.AnyOf:
		k.Out = append(k.Out, c.union(path, v, ve.Causes, "jsonschema:anyOf"))
	case *kind.OneOf:
		if len(e.Subschemas) > 0 {
			k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckOneOf, Path: path,
				Input: v, Source: "jsonschema:oneOf"})
			break
		}
		k.Out = append(k.Out, c.union(path, v, ve.Causes, "jsonschema:oneOf"))
	case *kind.FalseSchema:
		c.falseSchema(k, ve, path, v)
	case *kind.RefCycle:
		k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: path,
			Input: v, Source: "jsonschema:$ref"})
	default:
		// An extension's kind: its causes, if any, else a plain failure
		// that names its keyword for logs.
		if len(ve.Causes) > 0 {
			for _, cause := range ve.Causes {
				c.add(k, cause)
			}
			break
		}
		kw := "extension"
		if kp := ve.ErrorKind.KeywordPath(); len(kp) > 0 {
			kw = kp[0]
		}
		k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: path,
			Input: v, Source: "jsonschema:" + kw})
	}
}

func size(code issues.Code, path issues.Path, v any, origin string, want int, exact bool, source string) issues.Issue {
	is := issues.Issue{Code: code, Path: path, Input: v, Origin: origin, Inclusive: true, Exact: exact, Source: source}
	if code == issues.TooSmall {
		is.Minimum = issues.Number(strconv.Itoa(want))
	} else {
		is.Maximum = issues.Number(strconv.Itoa(want))
	}
	return is
}

// contains words a failed contains, minContains or maxContains with the
// counts of matching items the schema asks for (-1: none).
func contains(path issues.Path, v any, sch *jsonschema.Schema, lo, hi int, source string) issues.Issue {
	is := issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: path, Input: v,
		Origin: issues.OriginArray, Inclusive: true, Source: source}
	if sch != nil {
		if lo < 0 {
			switch {
			case sch.MinContains == nil:
				lo = 1 // contains alone asks for one match
			case *sch.MinContains > 0:
				lo = *sch.MinContains
			}
		}
		if hi < 0 && sch.MaxContains != nil {
			hi = *sch.MaxContains
		}
	}
	if lo >= 0 {
		is.Minimum = issues.Number(strconv.Itoa(lo))
	}
	if hi >= 0 {
		is.Maximum = issues.Number(strconv.Itoa(hi))
	}
	return is
}

// dependent reports each property that must be sent because prop was.
func (c *conv) dependent(k *schemaconv.Sink, path issues.Path, sch *jsonschema.Schema, prop string, missing []string, source string) {
	for _, name := range missing {
		k.Out = append(k.Out, issues.Issue{Code: issues.InvalidType, Path: path.Append(name), Absent: true,
			Expected: c.s.propType(sch, name), Source: source,
			When: &issues.Condition{Op: issues.CondPresent, Fields: []issues.Path{path.Append(prop)}}})
	}
}

// propertyName reports a property name that fails propertyNames: an
// invalid_key with the name's own issues, or, when the schema allows no
// name at all, an unrecognized key.
func (c *conv) propertyName(k *schemaconv.Sink, path issues.Path, obj any, name string, causes []*jsonschema.ValidationError) {
	inner := conv{s: c.s, base: name}
	var ik schemaconv.Sink
	for _, cause := range causes {
		if _, ok := cause.ErrorKind.(*kind.FalseSchema); ok && len(cause.InstanceLocation) == 0 {
			k.Unrecognized(path, obj, name, nil, "jsonschema:propertyNames")
			return
		}
		inner.add(&ik, cause)
	}
	k.Out = append(k.Out, issues.Issue{Code: issues.InvalidKey, Path: path, Input: name, Key: name,
		Origin: issues.OriginObject, Issues: ik.Finish(), Source: "jsonschema:propertyNames"})
}

// union reports a value that matches no alternative, with each
// alternative's issues.
func (c *conv) union(path issues.Path, v any, causes []*jsonschema.ValidationError, source string) issues.Issue {
	branches := make([][]issues.Issue, 0, len(causes))
	for _, cause := range causes {
		var bk schemaconv.Sink
		c.add(&bk, cause)
		branches = append(branches, bk.Finish())
	}
	return issues.Issue{Code: issues.InvalidUnion, Path: path, Input: v, Branches: branches, Source: source}
}

// falseSchema reports a value where the schema is false, by where the
// false schema sits: a property that may not be sent, a key or item beyond
// those allowed, or a place that accepts nothing.
func (c *conv) falseSchema(k *schemaconv.Sink, ve *jsonschema.ValidationError, path issues.Path, v any) {
	k.FalseSchema(schemaconv.Fragment(ve.SchemaURL), path, v, len(path) > len(c.prefix),
		func() (issues.Path, any) { return c.locate(ve.InstanceLocation[:len(ve.InstanceLocation)-1]) },
		func() []string {
			u := ve.SchemaURL
			return evaluable(c.s.at(u[:strings.LastIndexByte(u, '/')]))
		})
}

// numOrigin is the origin of a numeric bound: integer when the schema
// allows integers only.
func numOrigin(sch *jsonschema.Schema) string {
	if sch != nil && sch.Types != nil {
		if t := sch.Types.ToStrings(); len(t) == 1 && t[0] == "integer" {
			return issues.OriginInteger
		}
	}
	return issues.OriginNumber
}

// propType is the declared type of property name of sch ("" when unknown),
// through $ref chains.
func (s *Schema) propType(sch *jsonschema.Schema, name string) string {
	if sch == nil {
		return ""
	}
	p := sch.Properties[name]
	for range 8 {
		if p == nil {
			return ""
		}
		if p.Types != nil && !p.Types.IsEmpty() {
			return s.types(p.Location, p.Types.ToStrings())
		}
		if p.Const != nil {
			return schemaconv.JSONType(*p.Const)
		}
		p = p.Ref
	}
	return ""
}

// types writes the types of the schema at loc in the order the document
// lists them, or else in the library's order.
func (s *Schema) types(loc string, lib []string) string {
	if s != nil {
		if obj, ok := s.lookup(loc).(map[string]any); ok {
			switch t := obj["type"].(type) {
			case string:
				return t
			case []any:
				names := make([]string, 0, len(t))
				for _, x := range t {
					if n, ok := x.(string); ok {
						names = append(names, n)
					}
				}
				if len(names) == len(lib) {
					return strings.Join(names, "|")
				}
			}
		}
	}
	return strings.Join(lib, "|")
}

// declared lists the property names sch declares, sorted.
func declared(sch *jsonschema.Schema) []string {
	if sch == nil {
		return nil
	}
	return schemaconv.SortedKeys(sch.Properties)
}

// evaluable lists the property names that sch and the subschemas applied
// to the same object (allOf, anyOf, oneOf, if/then/else, $ref, dependent
// schemas) declare: what unevaluatedProperties leaves allowed.
func evaluable(sch *jsonschema.Schema) []string {
	if sch == nil {
		return nil
	}
	seen := map[*jsonschema.Schema]bool{}
	set := map[string]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] || len(seen) > 256 {
			return
		}
		seen[s] = true
		for n := range s.Properties {
			set[n] = true
		}
		walk(s.Ref)
		if s.DynamicRef != nil {
			walk(s.DynamicRef.Ref)
		}
		walk(s.RecursiveRef)
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range l {
				walk(x)
			}
		}
		walk(s.If)
		walk(s.Then)
		walk(s.Else)
		for _, x := range s.DependentSchemas {
			walk(x)
		}
	}
	walk(sch)
	return schemaconv.SortedKeys(set)
}

// decodeContent decodes the content of a string the way contentEncoding
// and contentMediaType describe it, for locating the issues inside it.
func decodeContent(v any, sch *jsonschema.Schema) any {
	str, ok := v.(string)
	if !ok {
		return nil
	}
	data := []byte(str)
	if sch != nil && sch.ContentEncoding != nil {
		if d, err := sch.ContentEncoding.Decode(str); err == nil {
			data = d
		}
	} else if d, err := base64.StdEncoding.DecodeString(str); err == nil && !json.Valid(data) {
		data = d
	}
	return schemaconv.DecodeContent(data)
}

// leaves counts the errors of a tree that are not mere groups of others.
func leaves(ve *jsonschema.ValidationError) int {
	if len(ve.Causes) == 0 {
		return 1
	}
	n := 0
	for _, c := range ve.Causes {
		n += leaves(c)
	}
	return n
}

// propertyNamesLoc recovers the location of the object whose property name
// failed. jsonschema v6.0.3 stores its working location slice in a
// propertyNames error without copying it, so validating a later sibling
// overwrites its elements; only its length can be trusted. Among the
// objects at that depth that have the property, it picks the one that
// agrees with most of the recorded elements and has not been blamed yet.
func (c *conv) propertyNamesLoc(loc []string, prop string) []string {
	var best []string
	bestScore := -1
	var walk func(v any, at []string)
	walk = func(v any, at []string) {
		if len(at) == len(loc) {
			obj, ok := v.(map[string]any)
			if _, has := obj[prop]; !ok || !has {
				return
			}
			score := 0
			for i := range at {
				if at[i] == loc[i] {
					score++
				}
			}
			if score > bestScore && !c.taken[strings.Join(at, "/")+"\x00"+prop] {
				best, bestScore = slices.Clone(at), score
			}
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], append(at, k))
			}
		case []any:
			for i, el := range x {
				walk(el, append(at, strconv.Itoa(i)))
			}
		}
	}
	walk(c.base, make([]string, 0, len(loc)))
	if best == nil {
		return loc
	}
	if c.taken == nil {
		c.taken = map[string]bool{}
	}
	c.taken[strings.Join(best, "/")+"\x00"+prop] = true
	return best
}

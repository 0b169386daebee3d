package jsonschemav6

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// appendIssues appends the issues of err, a failure of validation of
// instance, to dst (Validate, AppendValidate and ValidateJSON document
// them for users), and reports false, returning dst, when err holds no
// *jsonschema.ValidationError. A nil s knows nothing of the schema; an
// instance that is issues.Unknown{} is not at hand, as when the root
// package's Engine is handed a library error alone (Errors). The issues
// share slices with s, err and instance: the public methods own them (see
// schema.Own).
func (s *Schema) appendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return dst, false
	}
	c := conv{s: s, base: instance}
	_, c.unknown = instance.(issues.Unknown)
	// Grown once for the usual tree, a cause an issue: go-sdk validates
	// into a new list, and growing it issue by issue took 4 of the 19
	// allocations converting its benchmark's 5 failures.
	k := schema.Sink{Out: slices.Grow(dst, min(len(ve.Causes), 64)), From: len(dst)}
	c.add(&k, ve)
	if list := k.Finish(); len(list) > len(dst) {
		return list, true
	}
	return dst, true
}

// conv converts one tree of errors. base is the value instance locations are
// relative to: the instance, or a property name or decoded content, whose
// issues are relative to it.
type conv struct {
	s    *Schema
	base any
	// names holds, per depth, the objects a failing property name may
	// belong to (see propertyNamesLoc).
	names map[int]*names
	// unknown says the instance is not at hand: values are what each
	// error carries (see sent).
	unknown bool
}

// locate returns the path and the value at an instance location.
func (c *conv) locate(loc []string) (issues.Path, any) {
	if c.unknown {
		return schema.GuessPath(loc), issues.Unknown{}
	}
	return schema.Locate(c.base, loc)
}

// add converts ve and its causes into k.
func (c *conv) add(k *schema.Sink, ve *jsonschema.ValidationError) {
	switch ve.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		// Containers of other failures: no path or schema to look up.
		for _, cause := range ve.Causes {
			c.add(k, cause)
		}
		return
	}
	if !k.Room() && skipPast(k, ve) {
		return
	}
	loc := ve.InstanceLocation
	if e, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		loc = c.propertyNamesLoc(loc, e.Property)
	}
	x := c.s.at(ve.SchemaURL)
	sch := x.sch
	path, v := c.locate(loc)
	if c.unknown {
		v = sent(ve.ErrorKind)
	}
	f := schema.Failure{Path: path, Input: v}
	if c.read(&f, ve, x) {
		k.Keyword(&f)
		return
	}
	switch e := ve.ErrorKind.(type) {
	case *kind.Required:
		c.missing(k, sch, path, e.Missing, "jsonschema:required", nil)
	case *kind.DependentRequired:
		c.missing(k, sch, path, e.Missing, "jsonschema:dependentRequired", path.Append(e.Prop))
	case *kind.Dependency:
		c.missing(k, sch, path, e.Missing, "jsonschema:dependencies", path.Append(e.Prop))
	case *kind.AdditionalProperties:
		k.UnrecognizedKeys(path, v, e.Properties, x.declared, "jsonschema:additionalProperties")
	case *kind.PropertyNames:
		c.propertyName(k, path, v, e.Property, ve.Causes)
	case *kind.ContentSchema:
		inner := conv{s: c.s, base: decodeContent(v, sch), unknown: c.unknown}
		if c.unknown {
			inner.base = issues.Unknown{}
		}
		var ik schema.Sink
		for _, cause := range ve.Causes {
			inner.add(&ik, cause)
		}
		is := k.Add(issues.Custom, path, v, "jsonschema:contentSchema")
		is.Check, is.Issues = issues.CheckContent, ik.Finish()
	case *kind.AnyOf:
		var alts []*jsonschema.Schema
		if sch != nil {
			alts = sch.AnyOf
		}
		c.union(k, path, v, alts, ve.Causes, "jsonschema:anyOf")
	case *kind.OneOf:
		if len(e.Subschemas) > 0 {
			k.Add(issues.Custom, path, v, "jsonschema:oneOf").Check = issues.CheckOneOf
			break
		}
		var alts []*jsonschema.Schema
		if sch != nil {
			alts = sch.OneOf
		}
		c.union(k, path, v, alts, ve.Causes, "jsonschema:oneOf")
	case *kind.FalseSchema:
		c.falseSchema(k, ve, path, v)
	case *kind.RefCycle:
		k.Add(issues.Custom, path, v, "jsonschema:$ref").Check = issues.CheckNever
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
		k.Add(issues.Custom, path, v, "jsonschema:"+kw).Check = issues.CheckNever
	}
}

// read reads ve, raised by the subschema x (x.sch nil when unknown), into f
// when its keyword is in the keyword table (see schema.Sink.Keyword), and
// reports whether it is.
func (c *conv) read(f *schema.Failure, ve *jsonschema.ValidationError, x sub) bool {
	sch, lib := x.sch, x.sch
	if lib == nil {
		lib = &jsonschema.Schema{} // sets no length or count
	}
	// other is the count the schema sets for the opposite bound of a
	// length or count, which makes the issue exact when it is the same.
	other := func(p *int) issues.Number {
		if p == nil {
			return ""
		}
		return count(*p)
	}
	switch e := ve.ErrorKind.(type) {
	case *kind.InvalidJsonValue:
		f.Keyword, f.Types = "type", issues.TypeString.Or(issues.TypeNumber).Or(issues.TypeBoolean).Or(issues.TypeNull).Or(issues.TypeObject).Or(issues.TypeArray)
	case *kind.Type:
		f.Keyword, f.Types = "type", types(x.obj, e.Want)
	case *kind.Enum:
		f.Keyword, f.Values = "enum", e.Want
	case *kind.Const:
		f.Keyword, f.Values = "const", []any{e.Want}
	case *kind.Format:
		f.Keyword, f.Want, f.Err = "format", e.Want, e.Err
	case *kind.Pattern:
		f.Keyword, f.Want = "pattern", e.Want
	case *kind.MinLength:
		f.Keyword, f.Min, f.Max = "minLength", count(e.Want), other(lib.MaxLength)
	case *kind.MaxLength:
		f.Keyword, f.Max, f.Min = "maxLength", count(e.Want), other(lib.MinLength)
	case *kind.MinItems:
		f.Keyword, f.Min, f.Max = "minItems", count(e.Want), other(lib.MaxItems)
	case *kind.MaxItems:
		f.Keyword, f.Max, f.Min = "maxItems", count(e.Want), other(lib.MinItems)
	case *kind.MinProperties:
		f.Keyword, f.Min, f.Max = "minProperties", count(e.Want), other(lib.MaxProperties)
	case *kind.MaxProperties:
		f.Keyword, f.Max, f.Min = "maxProperties", count(e.Want), other(lib.MinProperties)
	case *kind.Minimum:
		f.Keyword, f.Origin, f.Min = "minimum", numOrigin(x), schema.Literal(x.obj, "minimum", e.Want)
	case *kind.ExclusiveMinimum:
		f.Keyword, f.Origin, f.Min = "exclusiveMinimum", numOrigin(x), schema.Literal(x.obj, "exclusiveMinimum", e.Want)
	case *kind.Maximum:
		f.Keyword, f.Origin, f.Max = "maximum", numOrigin(x), schema.Literal(x.obj, "maximum", e.Want)
	case *kind.ExclusiveMaximum:
		f.Keyword, f.Origin, f.Max = "exclusiveMaximum", numOrigin(x), schema.Literal(x.obj, "exclusiveMaximum", e.Want)
	case *kind.MultipleOf:
		f.Keyword, f.Divisor = "multipleOf", schema.Literal(x.obj, "multipleOf", e.Want)
		f.Min, f.Max = schema.Multiples(e.Want, lib.Minimum, lib.ExclusiveMinimum, lib.Maximum, lib.ExclusiveMaximum)
	case *kind.UniqueItems:
		f.Keyword = "uniqueItems"
		if arr, ok := f.Input.([]any); ok && e.Duplicates[1] < len(arr) {
			// The repeated item, in the instance's own array.
			i := e.Duplicates[1]
			f.Values = arr[i : i+1 : i+1]
		}
	case *kind.Contains:
		f.Keyword = "contains"
		f.Min, f.Max = c.contains(sch, 1, -1)
	case *kind.MinContains:
		f.Keyword = "minContains"
		f.Min, f.Max = c.contains(sch, e.Want, -1)
	case *kind.MaxContains:
		f.Keyword = "maxContains"
		f.Min, f.Max = c.contains(sch, -1, e.Want)
	case *kind.AdditionalItems:
		f.Keyword = "additionalItems"
		if arr, ok := f.Input.([]any); ok {
			f.Max = count(len(arr) - e.Count)
		}
	case *kind.ContentEncoding:
		f.Keyword, f.Want, f.Err = "contentEncoding", e.Want, e.Err
	case *kind.ContentMediaType:
		f.Keyword, f.Want, f.Err = "contentMediaType", e.Want, e.Err
	case *kind.Not:
		f.Keyword = "not"
	default:
		return false
	}
	return true
}

// missing reports each property of the object at path that must be sent
// and was not; present is the property whose presence requires them, nil
// for required ones.
func (c *conv) missing(k *schema.Sink, sch *jsonschema.Schema, path issues.Path, names []string, source string, present issues.Path) {
	for _, name := range names {
		k.Missing(path.Append(name), c.s.propType(sch, name), source, present)
	}
}

// contains returns the counts of matching items a contains, minContains
// or maxContains asks for: lo and hi, or where they are -1 what the schema
// says.
func (c *conv) contains(sch *jsonschema.Schema, lo, hi int) (minimum, maximum issues.Number) {
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
		minimum = count(lo)
	}
	if hi >= 0 {
		maximum = count(hi)
	}
	return minimum, maximum
}

// propertyName reports a property name that fails propertyNames: an
// invalid_key with the name's own issues, or, when the schema allows no
// name at all, an unrecognized key.
func (c *conv) propertyName(k *schema.Sink, path issues.Path, obj any, name string, causes []*jsonschema.ValidationError) {
	inner := conv{s: c.s, base: name}
	var ik schema.Sink
	for _, cause := range causes {
		if _, ok := cause.ErrorKind.(*kind.FalseSchema); ok && len(cause.InstanceLocation) == 0 {
			k.Unrecognized(path, obj, name, nil, "jsonschema:propertyNames")
			return
		}
		inner.add(&ik, cause)
	}
	is := k.Add(issues.InvalidKey, path, name, "jsonschema:propertyNames")
	is.Key, is.Origin, is.Issues = name, issues.OriginObject, ik.Finish()
}

// union reports a value that matches none of alts (see schema.Union).
func (c *conv) union(k *schema.Sink, path issues.Path, v any, alts []*jsonschema.Schema,
	causes []*jsonschema.ValidationError, source string) {
	k.Push(schema.Union(path, v, alts, read, func() [][]issues.Issue { return c.branches(causes) }, source))
}

// branches returns the issues of each alternative of a value that matches
// none (anyOf, oneOf).
func (c *conv) branches(causes []*jsonschema.ValidationError) [][]issues.Issue {
	branches := make([][]issues.Issue, 0, len(causes))
	for _, cause := range causes {
		var bk schema.Sink
		c.add(&bk, cause)
		branches = append(branches, bk.Finish())
	}
	return branches
}

// falseSchema reports a value where the schema is false, by where the
// false schema sits: a property that may not be sent, a key or item beyond
// those allowed, or a place that accepts nothing.
func (c *conv) falseSchema(k *schema.Sink, ve *jsonschema.ValidationError, path issues.Path, v any) {
	parent := func() (issues.Path, any) { return c.locate(ve.InstanceLocation[:len(ve.InstanceLocation)-1]) }
	u := ve.SchemaURL
	k.FalseSchema(schema.Fragment(u), path, v, len(path) > 0, parent, func() []string {
		return schema.Evaluable(c.s.at(u[:strings.LastIndexByte(u, '/')]).sch, read)
	})
}

// count writes n, a count of characters, items or properties.
func count(n int) issues.Number { return issues.Number(strconv.Itoa(n)) }

// numOrigin is the origin of a numeric bound: integer when the schema
// allows integers only.
func numOrigin(x sub) string {
	if x.types == issues.TypeInteger {
		return issues.OriginInteger
	}
	return issues.OriginNumber
}

// propType is the declared type of property name of sch (none when unknown),
// through $ref chains.
func (s *Schema) propType(sch *jsonschema.Schema, name string) issues.Types {
	if sch == nil {
		return 0
	}
	p := sch.Properties[name]
	for range 8 {
		if p == nil {
			return 0
		}
		if t := s.at(p.Location).types; t != 0 {
			return t
		}
		if p.Const != nil {
			return issuesx.TypesOf(schema.JSONType(*p.Const))
		}
		p = p.Ref
	}
	return 0
}

// read reads what the shared code needs of x (see schema.Subschema).
func read(x *jsonschema.Schema) schema.Subschema[*jsonschema.Schema] {
	d := schema.Subschema[*jsonschema.Schema]{Location: x.Location, Bool: x.Bool,
		Ref: x.Ref, RecursiveRef: x.RecursiveRef,
		AllOf: x.AllOf, AnyOf: x.AnyOf, OneOf: x.OneOf, If: x.If, Then: x.Then, Else: x.Else,
		DependentSchemas: x.DependentSchemas, Dependencies: x.Dependencies,
		Properties: x.Properties, Required: x.Required, AdditionalProperties: x.AdditionalProperties,
		UnevaluatedProperties: x.UnevaluatedProperties,
		PrefixItems:           x.PrefixItems, Items: x.Items, AdditionalItems: x.AdditionalItems, Items2020: x.Items2020,
		Others: []*jsonschema.Schema{x.Not, x.PropertyNames, x.Contains, x.UnevaluatedItems, x.ContentSchema}}
	if x.DynamicRef != nil {
		d.DynamicRef = x.DynamicRef.Ref
	}
	for re, y := range x.PatternProperties {
		d.Patterns = append(d.Patterns, re)
		d.Others = append(d.Others, y)
	}
	switch {
	case x.Const != nil:
		d.One, d.HasOne = *x.Const, true
	case x.Enum != nil && len(x.Enum.Values) == 1:
		d.One, d.HasOne = x.Enum.Values[0], true
	}
	return d
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
	return schema.DecodeContent(data)
}

// sent is what an error of kind k tells of the value sent, when the
// instance is not at hand: the value itself where the kind carries it, else
// an issues.Unknown with its type and length where the kind implies them.
func sent(k jsonschema.ErrorKind) any {
	sized := func(typ string, n int) issues.Unknown { return issues.Unknown{Type: typ, Size: n, Sized: true} }
	switch e := k.(type) {
	case *kind.Type:
		return issues.Unknown{Type: e.Got}
	case *kind.Enum:
		return e.Got
	case *kind.Const:
		return e.Got
	case *kind.Format:
		return e.Got
	case *kind.Pattern:
		return e.Got
	case *kind.MinLength:
		return sized("string", e.Got)
	case *kind.MaxLength:
		return sized("string", e.Got)
	case *kind.MinItems:
		return sized("array", e.Got)
	case *kind.MaxItems:
		return sized("array", e.Got)
	case *kind.MinProperties:
		return sized("object", e.Got)
	case *kind.MaxProperties:
		return sized("object", e.Got)
	case *kind.Minimum:
		return ratValue(e.Got)
	case *kind.Maximum:
		return ratValue(e.Got)
	case *kind.ExclusiveMinimum:
		return ratValue(e.Got)
	case *kind.ExclusiveMaximum:
		return ratValue(e.Got)
	case *kind.MultipleOf:
		return ratValue(e.Got)
	case *kind.Required, *kind.DependentRequired, *kind.Dependency, *kind.AdditionalProperties,
		*kind.PropertyNames:
		return issues.Unknown{Type: "object"}
	case *kind.UniqueItems, *kind.Contains, *kind.MinContains, *kind.MaxContains, *kind.AdditionalItems:
		return issues.Unknown{Type: "array"}
	}
	return issues.Unknown{}
}

// ratValue is a number the library read, written exactly, unless writing
// it would take longer than it is worth (1e1000000).
func ratValue(r *big.Rat) any {
	if r == nil || r.Num().BitLen()+r.Denom().BitLen() > 512 {
		return issues.Unknown{Type: "number"}
	}
	return json.Number(schema.RatText(r))
}

// kindPkg is the package of the library's own error kinds.
var kindPkg = reflect.TypeFor[kind.Type]().PkgPath()

// ownKind reports whether k is one of the library's kinds, which add
// words as issues of their own; an extension's kind is worded through its
// causes when it has any.
func ownKind(k jsonschema.ErrorKind) bool {
	t := reflect.TypeOf(k)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == kindPkg
}

// skipPast counts the issues of ve, an error that is not a mere group,
// without building them, when k is full (see schema.Sink.Room). It
// reports false for those that may still only add to an issue already
// built (unrecognized keys and excess items of an object or array already
// reported: the sink counts the others) and for an extension's kind with
// causes, each counted where add reaches it. A name failing propertyNames
// counts one issue, although a name no schema allows would have joined its
// object's unrecognized_keys issue: telling the two apart takes locating
// the object, the very work this saves.
func skipPast(k *schema.Sink, ve *jsonschema.ValidationError) bool {
	n := 1
	switch e := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties, *kind.FalseSchema:
		return false
	case *kind.Required:
		n = len(e.Missing)
	case *kind.DependentRequired:
		n = len(e.Missing)
	case *kind.Dependency:
		n = len(e.Missing)
	default:
		if len(ve.Causes) > 0 && !ownKind(ve.ErrorKind) {
			return false
		}
	}
	k.Skip(n)
	return true
}

// propertyNamesLoc recovers the location of the object whose property name
// failed. jsonschema v6.0.3 stores its working location slice in a
// propertyNames error without copying it, so validating a later sibling
// overwrites its elements; only its length can be trusted. Among the
// objects at that depth that have the property, it picks the one that
// agrees with most of the recorded elements and has not been blamed yet
// (the first in document order, keys sorted, of those that agree best).
//
// The objects at a depth are found in one walk of the instance, the first
// time a name fails at that depth, and ranked once per recorded location:
// many failing names cost a lookup each, not a walk each.
func (c *conv) propertyNamesLoc(loc []string, prop string) []string {
	ix := c.namesAt(len(loc))
	nc := ix.byName[prop]
	if nc == nil {
		return loc
	}
	if nc.order == nil || !slices.Equal(nc.orderLoc, loc) {
		nc.rank(ix, loc)
	}
	for i := nc.next; i < len(nc.order); i++ {
		if j := nc.order[i]; !nc.taken[j] {
			nc.taken[j] = true
			nc.next = i + 1
			return ix.objs[nc.objs[j]]
		}
	}
	return loc
}

// names lists the objects at one depth of the instance, for
// propertyNamesLoc.
type names struct {
	objs   [][]string // the objects' locations, in document order (keys sorted)
	byName map[string]*nameCands
}

// nameCands are the objects at one depth that have one property name.
type nameCands struct {
	objs  []int  // indexes in names.objs, in document order
	taken []bool // per entry of objs: already blamed for the name
	// order ranks the entries of objs against orderLoc: most elements in
	// common first, document order among equals. Entries before next are
	// taken.
	order    []int
	orderLoc []string
	next     int
}

// rank orders nc's objects by how many elements of loc their location
// shares.
func (nc *nameCands) rank(ix *names, loc []string) {
	score := make([]int, len(nc.objs))
	for j, o := range nc.objs {
		at := ix.objs[o]
		for i := range at {
			if at[i] == loc[i] {
				score[j]++
			}
		}
	}
	nc.order = make([]int, len(nc.objs))
	for j := range nc.order {
		nc.order[j] = j
	}
	slices.SortStableFunc(nc.order, func(a, b int) int { return score[b] - score[a] })
	nc.orderLoc, nc.next = slices.Clone(loc), 0
}

// namesAt returns the objects at depth d of the instance, walking it the
// first time.
func (c *conv) namesAt(d int) *names {
	if ix := c.names[d]; ix != nil {
		return ix
	}
	ix := &names{byName: map[string]*nameCands{}}
	var walk func(v any, at []string)
	walk = func(v any, at []string) {
		if len(at) == d {
			obj, ok := v.(map[string]any)
			if !ok {
				return
			}
			o := len(ix.objs)
			ix.objs = append(ix.objs, slices.Clone(at))
			for name := range obj {
				nc := ix.byName[name]
				if nc == nil {
					nc = &nameCands{}
					ix.byName[name] = nc
				}
				nc.objs = append(nc.objs, o)
				nc.taken = append(nc.taken, false)
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
	walk(c.base, make([]string, 0, d))
	if c.names == nil {
		c.names = map[int]*names{}
	}
	c.names[d] = ix
	return ix
}

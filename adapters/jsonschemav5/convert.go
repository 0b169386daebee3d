package jsonschemav5

import (
	"errors"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// appendIssues converts err, a failure of the library's Validate of
// instance, into issues appended to dst, with what s knows of the schema
// (a nil s knows nothing); an instance that is issues.Unknown{} is not at
// hand, and each failure is worded from the library's message (see
// appendRaw). It returns dst unchanged, with false, when err is not a
// failure of validation. The issues share slices with s and instance: the
// public methods own them (see schema.Own).
func (s *Schema) appendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	if err == nil {
		return dst, false
	}
	if _, unknown := instance.(issues.Unknown); unknown {
		return appendRaw(dst, err)
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		c := conv{s: s, base: instance}
		out := sink{Sink: schema.Sink{Out: dst, From: len(dst)}}
		c.add(&out, ve)
		if list := out.finish(); len(list) > len(dst) {
			return list, true
		}
		return dst, true
	}
	return appendOther(dst, err, instance)
}

// split finds the compiled schema an absolute keyword location belongs to
// and the keyword path after it.
func (s *Schema) split(loc string) (*jsonschema.Schema, []string) {
	if s == nil {
		toks := schema.Fragment(loc)
		if len(toks) > 0 {
			return nil, toks[len(toks)-1:]
		}
		return nil, nil
	}
	var kw []string
	cur := loc
	for range 64 {
		if sch, ok := s.locs[cur]; ok {
			return sch, kw
		}
		if sch, ok := s.locs[unescapeFrag(cur)]; ok {
			return sch, kw
		}
		i := strings.LastIndexByte(cur, '/')
		if i < 0 || i < strings.IndexByte(cur, '#') {
			break
		}
		tok := cur[i+1:]
		tok = strings.ReplaceAll(strings.ReplaceAll(unescapeFrag(tok), "~1", "/"), "~0", "~")
		kw = append([]string{tok}, kw...)
		cur = cur[:i]
	}
	return nil, kw
}

// conv converts one tree of errors. base is the value instance locations
// are relative to, iloc the instance location of base (a property name or
// decoded content, whose issues are relative to it), koff the
// keyword-location tokens consumed by the enclosing property-name or
// content context.
type conv struct {
	s    *Schema
	base any
	iloc string
	koff int
}

// locate returns the path and value at an instance location.
func (c *conv) locate(loc string) (issues.Path, any) {
	return schema.Locate(c.base, pointer(strings.TrimPrefix(loc, c.iloc)))
}

// parent returns the instance location without its last token.
func parentLoc(loc string) string {
	if i := strings.LastIndexByte(loc, '/'); i >= 0 {
		return loc[:i]
	}
	return ""
}

// applicators take a name or index after them in a keyword location.
var named = map[string]bool{"properties": true, "patternProperties": true, "dependencies": true,
	"dependentSchemas": true, "allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true,
	"$defs": true, "definitions": true}

// contextStep finds the first propertyNames or contentSchema step of a
// keyword location at or after token koff, and the index after it.
func contextStep(kwloc string, koff int) (string, int) {
	toks := pointer(kwloc)
	for i := 0; i < len(toks); {
		kw := toks[i]
		switch {
		case named[kw]:
			i += 2
			continue
		case kw == "items" && i+1 < len(toks) && isIndex(toks[i+1]):
			i += 2
			continue
		case (kw == "propertyNames" || kw == "contentSchema") && i >= koff && i+1 <= len(toks):
			return kw, i + 1
		}
		i++
	}
	return "", 0
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// add converts ve and its causes into k.
func (c *conv) add(k *sink, ve *jsonschema.ValidationError) {
	// Most errors are outside propertyNames and contentSchema: those skip
	// splitting the location.
	if kl := ve.KeywordLocation; strings.Contains(kl, "propertyNames") || strings.Contains(kl, "contentSchema") {
		if ctx, after := contextStep(kl, c.koff); ctx != "" {
			c.nested(k, ve, ctx, after)
			return
		}
	}
	if !k.Room() && skipPast(k, ve) {
		return
	}
	sch, kw := c.s.split(ve.AbsoluteKeywordLocation)
	if len(kw) == 0 && len(ve.Causes) == 0 && strings.HasSuffix(ve.KeywordLocation, "/not") {
		// "…/not" is both the failed keyword and its subschema's location.
		a := ve.AbsoluteKeywordLocation
		sch, kw = c.s.split(a[:strings.LastIndexByte(a, '/')])
		kw = append(kw, "not")
	}
	first := ""
	if len(kw) > 0 {
		first = kw[0]
	}
	switch first {
	case "", "$ref", "$recursiveRef", "$dynamicRef", "allOf", "then", "else":
		// A group: its causes are the failures, and where it sits is not
		// needed (many a group holds one item of a long array).
		if len(ve.Causes) > 0 {
			for _, cause := range ve.Causes {
				c.add(k, cause)
			}
			return
		}
	}
	path, v := c.locate(ve.InstanceLocation)
	src := func(kw string) string { return "jsonschema:" + kw }
	switch first {
	case "", "$ref", "$recursiveRef", "$dynamicRef", "allOf", "then", "else":
		// Without causes: a false schema, or nothing to say.
		if first == "" {
			c.falseSchema(k, ve, path, v)
		}
	case "required":
		obj, _ := v.(map[string]any)
		if sch == nil {
			k.Push(issues.Issue{Code: issues.InvalidType, Path: path, Input: v, Source: src("required")})
			break
		}
		for _, name := range sch.Required {
			if _, ok := obj[name]; !ok {
				k.Missing(path.Append(name), propType(sch, name), src("required"), nil)
			}
		}
	case "dependencies", "dependentRequired":
		if len(kw) == 3 && sch != nil {
			prop := kw[1]
			var list []string
			if first == "dependencies" {
				list, _ = sch.Dependencies[prop].([]string)
			} else {
				list = sch.DependentRequired[prop]
			}
			if i, err := strconv.Atoi(kw[2]); err == nil && i < len(list) {
				name := list[i]
				k.Missing(path.Append(name), propType(sch, name), src(first), path.Append(prop))
				break
			}
		}
		for _, cause := range ve.Causes {
			c.add(k, cause)
		}
	case "additionalProperties":
		obj, _ := v.(map[string]any)
		allowed := declared(sch)
		for name := range obj {
			if sch != nil && !evaluatedBy(sch, name) {
				k.Unrecognized(path, v, name, allowed, src("additionalProperties"))
			}
		}
	case "contentSchema":
		// The content is not JSON. With a media type, its own failure
		// already says so.
		if sch == nil || sch.ContentMediaType == "" {
			k.Push(issues.Issue{Code: issues.InvalidFormat, Path: path, Input: v, Format: "json",
				Source: src("contentMediaType")})
		}
	case "anyOf":
		var alts []*jsonschema.Schema
		if sch != nil {
			alts = sch.AnyOf
		}
		k.Push(c.union(path, v, alts, ve.Causes, src("anyOf")))
	case "oneOf":
		if len(ve.Causes) == 0 {
			k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckOneOf, Path: path,
				Input: v, Source: src("oneOf")})
			break
		}
		var alts []*jsonschema.Schema
		if sch != nil {
			alts = sch.OneOf
		}
		k.Push(c.union(path, v, alts, ve.Causes, src("oneOf")))
	default:
		f := schema.Failure{Keyword: first, Path: path, Input: v}
		c.read(&f, sch)
		if k.Keyword(&f) {
			break
		}
		// An extension's keyword: its causes, if any, else a plain
		// failure that names it for logs.
		if len(ve.Causes) > 0 {
			for _, cause := range ve.Causes {
				c.add(k, cause)
			}
			break
		}
		k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: path,
			Input: v, Source: src(first)})
	}
}

// nested converts an error raised inside propertyNames (the name itself is
// the instance) or contentSchema (the decoded content is).
func (c *conv) nested(k *sink, ve *jsonschema.ValidationError, ctx string, after int) {
	if ctx == "propertyNames" {
		ploc := parentLoc(ve.InstanceLocation)
		toks := pointer(strings.TrimPrefix(ve.InstanceLocation, ploc))
		name := ""
		if len(toks) > 0 {
			name = toks[len(toks)-1]
		}
		inner := conv{s: c.s, base: name, iloc: ve.InstanceLocation, koff: after}
		id := "k" + ploc + "\x00" + name
		in := k.nestOf(id)
		if in == nil {
			if !k.Room() {
				k.skipNest(id)
				return
			}
			path, obj := c.locate(ploc)
			in = k.newNest(id, &nest{path: path, input: obj, name: name})
		}
		inner.add(in, ve)
		return
	}
	// contentSchema: the string is where the instance stops being JSON.
	toks := pointer(strings.TrimPrefix(ve.InstanceLocation, c.iloc))
	v, n := c.base, 0
	for _, tok := range toks {
		if _, ok := v.(string); ok {
			break
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			if i >= 0 && i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		}
		n++
	}
	sloc := c.iloc
	for _, tok := range toks[:n] {
		sloc += "/" + url.PathEscape(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	id := "c" + sloc
	in := k.nestOf(id)
	if in == nil {
		if !k.Room() {
			k.skipNest(id)
			return
		}
		path, str := c.locate(sloc)
		in = k.newNest(id, &nest{path: path, input: str, content: true})
	}
	// The content is decoded for each of its failures, as before the
	// sink kept it: contents fail in few ways.
	str := k.nested[id].input
	owner, _ := c.s.split(strings.TrimSuffix(ve.AbsoluteKeywordLocation[:strings.LastIndex(ve.AbsoluteKeywordLocation, "/contentSchema")+1], "/"))
	inner := conv{s: c.s, base: decodeContent(str, owner), iloc: sloc, koff: after}
	inner.add(in, ve)
}

// skipPast counts the issues of ve without building them when k is full
// (see schema.Sink.Room). It reports false for the errors that may
// still only add to an issue already built (unrecognized keys and excess
// items of an object or array already reported), that word as many issues
// as the instance says (required), or that merely group others, whose
// causes are counted one by one where add reaches them. A union and a
// failed contains are one issue whatever their causes.
func skipPast(k *sink, ve *jsonschema.ValidationError) bool {
	kl := ve.KeywordLocation
	switch kl[strings.LastIndexByte(kl, '/')+1:] {
	case "anyOf", "oneOf", "minContains":
		k.Skip(1)
		return true
	case "additionalProperties", "unevaluatedProperties", "items", "additionalItems", "unevaluatedItems", "required":
		return false
	}
	if len(ve.Causes) > 0 {
		return false
	}
	k.Skip(1)
	return true
}

// union reports a value that matches none of alts (see schema.Union).
func (c *conv) union(path issues.Path, v any, alts []*jsonschema.Schema, causes []*jsonschema.ValidationError, source string) issues.Issue {
	return schema.Union(path, v, alts, read, func() [][]issues.Issue {
		branches := make([][]issues.Issue, 0, len(causes))
		for _, cause := range causes {
			var bk sink
			c.add(&bk, cause)
			branches = append(branches, bk.finish())
		}
		return branches
	}, source)
}

// falseSchema reports a value where the schema is false, by where the
// false schema sits (as jsonschemav6 does).
func (c *conv) falseSchema(k *sink, ve *jsonschema.ValidationError, path issues.Path, v any) {
	a := ve.AbsoluteKeywordLocation
	k.FalseSchema(schema.Fragment(a), path, v, len(path) > 0,
		func() (issues.Path, any) { return c.locate(parentLoc(ve.InstanceLocation)) },
		func() []string {
			owner, _ := c.s.split(a[:strings.LastIndexByte(a, '/')])
			return schema.Evaluable(owner, read)
		})
}

// read reads into f what sch says of its keyword, for the keyword table
// (see schema.Sink.Keyword). sch is nil when unknown.
func (c *conv) read(f *schema.Failure, sch *jsonschema.Schema) {
	f.Origin = numOrigin(sch)
	if arr, ok := f.Input.([]any); ok && f.Keyword == "uniqueItems" {
		if i := firstDuplicate(arr); i >= 0 {
			f.Values = arr[i : i+1 : i+1]
		}
	}
	if sch == nil {
		return
	}
	// count writes a count the schema sets, "" for none (-1).
	count := func(n int) issues.Number {
		if n < 0 {
			return ""
		}
		return issues.Number(strconv.Itoa(n))
	}
	obj := c.s.docs.Object(sch.Location) // a known sch has a known s
	switch kw := f.Keyword; kw {
	case "type":
		f.Types = issuesx.TypesOf(sch.Types...)
	case "enum":
		f.Values = sch.Enum
	case "const":
		if len(sch.Constant) > 0 {
			f.Values = []any{sch.Constant[0]}
		}
	case "format":
		f.Want = sch.Format
	case "pattern":
		if sch.Pattern != nil {
			f.Want = sch.Pattern.String()
		}
	case "contentEncoding":
		f.Want = sch.ContentEncoding
	case "contentMediaType":
		f.Want = sch.ContentMediaType
	case "minLength", "maxLength":
		f.Min, f.Max = count(sch.MinLength), count(sch.MaxLength)
	case "minItems", "maxItems":
		f.Min, f.Max = count(sch.MinItems), count(sch.MaxItems)
	case "minProperties", "maxProperties":
		f.Min, f.Max = count(sch.MinProperties), count(sch.MaxProperties)
	case "minimum":
		f.Min = schema.Literal(obj, kw, sch.Minimum)
	case "exclusiveMinimum":
		f.Min = schema.Literal(obj, kw, sch.ExclusiveMinimum)
	case "maximum":
		f.Max = schema.Literal(obj, kw, sch.Maximum)
	case "exclusiveMaximum":
		f.Max = schema.Literal(obj, kw, sch.ExclusiveMaximum)
	case "multipleOf":
		f.Divisor = schema.Literal(obj, kw, sch.MultipleOf)
		f.Min, f.Max = schema.Multiples(sch.MultipleOf, sch.Minimum, sch.ExclusiveMinimum, sch.Maximum, sch.ExclusiveMaximum)
	case "minContains", "maxContains":
		if _, set := obj["minContains"]; kw == "minContains" && !set && (obj != nil || sch.MinContains == 1) {
			f.Keyword = "contains" // the default minContains of contains
		}
		if sch.MinContains > 0 {
			f.Min = count(sch.MinContains)
		}
		f.Max = count(sch.MaxContains)
	case "additionalItems":
		if items, ok := sch.Items.([]*jsonschema.Schema); ok {
			f.Max = count(len(items))
		}
	}
}

// numOrigin is the origin of a numeric bound: integer when the schema
// allows integers only.
func numOrigin(sch *jsonschema.Schema) string {
	if sch != nil && len(sch.Types) == 1 && sch.Types[0] == "integer" {
		return issues.OriginInteger
	}
	return issues.OriginNumber
}

// propType is the declared type of property name of sch (none when unknown),
// through $ref chains.
func propType(sch *jsonschema.Schema, name string) issues.Types {
	if sch == nil {
		return 0
	}
	p := sch.Properties[name]
	for range 8 {
		if p == nil {
			return 0
		}
		if len(p.Types) > 0 {
			return issuesx.TypesOf(p.Types...)
		}
		if len(p.Constant) > 0 {
			return issuesx.TypesOf(schema.JSONType(p.Constant[0]))
		}
		p = p.Ref
	}
	return 0
}

// evaluatedBy reports whether properties or patternProperties of sch
// cover name (what additionalProperties leaves alone).
func evaluatedBy(sch *jsonschema.Schema, name string) bool {
	if _, ok := sch.Properties[name]; ok {
		return true
	}
	for re := range sch.PatternProperties {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// declared lists the property names sch declares, sorted.
func declared(sch *jsonschema.Schema) []string {
	if sch == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(sch.Properties))
}

// read reads what the shared code needs of x (see schema.Subschema).
func read(x *jsonschema.Schema) schema.Subschema[*jsonschema.Schema] {
	d := schema.Subschema[*jsonschema.Schema]{Location: x.Location, Bool: x.Always,
		Ref: x.Ref, RecursiveRef: x.RecursiveRef, DynamicRef: x.DynamicRef,
		AllOf: x.AllOf, AnyOf: x.AnyOf, OneOf: x.OneOf, If: x.If, Then: x.Then, Else: x.Else,
		DependentSchemas: x.DependentSchemas, Dependencies: x.Dependencies,
		Properties: x.Properties, Required: x.Required, AdditionalProperties: x.AdditionalProperties,
		UnevaluatedProperties: x.UnevaluatedProperties,
		PrefixItems:           x.PrefixItems, Items: x.Items, AdditionalItems: x.AdditionalItems, Items2020: x.Items2020,
		Others: []*jsonschema.Schema{x.Not, x.PropertyNames, x.Contains, x.UnevaluatedItems, x.ContentSchema}}
	for re, y := range x.PatternProperties {
		d.Patterns = append(d.Patterns, re)
		d.Others = append(d.Others, y)
	}
	switch {
	case len(x.Constant) > 0:
		d.One, d.HasOne = x.Constant[0], true
	case len(x.Enum) == 1:
		d.One, d.HasOne = x.Enum[0], true
	}
	return d
}

// firstDuplicate returns the index of the first item equal to an earlier
// one (see schema.Equal), or -1: items are compared by a canonical text,
// so that a model sending 100,000 items costs linear time, not quadratic.
func firstDuplicate(arr []any) int {
	seen := make(map[string]bool, len(arr))
	for i, item := range arr {
		key := string(canonical(nil, item))
		if seen[key] {
			return i
		}
		seen[key] = true
	}
	return -1
}

// canonical appends the text of v that values equal as JSON share:
// numbers by their exact value, objects with their keys sorted.
func canonical(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return strconv.AppendQuote(b, x)
	case []any:
		b = append(b, '[')
		for _, el := range x {
			b = append(canonical(b, el), ',')
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for _, k := range slices.Sorted(maps.Keys(x)) {
			b = append(canonical(strconv.AppendQuote(b, k), x[k]), ',')
		}
		return append(b, '}')
	}
	if r, ok := new(big.Rat).SetString(schema.NumberText(v)); ok {
		return append(b, r.RatString()...)
	}
	return append(append(b, '?'), schema.NumberText(v)...)
}

package validatorv10

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// now is the clock that time.Time bounds (gt, lte … without a field) are
// compared with; tests fix it.
var now = time.Now

// Issues converts a validator failure into issues. It accepts
// validator.ValidationErrors (as Struct, Var and VarWithKey return it, or
// wrapped), the error of Bind and the error of Map. It reports false for
// anything else, including *validator.InvalidValidationError, which is a
// programming error (validating nil or a non-struct), not bad input.
//
// A call converts at most 1,000 failures (a dived slice of 100,000 bad
// items fails 100,000 ways); past them one issue at the end counts the
// others, which are not built.
func Issues(err error) (issues.List, bool) {
	return appendIssues(nil, err, nil)
}

// Errors lets a selfheal Engine read validator's raw errors, as Issues
// does, where the engine is built:
//
//	selfheal.New(selfheal.WithAdapters(validatorv10.Errors))
//
// An error that Bind or Map made needs no adapter. Errors words the
// built-in tags; for tags of your own, use ErrorsWith instead.
var Errors issues.Adapter = appendErrors

func appendErrors(dst issues.List, err error) (issues.List, bool) {
	return appendIssues(dst, err, nil)
}

// appendIssues is Issues appending to dst, with the rules of ErrorsWith.
// It reports false, returning dst unchanged, exactly where Issues does.
func appendIssues(dst issues.List, err error, rules map[string]Rule) (issues.List, bool) {
	// The error itself first: errors.As costs more than a conversion of
	// two fields (see BenchmarkValidator).
	switch e := err.(type) {
	case validator.ValidationErrors:
		return convert(dst, e, nil, nil, rules)
	case *bound:
		return convert(dst, e.ve, newRoot(e.v), nil, rules)
	case mapErrors:
		return e.appendIssues(dst, rules)
	}
	var (
		b  *bound
		m  mapErrors
		ve validator.ValidationErrors
	)
	switch {
	case errors.As(err, &b):
		return convert(dst, b.ve, newRoot(b.v), nil, rules)
	case errors.As(err, &m):
		return m.appendIssues(dst, rules)
	case errors.As(err, &ve):
		return convert(dst, ve, nil, nil, rules)
	}
	return dst, false
}

// Bind attaches the validated value to the validator's error, so that
// Issues can name the fields that cross-field and conditional tags refer to
// by their JSON names and show their current values, and tell a map key's
// failure from its value's exactly:
//
//	err := validatorv10.Bind(validate.Struct(args), args)
//
// Without Bind, Issues still works from the error alone: other fields are
// named as the tag names them and their values are not shown. Bind returns
// nil for a nil error and err itself when it is not a validation failure.
func Bind(err error, v any) error {
	if err == nil {
		return nil
	}
	var ve validator.ValidationErrors
	if !errors.As(err, &ve) {
		return err
	}
	return &bound{err: err, ve: ve, v: v}
}

// bound is a validator failure with the value it was found in.
type bound struct {
	err error
	ve  validator.ValidationErrors
	v   any
}

func (b *bound) Error() string { return b.err.Error() }
func (b *bound) Unwrap() error { return b.err }

// Issues makes a bound error an issues.Carrier.
func (b *bound) Issues() issues.List {
	list, _ := convert(nil, b.ve, newRoot(b.v), nil, nil)
	return list
}

// Map turns the result of validator's ValidateMap (field → error, nested
// maps for nested rules) into an error that Issues accepts; nil when the map
// is empty. Paths start at the map's keys: address.city for a nested rule.
func Map(errs map[string]any) error {
	if len(errs) == 0 {
		return nil
	}
	return mapErrors(errs)
}

// mapErrors is ValidateMap's result as an error.
type mapErrors map[string]any

func (m mapErrors) Error() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %v", k, m[k]))
	}
	return strings.Join(parts, "; ")
}

// Issues makes a Map error an issues.Carrier.
func (m mapErrors) Issues() issues.List {
	list, _ := m.appendIssues(nil, nil)
	return list
}

func (m mapErrors) appendIssues(dst issues.List, rules map[string]Rule) (issues.List, bool) {
	out := dst
	// The build limit holds for the whole map: built counts the issues
	// appended, omitted those found past the limit.
	built, omitted := 0, 0
	var walk func(m map[string]any, prefix issues.Path)
	walk = func(m map[string]any, prefix issues.Path) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch e := m[k].(type) {
			case map[string]any:
				walk(e, prefix.Append(k))
			case validator.ValidationErrors:
				// VarWithKey names the key itself first: the prefix is
				// the path of the map holding it.
				n := min(len(e), issuesx.BuildLimit-built)
				out = appendConverted(out, e[:n], e, nil, prefix, rules)
				built += n
				omitted += len(e) - n
			case error:
				// "The field: 'x' is not a map to dive".
				if built == issuesx.BuildLimit {
					omitted++
					continue
				}
				out = append(out, issues.Issue{Code: issues.InvalidType, Path: prefix.Append(k),
					Expected: issues.TypeObject, Source: "validator:map"})
				built++
			}
		}
	}
	walk(m, nil)
	if omitted > 0 {
		out = append(out, issuesx.Omitted(omitted))
	}
	return out, len(out) > len(dst)
}

// converter holds what one conversion needs besides each error.
type converter struct {
	errs   validator.ValidationErrors // the whole failure, where other fields are named
	root   *rootInfo
	prefix issues.Path
	rules  map[string]Rule // words the server's own tags (see ErrorsWith)
	rename bool            // the namespace uses a tag-name function's names
	// byStructNS maps each error's Go namespace to its namespace, the
	// first error's for each, built when guessPath first needs it: looking
	// through every error for each issue would cost quadratic time.
	byStructNS map[string]string
	elems      []any // where newPath cuts paths from
	left       int   // issues still to convert, which size elems
}

// convert appends one issue for each field error to dst, up to
// issuesx.BuildLimit of them; past it, one issuesx.Omitted counts the rest.
// A struct with a dived slice of 100,000 bad items fails 100,000 ways: the
// formatter shows a few, and building the others would cost more than the
// validation did.
func convert(dst issues.List, errs validator.ValidationErrors, root *rootInfo, prefix issues.Path, rules map[string]Rule) (issues.List, bool) {
	if len(errs) == 0 {
		return dst, false
	}
	n := min(len(errs), issuesx.BuildLimit)
	dst = appendConverted(dst, errs[:n], errs, root, prefix, rules)
	if n < len(errs) {
		dst = append(dst, issuesx.Omitted(len(errs)-n))
	}
	return dst, true
}

// appendConverted appends the issues of errs, some of all (the whole
// failure, which cross-field tags look through for other fields' names).
func appendConverted(dst issues.List, errs, all validator.ValidationErrors, root *rootInfo, prefix issues.Path, rules map[string]Rule) issues.List {
	c := converter{errs: all, root: root, prefix: prefix, rules: rules}
	c.rename = slices.ContainsFunc(all, func(fe validator.FieldError) bool {
		return fe.Namespace() != fe.StructNamespace()
	})
	for i, fe := range errs {
		c.left = len(errs) - i
		dst = append(dst, issues.Issue{})
		c.convert(&dst[len(dst)-1], fe)
	}
	return dst
}

func (c *converter) locate(fe validator.FieldError) at {
	if c.root != nil {
		if w := c.walk(fe.Namespace(), fe.StructNamespace()); w.bound {
			return w
		}
	}
	return at{path: c.pathOf(fe.Namespace())}
}

// convert fills is, a zero issue, with the issue of one field error: a map
// key's failure as an invalid_key holding the key's issue, any other as
// the tag's issue. Issues (488 bytes) are filled in place, not returned
// or copied over a zero one (BenchmarkValidator (c): the copy cost 517 of
// its 24,975 instructions an operation).
func (c *converter) convert(is *issues.Issue, fe validator.FieldError) {
	loc := c.locate(fe)
	c.issue(is, fe, fe.Tag(), fe.ActualTag(), fe.Param(), loc)
	if key, ok := c.keyFailure(fe, loc); ok {
		inner := *is
		inner.Path = loc.path[:len(loc.path)-1]
		*is = issues.Issue{Code: issues.InvalidKey, Path: inner.Path, Input: fe.Value(), Key: key,
			Origin: issues.OriginMap, Issues: []issues.Issue{inner}, Source: inner.Source}
	}
}

// issue fills is, a zero issue, with the issue of a failed tag (with its
// actual tag, for aliases, and its parameter).
func (c *converter) issue(is *issues.Issue, fe validator.FieldError, tag, actual, param string, loc at) {
	if r, ok := c.rules[tag]; ok {
		r.issue(is, fe, loc.path, param)
		return
	}
	info := tags[tag]
	if info.cls == clsUnknown && strings.Contains(actual, "|") {
		c.union(is, fe, tag, actual, loc)
		return
	}
	if info.cls == clsUnknown && actual != tag {
		// A user alias of one tag: word the tag that failed.
		if r, ok := c.rules[actual]; ok {
			r.issue(is, fe, loc.path, param)
			return
		}
		if a, ok := tags[actual]; ok {
			tag, info = actual, a
		}
	}
	is.Path, is.Input, is.Source = loc.path, fe.Value(), info.source
	switch cls := info.cls; cls {
	case clsRequired:
		is.Code, is.Absent, is.Input = issues.InvalidType, true, nil
		is.Expected = jsonType(fe.Type(), fe.Kind())
		if info.op != "" {
			is.When = c.condition(fe, loc, info.op, param, info.pairs)
		}
	case clsExcluded:
		is.Code, is.Check = issues.Custom, issues.CheckExcluded
		is.When = c.condition(fe, loc, info.op, param, info.pairs)
	case clsSize:
		size(is, fe, tag, param)
	case clsEq:
		eq(is, fe, param, false)
	case clsNe:
		eq(is, fe, param, true)
	case clsField:
		c.crossField(is, fe, tag, param, loc)
	case clsOneOf, clsNoneOf:
		is.Code = issues.InvalidValue
		for _, v := range splitParams(param) {
			is.Values = append(is.Values, typed(fe.Kind(), fe.Type(), v))
		}
		if cls == clsNoneOf {
			is.Check = issues.CheckNot
		}
	case clsUnique:
		c.unique(is, fe, param)
	case clsIsDefault:
		is.Code, is.Check = issues.Custom, checkDefault
	case clsValidateFn:
		is.Code = issues.Custom
		if msg := validateFnMessage(fe.Value(), param); msg != "" {
			is.Message = msg
		} else {
			is.Check = checkMethod
		}
	case clsContent:
		is.Code, is.Format = issues.InvalidFormat, info.format
		setParam(is, param)
	case clsFormat, clsAlias:
		is.Code, is.Format = issues.InvalidFormat, info.format
	case clsPostcodeField:
		is.Code, is.Format = issues.InvalidFormat, formatPostcode
		ref := c.ref(fe, loc, param, false)
		is.Ref = ref
		if s, ok := ref.Value.(string); ok {
			is.Country = s
		}
	default:
		// A tag registered with validator but given no Rule.
		is.Code, is.Check, is.Format, is.Source = issues.Custom, checkRule, tag, "validator:"+tag
	}
}

// Checks and formats beyond those of package issues (see the package
// doc); the formatter words each.
const (
	checkDefault     = "default"     // isdefault
	checkMethod      = "method"      // validateFn, when the method says not why
	checkRule        = "rule"        // a registered tag without a Rule
	formatTimeLayout = "time_layout" // datetime: the layout in Layout
	formatPostcode   = "postcode"    // the country in Country
)

// setParam puts the parameter of a format check in the field of is that
// holds it for is.Format, so that a registered rule's format takes its
// parameter where the catalogs' own wording of that format reads it.
func setParam(is *issues.Issue, param string) {
	switch is.Format {
	case "regex":
		is.Pattern = param
	case "starts_with", "starts_not_with":
		is.Prefix = param
	case "ends_with", "ends_not_with":
		is.Suffix = param
	case "includes", "excludes", "includes_any", "excludes_any":
		is.Includes = param
	case formatTimeLayout:
		is.Layout = param
	case formatPostcode:
		is.Country = param
	default:
		is.Param = param
	}
}

// union words an or-group (email|uuid) as the alternatives it offered.
func (c *converter) union(is *issues.Issue, fe validator.FieldError, tag, actual string, loc at) {
	*is = issues.Issue{Code: issues.InvalidUnion, Path: loc.path, Input: fe.Value(), Source: "validator:" + tag}
	for part := range strings.SplitSeq(actual, "|") {
		name, param, _ := strings.Cut(part, "=")
		var br issues.Issue
		c.issue(&br, fe, name, name, param, loc)
		is.Branches = append(is.Branches, []issues.Issue{br})
	}
}

// jsonType is the JSON type a Go type is sent as.
func jsonType(t reflect.Type, k reflect.Kind) issues.Types {
	if t != nil {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == timeType {
			return issues.TypeString
		}
		k = t.Kind()
	}
	switch k {
	case reflect.String:
		return issues.TypeString
	case reflect.Bool:
		return issues.TypeBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return issues.TypeInteger
	case reflect.Float32, reflect.Float64:
		return issues.TypeNumber
	case reflect.Slice, reflect.Array:
		return issues.TypeArray
	case reflect.Map, reflect.Struct:
		return issues.TypeObject
	}
	return 0
}

// origin is what a size or bound of a value of this kind applies to.
func origin(t reflect.Type, k reflect.Kind) string {
	// The kind first: ConvertibleTo cost a third of a size check.
	if k == reflect.Struct && t != nil && t.ConvertibleTo(timeType) {
		return issues.OriginDate
	}
	if t == durationType {
		return issues.OriginDuration
	}
	switch k {
	case reflect.String:
		return issues.OriginString
	case reflect.Slice, reflect.Array:
		return issues.OriginArray
	case reflect.Map:
		return issues.OriginMap
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return issues.OriginInteger
	case reflect.Float32, reflect.Float64:
		return issues.OriginNumber
	}
	return ""
}

// size words len, min, max, gt, gte, lt and lte by the kind of the value:
// characters of a string, items of a slice or map, the value of a number,
// a time.Duration against a duration, a time.Time against now.
func size(is *issues.Issue, fe validator.FieldError, tag, param string) {
	t, k := fe.Type(), fe.Kind()
	is.Origin = origin(t, k)
	bound := number(param)
	if is.Origin == issues.OriginDate {
		bound = issues.Number(now().UTC().Format(time.RFC3339))
	}
	switch tag {
	case "min", "gte":
		is.Code, is.Minimum, is.Inclusive = issues.TooSmall, bound, true
	case "gt":
		is.Code, is.Minimum = issues.TooSmall, bound
	case "max", "lte":
		is.Code, is.Maximum, is.Inclusive = issues.TooBig, bound, true
	case "lt":
		is.Code, is.Maximum = issues.TooBig, bound
	case "len":
		switch is.Origin {
		case issues.OriginString, issues.OriginArray, issues.OriginMap:
			exact(is, fe, param)
		default:
			// len of a number is its value.
			eq(is, fe, param, false)
		}
	}
}

// eq words eq and ne (and their ignore_case forms): a size for slices and
// maps, a value otherwise.
func eq(is *issues.Issue, fe validator.FieldError, param string, not bool) {
	if k := fe.Kind(); !not && (k == reflect.Slice || k == reflect.Map || k == reflect.Array) {
		exact(is, fe, param)
		return
	}
	is.Code = issues.InvalidValue
	is.Values = []any{typed(fe.Kind(), fe.Type(), param)}
	if not {
		is.Check = issues.CheckNot
	}
}

// exact words an exact size (len, or eq of a slice): too small or too big
// by the value's length.
func exact(is *issues.Issue, fe validator.FieldError, param string) {
	is.Origin = origin(fe.Type(), fe.Kind())
	n, _ := strconv.Atoi(param)
	if lengthOf(fe.Value()) < n {
		is.Code, is.Minimum = issues.TooSmall, number(param)
	} else {
		is.Code, is.Maximum = issues.TooBig, number(param)
	}
	is.Inclusive, is.Exact = true, true
}

// lengthOf is what validator measures: characters of a string, length of
// anything else that has one.
func lengthOf(v any) int {
	rv := deref(reflect.ValueOf(v))
	switch rv.Kind() {
	case reflect.String:
		return utf8.RuneCountInString(rv.String())
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len()
	}
	return 0
}

// number keeps a bound as written when it is a JSON number, and writes
// validator's other integer forms (0x10, 0o17) in decimal.
func number(param string) issues.Number {
	n := issues.Number(param)
	if n.IsNumeric() {
		return n
	}
	if i, err := strconv.ParseInt(param, 0, 64); err == nil {
		return issues.Number(strconv.FormatInt(i, 10))
	}
	if u, err := strconv.ParseUint(param, 0, 64); err == nil {
		return issues.Number(strconv.FormatUint(u, 10))
	}
	return n
}

// typed turns a parameter into the value a field of this kind holds, so
// that numbers show as numbers and durations as durations.
func typed(k reflect.Kind, t reflect.Type, param string) any {
	if t == durationType {
		if d, err := time.ParseDuration(param); err == nil {
			return d
		}
	}
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		if n := number(param); n.IsNumeric() {
			return json.Number(n)
		}
	case reflect.Bool:
		if b, err := strconv.ParseBool(param); err == nil {
			return b
		}
	}
	return param
}

// splitParams splits a parameter list as validator does: on spaces, with
// 'single quotes' around values that hold spaces.
var splitParamsRe = regexp.MustCompile(`'[^']*'|\S+`)

func splitParams(s string) []string {
	vals := splitParamsRe.FindAllString(s, -1)
	for i := range vals {
		vals[i] = strings.ReplaceAll(vals[i], "'", "")
	}
	return vals
}

// crossField words the tags that compare with another field: of the
// field's struct, or for the cs tags (gtcsfield …) of the top-level struct.
func (c *converter) crossField(is *issues.Issue, fe validator.FieldError, tag, param string, loc at) {
	ref := c.ref(fe, loc, param, strings.Contains(tag, "csfield"))
	is.Ref = ref
	switch name := strings.Replace(tag, "csfield", "field", 1); name {
	case "eqfield", "nefield":
		is.Code = issues.InvalidValue
		if ref.Value != nil {
			is.Values = []any{ref.Value}
		}
		if name == "nefield" {
			is.Check = issues.CheckNot
		}
	case "gtfield", "gtefield", "ltfield", "ltefield":
		is.Origin = origin(fe.Type(), fe.Kind())
		var b issues.Number
		if ref.Value != nil {
			b = boundOf(ref.Value)
		}
		is.Inclusive = name == "gtefield" || name == "ltefield"
		if name[0] == 'g' {
			is.Code, is.Minimum = issues.TooSmall, b
		} else {
			is.Code, is.Maximum = issues.TooBig, b
		}
	case "fieldcontains", "fieldexcludes":
		is.Code, is.Format = issues.InvalidFormat, "includes"
		if name == "fieldexcludes" {
			is.Format = "excludes"
		}
		if s, ok := ref.Value.(string); ok {
			is.Includes = s
		}
	}
}

// boundOf writes the other field's value as a bound: a number as written,
// a time as RFC 3339, a duration as Go writes it, a length for the rest.
func boundOf(v any) issues.Number {
	switch x := v.(type) {
	case time.Time:
		return issues.Number(x.UTC().Format(time.RFC3339Nano))
	case time.Duration:
		return issues.Number(x.String())
	}
	rv := deref(reflect.ValueOf(v))
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return issues.Number(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return issues.Number(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		return issues.Number(strconv.FormatFloat(rv.Float(), 'g', -1, 64))
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return issues.Number(strconv.Itoa(lengthOf(rv.Interface())))
	}
	return ""
}

// ref resolves the other field a tag names (a Go field name, dotted for
// nested fields), relative to the field's struct, or for the cs tags to
// the top-level struct.
func (c *converter) ref(fe validator.FieldError, loc at, param string, cs bool) *issues.Ref {
	if loc.bound {
		base, rv := loc.parent, loc.path[:loc.parentAt]
		if cs {
			base, rv = c.root.v, c.prefix
		}
		if p, v, ok := c.follow(base, rv, param); ok {
			r := &issues.Ref{Path: p}
			v = deref(v)
			if !v.IsValid() || ((v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil()) {
				r.Absent = true
			} else if v.CanInterface() {
				r.Value = v.Interface()
			}
			return r
		}
	}
	return &issues.Ref{Path: c.guessPath(fe, param, cs)}
}

// follow walks a dotted Go field path from a struct value.
func (c *converter) follow(base reflect.Value, prefix issues.Path, goPath string) (issues.Path, reflect.Value, bool) {
	p := make(issues.Path, 0, len(prefix)+2)
	p = append(p, prefix...)
	cur := base
	for name := range strings.SplitSeq(goPath, ".") {
		cur = deref(cur)
		if cur.Kind() != reflect.Struct {
			return nil, reflect.Value{}, false
		}
		sf, ok := cur.Type().FieldByName(name)
		if !ok {
			return nil, reflect.Value{}, false
		}
		if c.rename {
			p = append(p, jsonName(sf))
		} else {
			p = append(p, sf.Name)
		}
		cur = cur.FieldByIndex(sf.Index)
	}
	return p, cur, true
}

// guessPath names the other field without the bound value: by the name
// another error in the same failure gives it, else by its Go name.
func (c *converter) guessPath(fe validator.FieldError, param string, cs bool) issues.Path {
	sns := fe.StructNamespace()
	parent := parentNS(sns)
	if cs {
		parent, _, _ = strings.Cut(parent, ".") // the top-level struct
	}
	want := param
	if parent != "" {
		want = parent + "." + param
	}
	if c.byStructNS == nil {
		c.byStructNS = make(map[string]string, len(c.errs))
		for _, o := range c.errs {
			if _, seen := c.byStructNS[o.StructNamespace()]; !seen {
				c.byStructNS[o.StructNamespace()] = o.Namespace()
			}
		}
	}
	if ns, ok := c.byStructNS[want]; ok {
		return c.pathOf(ns)
	}
	// Same names in both forms, or none known: the Go names it is.
	altParent := parentNS(fe.Namespace())
	if cs {
		altParent = parent
	}
	if altParent != "" {
		return c.pathOf(altParent + "." + param)
	}
	p := c.prefix.Append()
	for name := range strings.SplitSeq(param, ".") {
		p = append(p, name)
	}
	return p
}

// parentNS strips the last field (and its brackets) from a namespace.
func parentNS(ns string) string {
	for strings.HasSuffix(ns, "]") {
		i := strings.LastIndexByte(ns, '[')
		if i < 0 {
			break
		}
		ns = ns[:i]
	}
	i := strings.LastIndexByte(ns, '.')
	if i < 0 {
		return ""
	}
	return ns[:i]
}

// condition builds the When of a conditional tag: pairs of field and value
// (required_if, excluded_unless …) or a list of fields (required_with …).
func (c *converter) condition(fe validator.FieldError, loc at, op, param string, pairs bool) *issues.Condition {
	params := splitParams(param)
	cond := &issues.Condition{Op: op}
	step := 1
	if pairs {
		step = 2
	}
	for i := 0; i+step-1 < len(params); i += step {
		ref := c.ref(fe, loc, params[i], false)
		cond.Fields = append(cond.Fields, ref.Path)
		if pairs {
			cond.Values = append(cond.Values, condValue(ref, params[i+1]))
		}
	}
	if len(cond.Fields) == 1 {
		switch cond.Op {
		case issues.CondAllPresent:
			cond.Op = issues.CondPresent
		case issues.CondAllAbsent:
			cond.Op = issues.CondAbsent
		}
	}
	return cond
}

// condValue types a condition's value like the field it is compared with.
func condValue(ref *issues.Ref, param string) any {
	if param == "nil" {
		return nil
	}
	if ref.Value != nil {
		rv := reflect.ValueOf(ref.Value)
		return typed(rv.Kind(), rv.Type(), param)
	}
	return param
}

// unique lists the values that repeat (of the named field of each item,
// for unique=Field).
func (c *converter) unique(is *issues.Issue, fe validator.FieldError, param string) {
	is.Code, is.Check = issues.Custom, issues.CheckUnique
	rv := deref(reflect.ValueOf(fe.Value()))
	seen := map[any]int{}
	add := func(it reflect.Value) {
		it = deref(it)
		if param != "" && it.Kind() == reflect.Struct {
			if sf, ok := it.Type().FieldByName(param); ok {
				is.UniqueBy = sf.Name
				if c.rename {
					is.UniqueBy = jsonName(sf)
				}
				it = deref(it.FieldByIndex(sf.Index))
			}
		}
		var key any
		if it.IsValid() && it.CanInterface() && it.Type().Comparable() {
			key = it.Interface()
		}
		if seen[key]++; seen[key] == 2 {
			is.Values = append(is.Values, key)
		}
	}
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			add(rv.Index(i))
		}
	case reflect.Map:
		keys := rv.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(keyText(a), keyText(b)) })
		for _, k := range keys {
			add(rv.MapIndex(k))
		}
	}
}

// validateFnMessage asks the value's validation method (Validate, or the
// tag's parameter) why it failed: its error's text, if it returns one.
func validateFnMessage(v any, method string) string {
	if method == "" {
		method = "Validate"
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return ""
	}
	m := rv.MethodByName(method)
	if !m.IsValid() {
		p := reflect.New(rv.Type())
		p.Elem().Set(rv)
		m = p.MethodByName(method)
	}
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() == 0 {
		return ""
	}
	out := m.Call(nil)
	if err, ok := out[0].Interface().(error); ok && err != nil {
		return err.Error()
	}
	return ""
}

// keyFailure reports whether a dive failure is about a map's key (a tag
// between keys and endkeys) rather than its value, and the key.
func (c *converter) keyFailure(fe validator.FieldError, loc at) (any, bool) {
	if len(loc.path) == 0 || !strings.HasSuffix(fe.Namespace(), "]") {
		return nil, false
	}
	key, ok := loc.path[len(loc.path)-1].(string)
	if !ok {
		return nil, false
	}
	if !loc.bound {
		// Without the value: a key's failure carries the key as its value.
		return key, fmtValue(fe.Value()) == key
	}
	if deref(loc.container).Kind() != reflect.Map {
		return nil, false
	}
	inKeys, inValues := keysTags(loc.tag.Get("validate"), fe.Tag())
	return key, inKeys && (!inValues || fmtValue(fe.Value()) == key)
}

// keysTags reports whether tag appears between keys and endkeys of a
// field's validate tag, and whether it appears after them (for values).
func keysTags(spec, tag string) (inKeys, inValues bool) {
	state := 0 // 0 before keys, 1 in keys, 2 after endkeys
	for part := range strings.SplitSeq(spec, ",") {
		name, _, _ := strings.Cut(part, "=")
		switch {
		case name == "keys":
			state = 1
		case name == "endkeys":
			state = 2
		case part == tag || slices.Contains(strings.Split(name, "|"), tag):
			inKeys = inKeys || state == 1
			inValues = inValues || state == 2
		}
	}
	return inKeys, inValues
}

// fmtValue writes a value as validator writes map keys.
func fmtValue(v any) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

package issues

import (
	"strconv"
	"strings"
)

// Code is the kind of an issue. The values are exactly Zod v4's issue codes, so
// the JSON form can be read by TypeScript tooling that already knows them.
type Code string

// The Zod v4 issue codes.
const (
	InvalidType      Code = "invalid_type"
	TooSmall         Code = "too_small"
	TooBig           Code = "too_big"
	InvalidFormat    Code = "invalid_format"
	NotMultipleOf    Code = "not_multiple_of"
	UnrecognizedKeys Code = "unrecognized_keys"
	InvalidUnion     Code = "invalid_union"
	InvalidKey       Code = "invalid_key"
	InvalidElement   Code = "invalid_element"
	InvalidValue     Code = "invalid_value"
	Custom           Code = "custom"
)

// Origins name what a size or bound applies to. They follow Zod v4's origin
// names where Zod has one; adapters may use others, which render generically.
const (
	OriginString   = "string"
	OriginNumber   = "number"
	OriginInteger  = "integer"
	OriginBigInt   = "bigint"
	OriginBoolean  = "boolean"
	OriginArray    = "array"
	OriginSet      = "set"
	OriginObject   = "object"
	OriginMap      = "map"
	OriginRecord   = "record"
	OriginDate     = "date"
	OriginDuration = "duration"
	OriginFile     = "file"
	OriginBytes    = "bytes"
	OriginDepth    = "depth" // nesting of objects and arrays; see DefaultMaxDepth
)

// Number is a number written exactly as its source wrote it ("18", "0.1",
// "1e9"), so that no conversion ever shows a model "18/1" or "5.000000". Bounds
// on dates hold an RFC 3339 timestamp and bounds on durations a Go duration
// ("1h30m"); the JSON form is a number when the text is a JSON number and a
// string otherwise.
type Number string

// IsNumeric reports whether n is a valid JSON number literal.
func (n Number) IsNumeric() bool { return isJSONNumber(string(n)) }

// Issue is one normalized validation problem. Adapters fill the fields that
// apply to the code; the formatter words it.
type Issue struct {
	// Code is the kind of problem.
	Code Code
	// Path locates the value from the root of the arguments.
	Path Path
	// Input is the value that was sent. It is meaningless when Absent is set.
	Input any
	// Absent records that nothing was sent at Path (a missing required field).
	// Zod v4 reports this as invalid_type with no input, and so do we.
	Absent bool
	// Expected is the expected types of invalid_type, in the order the
	// source listed them; none means any type.
	Expected Types
	// Origin is what a bound or size applies to (see the Origin constants).
	Origin string
	// Minimum and Maximum are the bounds of too_small and too_big; on
	// not_multiple_of, the least and greatest multiples the field's other
	// bounds allow (inclusive), when it has any.
	Minimum, Maximum Number
	// Inclusive reports whether the bound itself is allowed.
	Inclusive bool
	// Exact reports that the size must equal the bound (a fixed length).
	Exact bool
	// Format names the expected format of invalid_format ("email", "uuid",
	// "date-time", "regex", "starts_with" …).
	Format string
	// Pattern is the regular expression of format "regex".
	Pattern string
	// Prefix is the text a string must start with (format "starts_with")
	// or must not start with ("starts_not_with").
	Prefix string
	// Suffix is the text a string must end with (format "ends_with") or
	// must not end with ("ends_not_with").
	Suffix string
	// Includes is the text a string must contain (format "includes") or
	// must not contain ("excludes"), or the characters of which it must
	// contain at least one ("includes_any") or none ("excludes_any").
	Includes string
	// Layout is the Go time layout ("2006-01-02") of format "time_layout".
	Layout string
	// Country is the ISO 3166-1 alpha-2 code ("US") of the country whose
	// postal codes format "postcode" accepts.
	Country string
	// UniqueBy names the property of an array's items that must not
	// repeat (CheckUnique), when it is not the whole item.
	UniqueBy string
	// Param is the parameter of a format that none of the fields above
	// holds: the media types of "mimetype", or the parameter of a
	// server's own check that words itself as a format.
	Param string
	// Keys are the unrecognized keys of unrecognized_keys.
	Keys []string
	// Allowed are the known keys next to the unrecognized ones, so the
	// formatter can suggest the closest. It is not part of Zod's form.
	Allowed []string
	// Values are the allowed values of invalid_value.
	Values []any
	// Divisor is the divisor of not_multiple_of.
	Divisor Number
	// Branches holds each alternative's issues for invalid_union.
	Branches [][]Issue
	// Issues holds the inner issues of invalid_key and invalid_element (and
	// of a Custom issue with CheckContent).
	Issues []Issue
	// Key is the offending key or index of invalid_key and invalid_element.
	Key any
	// Message is the human text of a custom issue.
	Message string
	// Check refines a Custom issue with a kind of check the formatter words
	// specifically (see the Check constants); empty for other codes, but
	// for CheckNearMiss on unrecognized_keys.
	Check string
	// Ref is the other field a cross-field check compared against
	// (eqfield, gtfield …): the bound or value came from it.
	Ref *Ref
	// When is the condition under which a conditional requirement applies
	// (required_if, required_with, JSON Schema's dependentRequired): a
	// missing field required only when it holds, or, with CheckExcluded, a
	// field that must not be sent when it holds.
	When *Condition
	// Source names the native check that failed, such as "validator:gte" or
	// "jsonschema:minimum", for logs and tooling; it is never shown to a model.
	Source string
}

// Checks that refine Custom issues. They name facts, never wording.
const (
	// CheckExcluded: the field must not be sent (under When, if set).
	CheckExcluded = "excluded"
	// CheckUnique: the array's items (or a property of them) must not
	// repeat; Values holds the repeated values.
	CheckUnique = "unique"
	// CheckNot: the value must not match a schema (JSON Schema "not").
	CheckNot = "not"
	// CheckContains: too few or too many of the array's items match a
	// required item schema (JSON Schema "contains"); Minimum and Maximum
	// are counts of matching items, Origin is "array".
	CheckContains = "contains"
	// CheckOneOf: the value matches more than one alternative where
	// exactly one is allowed (JSON Schema "oneOf").
	CheckOneOf = "one_of"
	// CheckNever: no value at all is accepted here (JSON Schema's false
	// schema where it is not a property that may simply be left out).
	CheckNever = "never"
	// CheckContent: the data encoded inside a string does not match its
	// schema (JSON Schema "contentSchema"); Issues holds its issues, with
	// paths relative to the decoded content.
	CheckContent = "content"
	// CheckNearMiss refines an unrecognized_keys issue: the schema accepts
	// keys it does not declare (it is open), so the keys were not refused,
	// but each one is a near miss of a declared property that was not sent
	// (same name but for case, '_' and '-', or a small edit distance away),
	// which the tool would silently ignore: "dryrun" for "dryRun". Allowed
	// holds the declared properties the keys stand for, each once, in the
	// order of the first key that stands for it (with as many as Keys,
	// Allowed[i] is what Keys[i] stands for), and nothing else: an open
	// schema has no list of "only" keys. A key that stands for a required
	// property is not ignored but refused: the property's missing issue
	// is in the list too, and the formatter words the two as one line.
	CheckNearMiss = "near_miss"
)

// Ref is another field that a check compared against.
type Ref struct {
	// Path is the other field's path from the root.
	Path Path `json:"path"`
	// Value is the other field's value when it was compared.
	Value any `json:"value,omitempty"`
	// Absent records that the other field was not sent.
	Absent bool `json:"absent,omitempty"`
}

// Condition operators.
const (
	CondEquals     = "equals"      // Fields[0] equals one of Values
	CondNotEquals  = "not_equals"  // Fields[0] equals none of Values
	CondPresent    = "present"     // any of Fields is present
	CondAllPresent = "all_present" // all of Fields are present
	CondAbsent     = "absent"      // any of Fields is absent
	CondAllAbsent  = "all_absent"  // all of Fields are absent
)

// Condition says when a conditional requirement applies, in terms of other
// fields, so the formatter can say "required when 'mode' is 'on'".
type Condition struct {
	// Op is one of the Cond constants.
	Op string `json:"op"`
	// Fields are the other fields' paths from the root.
	Fields []Path `json:"fields"`
	// Values are the values compared against, for CondEquals and
	// CondNotEquals.
	Values []any `json:"values,omitempty"`
}

// Unknown stands in as an Issue's Input for a value that was sent but that
// the issue's source did not keep: an adapter that sees only an error, not
// the document (encoding/json's UnmarshalTypeError says "string" but not
// which). Type is the value's JSON type when known ("string", "number",
// "boolean", "object", "array", "null"), else empty. The formatter then
// says what kind of value was sent instead of showing one it never saw.
type Unknown struct {
	Type string
	// Size is the value's length (characters of a string, items of an
	// array, properties of an object) when the source knows it, as Sized
	// says: a JSON Schema error tells a string's length, not the string.
	Size  int
	Sized bool
}

// List is a set of issues. It implements error so that adapters and handlers
// can return it as one.
type List []Issue

// Error summarises the list for logs. Models are shown the formatter's output,
// not this.
func (l List) Error() string {
	if len(l) == 0 {
		return "no issues"
	}
	var b strings.Builder
	shown, more := 0, 0
	for _, is := range l {
		if n, ok := is.Input.(int); ok && is.Check == checkOmitted && is.Code == Custom {
			more += n // an adapter's count of issues it did not build
			continue
		}
		if shown == 3 {
			more++
			continue
		}
		shown++
		if shown > 1 {
			b.WriteString("; ")
		}
		b.WriteString(is.Path.String())
		b.WriteString(": ")
		b.WriteString(string(is.Code))
	}
	if more > 0 {
		b.WriteString("; and ")
		b.WriteString(strconv.Itoa(more))
		b.WriteString(" more")
	}
	return b.String()
}

// isJSONNumber reports whether s is a JSON number literal (RFC 8259).
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

package schema

import (
	"errors"
	"reflect"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

// TestKeyword: each kind of row of the keyword table, from the facts a
// converter reads, to the literal issue; a keyword not in the table adds
// nothing.
func TestKeyword(t *testing.T) {
	at := issues.Path{"a"}
	for _, tc := range []struct {
		f    Failure
		want issues.Issue
	}{
		{Failure{Keyword: "type", Path: at, Input: "7", Types: issues.TypeInteger},
			issues.Issue{Code: issues.InvalidType, Path: at, Input: "7", Expected: issues.TypeInteger, Source: "jsonschema:type"}},
		{Failure{Keyword: "enum", Input: "c", Values: []any{"a", "b"}},
			issues.Issue{Code: issues.InvalidValue, Input: "c", Values: []any{"a", "b"}, Source: "jsonschema:enum"}},
		{Failure{Keyword: "format", Input: "x", Want: "email", Err: errors.New("no @")},
			issues.Issue{Code: issues.InvalidFormat, Input: "x", Format: "email", Message: "no @", Source: "jsonschema:format"}},
		{Failure{Keyword: "contentMediaType", Input: "{", Want: "application/json"},
			issues.Issue{Code: issues.InvalidFormat, Input: "{", Format: "json", Source: "jsonschema:contentMediaType"}},
		{Failure{Keyword: "pattern", Input: "x", Want: "^a"},
			issues.Issue{Code: issues.InvalidFormat, Input: "x", Format: "regex", Pattern: "^a", Source: "jsonschema:pattern"}},
		{Failure{Keyword: "minLength", Input: "ab", Min: "3", Max: "3"},
			issues.Issue{Code: issues.TooSmall, Input: "ab", Origin: issues.OriginString, Minimum: "3", Inclusive: true, Exact: true, Source: "jsonschema:minLength"}},
		{Failure{Keyword: "maxItems", Input: []any{1, 2}, Min: "0", Max: "1"},
			issues.Issue{Code: issues.TooBig, Input: []any{1, 2}, Origin: issues.OriginArray, Maximum: "1", Inclusive: true, Source: "jsonschema:maxItems"}},
		{Failure{Keyword: "exclusiveMinimum", Input: 0, Min: "0.5", Origin: issues.OriginNumber},
			issues.Issue{Code: issues.TooSmall, Input: 0, Origin: issues.OriginNumber, Minimum: "0.5", Source: "jsonschema:exclusiveMinimum"}},
		{Failure{Keyword: "maximum", Input: 9, Max: "8", Origin: issues.OriginInteger},
			issues.Issue{Code: issues.TooBig, Input: 9, Origin: issues.OriginInteger, Maximum: "8", Inclusive: true, Source: "jsonschema:maximum"}},
		{Failure{Keyword: "multipleOf", Input: 3, Divisor: "2"},
			issues.Issue{Code: issues.NotMultipleOf, Input: 3, Divisor: "2", Source: "jsonschema:multipleOf"}},
		{Failure{Keyword: "uniqueItems", Values: []any{"x"}},
			issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Values: []any{"x"}, Source: "jsonschema:uniqueItems"}},
		{Failure{Keyword: "maxContains", Min: "1", Max: "2"},
			issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Origin: issues.OriginArray, Minimum: "1", Maximum: "2", Inclusive: true, Source: "jsonschema:maxContains"}},
		{Failure{Keyword: "additionalItems", Max: "2", Min: "9"},
			issues.Issue{Code: issues.TooBig, Origin: issues.OriginArray, Maximum: "2", Inclusive: true, Source: "jsonschema:additionalItems"}},
		{Failure{Keyword: "not", Input: "x"},
			issues.Issue{Code: issues.Custom, Check: issues.CheckNot, Input: "x", Source: "jsonschema:not"}},
	} {
		var k Sink
		if !k.Keyword(&tc.f) {
			t.Errorf("%s: not in the table", tc.f.Keyword)
			continue
		}
		if got := k.Finish(); len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tc.f.Keyword, got, tc.want)
		}
	}
	for _, kw := range []string{"required", "anyOf", "propertyNames", "x-custom", ""} {
		var k Sink
		if k.Keyword(&Failure{Keyword: kw}) || k.Finish() != nil {
			t.Errorf("%q: added an issue", kw)
		}
	}
}

// TestMissing: a required property, and one required because another was
// sent.
func TestMissing(t *testing.T) {
	var k Sink
	k.Missing(issues.Path{"name"}, issues.TypeString, "jsonschema:required", nil)
	k.Missing(issues.Path{"zip"}, 0, "jsonschema:dependentRequired", issues.Path{"city"})
	want := issues.List{
		{Code: issues.InvalidType, Path: issues.Path{"name"}, Absent: true, Expected: issues.TypeString, Source: "jsonschema:required"},
		{Code: issues.InvalidType, Path: issues.Path{"zip"}, Absent: true, Source: "jsonschema:dependentRequired",
			When: &issues.Condition{Op: issues.CondPresent, Fields: []issues.Path{{"city"}}}},
	}
	if got := k.Finish(); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

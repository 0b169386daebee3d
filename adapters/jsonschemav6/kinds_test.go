package jsonschemav6_test

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// TestEveryKind builds an error of each of the library's 39 kinds and
// checks the issue it becomes, and that its line is specific.
func TestEveryKind(t *testing.T) {
	r := func(s string) *big.Rat { x, _ := new(big.Rat).SetString(s); return x }
	leaf := func(k jsonschema.ErrorKind, loc ...string) *jsonschema.ValidationError {
		return &jsonschema.ValidationError{SchemaURL: "mem:///s.json#", InstanceLocation: loc, ErrorKind: k}
	}
	inst := map[string]any{"v": "x", "n": 5.0, "a": []any{1.0, 1.0}, "o": map[string]any{"k": 1.0}}
	typeErr := leaf(&kind.Type{Got: "string", Want: []string{"integer"}}, "v")
	cases := []struct {
		err   *jsonschema.ValidationError
		code  issues.Code
		check string
	}{
		{leaf(&kind.InvalidJsonValue{Value: struct{}{}}, "v"), issues.InvalidType, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.Schema{}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidType, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.Group{}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidType, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.Reference{Keyword: "$ref"}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidType, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.AllOf{}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidType, ""},
		{leaf(&kind.Not{}, "v"), issues.Custom, issues.CheckNot},
		{&jsonschema.ValidationError{ErrorKind: &kind.AnyOf{}, InstanceLocation: []string{"v"}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidUnion, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.OneOf{}, InstanceLocation: []string{"v"}, Causes: []*jsonschema.ValidationError{typeErr}}, issues.InvalidUnion, ""},
		{leaf(&kind.OneOf{Subschemas: []int{0, 1}}, "v"), issues.Custom, issues.CheckOneOf},
		{leaf(&kind.FalseSchema{}, "v"), issues.Custom, issues.CheckNever},
		{leaf(&kind.RefCycle{}, "v"), issues.Custom, issues.CheckNever},
		{typeErr, issues.InvalidType, ""},
		{leaf(&kind.Enum{Want: []any{"a", "b"}}, "v"), issues.InvalidValue, ""},
		{leaf(&kind.Const{Want: "a"}, "v"), issues.InvalidValue, ""},
		{leaf(&kind.Format{Want: "email", Err: fmt.Errorf("missing @")}, "v"), issues.InvalidFormat, ""},
		{leaf(&kind.MinProperties{Got: 1, Want: 2}, "o"), issues.TooSmall, ""},
		{leaf(&kind.MaxProperties{Got: 1, Want: 0}, "o"), issues.TooBig, ""},
		{leaf(&kind.MinItems{Got: 2, Want: 3}, "a"), issues.TooSmall, ""},
		{leaf(&kind.MaxItems{Got: 2, Want: 1}, "a"), issues.TooBig, ""},
		{leaf(&kind.AdditionalItems{Count: 1}, "a"), issues.TooBig, ""},
		{leaf(&kind.Required{Missing: []string{"z"}}), issues.InvalidType, ""},
		{leaf(&kind.Dependency{Prop: "v", Missing: []string{"z"}}), issues.InvalidType, ""},
		{leaf(&kind.DependentRequired{Prop: "v", Missing: []string{"z"}}), issues.InvalidType, ""},
		{leaf(&kind.AdditionalProperties{Properties: []string{"v"}}), issues.UnrecognizedKeys, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.PropertyNames{Property: "v"}, Causes: []*jsonschema.ValidationError{
			leaf(&kind.MaxLength{Got: 1, Want: 0})}}, issues.InvalidKey, ""},
		{leaf(&kind.UniqueItems{Duplicates: [2]int{0, 1}}, "a"), issues.Custom, issues.CheckUnique},
		{leaf(&kind.Contains{}, "a"), issues.Custom, issues.CheckContains},
		{leaf(&kind.MinContains{Want: 3}, "a"), issues.Custom, issues.CheckContains},
		{leaf(&kind.MaxContains{Got: []int{0, 1}, Want: 1}, "a"), issues.Custom, issues.CheckContains},
		{leaf(&kind.MinLength{Got: 1, Want: 2}, "v"), issues.TooSmall, ""},
		{leaf(&kind.MaxLength{Got: 1, Want: 0}, "v"), issues.TooBig, ""},
		{leaf(&kind.Pattern{Got: "x", Want: "^a"}, "v"), issues.InvalidFormat, ""},
		{leaf(&kind.ContentEncoding{Want: "base64"}, "v"), issues.InvalidFormat, ""},
		{leaf(&kind.ContentMediaType{Want: "application/json"}, "v"), issues.InvalidFormat, ""},
		{&jsonschema.ValidationError{ErrorKind: &kind.ContentSchema{}, InstanceLocation: []string{"v"}, Causes: []*jsonschema.ValidationError{
			leaf(&kind.Type{Got: "string", Want: []string{"object"}})}}, issues.Custom, issues.CheckContent},
		{leaf(&kind.Minimum{Got: r("5"), Want: r("6")}, "n"), issues.TooSmall, ""},
		{leaf(&kind.Maximum{Got: r("5"), Want: r("4.5")}, "n"), issues.TooBig, ""},
		{leaf(&kind.ExclusiveMinimum{Got: r("5"), Want: r("5")}, "n"), issues.TooSmall, ""},
		{leaf(&kind.ExclusiveMaximum{Got: r("5"), Want: r("5")}, "n"), issues.TooBig, ""},
		{leaf(&kind.MultipleOf{Got: r("5"), Want: r("2")}, "n"), issues.NotMultipleOf, ""},
	}
	if len(cases) != 40 { // 39 kinds, OneOf twice
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		name := fmt.Sprintf("%T", c.err.ErrorKind)
		list, ok := jsonschemav6.Issues(c.err, inst)
		if !ok || len(list) != 1 {
			t.Errorf("%s: %v %v", name, ok, list)
			continue
		}
		if list[0].Code != c.code || list[0].Check != c.check {
			t.Errorf("%s: got %s/%s, want %s/%s", name, list[0].Code, list[0].Check, c.code, c.check)
		}
		if msg := jsonschematest.CheckRendered(list); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
}

package validatorv10

import (
	"errors"
	"reflect"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/issues"
)

// commonT fails one common tag per field.
type commonT struct {
	ID        string     `json:"id" validate:"uuid"`
	Site      string     `json:"site" validate:"url"`
	Name      string     `json:"name" validate:"alpha"`
	Status    string     `json:"status" validate:"oneof=open paid"`
	Priority  int        `json:"priority" validate:"oneof=1 2 3"`
	Code      string     `json:"code" validate:"len=4"`
	Items     []int      `json:"items" validate:"len=2"`
	Tags      []string   `json:"tags" validate:"min=1"`
	Notes     []string   `json:"notes" validate:"max=1"`
	Score     float64    `json:"score" validate:"lt=10"`
	Count     int        `json:"count" validate:"gt=0"`
	Level     uint       `json:"level" validate:"lte=5"`
	Limit     int        `json:"limit" validate:"gte=0x10"`
	Slug      string     `json:"slug" validate:"contains=-"`
	Prefix    string     `json:"prefix" validate:"startswith=inv_"`
	Role      string     `json:"role" validate:"ne=root"`
	Kind      string     `json:"kind" validate:"eq=user"`
	Pair      []int      `json:"pair" validate:"eq=2"`
	Day       string     `json:"day" validate:"datetime=2006-01-02"`
	Color     string     `json:"color" validate:"iscolor"`
	Owner     *string    `json:"owner" validate:"required"`
	Words     []string   `json:"words" validate:"dive,min=2"`
	Addresses []addressT `json:"addresses" validate:"dive"`
}

func commonValue() commonT {
	return commonT{ID: "x", Site: "x", Name: "a1", Status: "done", Priority: 4, Code: "abcdef",
		Items: []int{1, 2, 3}, Notes: []string{"a", "b"}, Score: 12, Level: 9, Limit: 3, Slug: "ab",
		Prefix: "cus_1", Role: "root", Kind: "bot", Pair: []int{1}, Day: "31/01/2026", Color: "blue",
		Words: []string{"ok", "x"}, Addresses: []addressT{{City: "Paris"}, {}}}
}

// appendCases are the tag table's cases and a few more: a struct failing
// every common tag at once, a user alias, a tag the server registered with
// validator only.
func appendCases() []tc {
	return append(cases(),
		tc{name: "common", run: func(v *validator.Validate) error { return v.Struct(commonValue()) }},
		tc{name: "alias", run: func(v *validator.Validate) error { return v.Var("abc", "five") }},
		tc{name: "alias.or", run: func(v *validator.Validate) error { return v.Var("abc", "mail_or_id") }},
		tc{name: "registered", run: func(v *validator.Validate) error { return v.Var("x", "append_test_sku=EU") }},
	)
}

func appendValidate(t *testing.T) *validator.Validate {
	v := newValidate()
	v.RegisterAlias("five", "len=5")
	v.RegisterAlias("mail_or_id", "email|uuid")
	if err := v.RegisterValidation("append_test_sku", func(validator.FieldLevel) bool { return false }); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAppendIssues: appending into a reused list, or after an issue the
// caller holds, gives the issues Issues gives, and leaves the caller's
// issue alone.
func TestAppendIssues(t *testing.T) {
	v := appendValidate(t)
	for _, c := range appendCases() {
		name := c.name
		if name == "" {
			name = c.tag
		}
		t.Run(name, func(t *testing.T) {
			err := c.run(v)
			want, ok := Issues(err)
			if !ok || len(want) == 0 {
				t.Fatalf("no issues for %v", err)
			}
			got, _ := appendIssues(nil, err, nil)
			for i := range 2 {
				got, ok = appendIssues(got[:0], err, nil)
				if !ok || !reflect.DeepEqual(got, want) {
					t.Fatalf("reused list, call %d:\ngot  %#v\nwant %#v", i, got, want)
				}
			}
			head := issues.Issue{Code: issues.Custom, Message: "kept"}
			got, ok = appendIssues(issues.List{head}, err, nil)
			if !ok || !reflect.DeepEqual(got[0], head) || !reflect.DeepEqual(got[1:], want) {
				t.Fatalf("appended after an issue:\ngot  %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestIssuesShareNothing: two calls for one failure give issues that share
// no memory, so a caller that changes its issues changes no other's.
func TestIssuesShareNothing(t *testing.T) {
	err := newValidate().Struct(commonValue())
	a, _ := Issues(err)
	b, _ := Issues(err)
	for i := range a {
		if a[i].Path != nil && &a[i].Path[0] == &b[i].Path[0] ||
			a[i].Values != nil && &a[i].Values[0] == &b[i].Values[0] {
			t.Errorf("%s: the two calls' issues share memory", a[i].Path)
		}
	}
}

// TestPathsApart: the paths of one call's issues share an array, but
// appending to one of them changes no other.
func TestPathsApart(t *testing.T) {
	list, _ := Issues(newValidate().Struct(commonValue()))
	want := make([]string, len(list))
	for i := range list {
		want[i] = list[i].Path.String()
	}
	for i := range list {
		_ = append(list[i].Path, "x")
	}
	for i := range list {
		if got := list[i].Path.String(); got != want[i] {
			t.Errorf("issue %d: path %s, was %s", i, got, want[i])
		}
	}
}

// TestAppendIssuesFalse: dst comes back as it was wherever Issues reports
// false.
func TestAppendIssuesFalse(t *testing.T) {
	dst := make(issues.List, 1, 4)
	for _, err := range []error{nil, errors.New("other"), validator.ValidationErrors{},
		&validator.InvalidValidationError{Type: reflect.TypeOf(0)}, Map(map[string]any{"a": map[string]any{}})} {
		got, ok := appendIssues(dst, err, nil)
		if ok || len(got) != 1 || &got[0] != &dst[0] {
			t.Errorf("appendIssues(dst, %v) = %d issues, %v", err, len(got), ok)
		}
		if list, ok := Issues(err); ok || list != nil {
			t.Errorf("Issues(%v) = %v, %v", err, list, ok)
		}
	}
}

// TestRulesPerConversion: a tag with a rule is worded by the rule of the
// conversion's own table, whatever other conversions used, and the tables
// do not leak into each other.
func TestRulesPerConversion(t *testing.T) {
	const tag = "append_test_rule"
	v := newValidate()
	if err := v.RegisterValidation(tag, func(validator.FieldLevel) bool { return false }); err != nil {
		t.Fatal(err)
	}
	err := v.Var("x", tag+"=EU")
	eu := map[string]Rule{tag: {Message: "Must be a SKU of {param}"}}
	other := map[string]Rule{tag: {Format: "semver"}}
	for range 2 {
		plain, _ := appendIssues(nil, err, nil)
		if plain[0].Check != checkRule || plain[0].Format != tag {
			t.Fatalf("without rules: %#v", plain[0])
		}
		worded, _ := appendIssues(nil, err, eu)
		if worded[0].Message != "Must be a SKU of EU" || worded[0].Check != "" {
			t.Fatalf("with a rule: %#v", worded[0])
		}
		formatted, _ := appendIssues(nil, err, other)
		if formatted[0].Format != "semver" || formatted[0].Code != issues.InvalidFormat {
			t.Fatalf("with another rule: %#v", formatted[0])
		}
	}
}

// TestRootPathNotNil: a failure at the root has an empty path, not a nil
// one, whichever issue of the conversion it is.
func TestRootPathNotNil(t *testing.T) {
	list, _ := Issues(newValidate().Var("x", "email"))
	if list[0].Path == nil || len(list[0].Path) != 0 {
		t.Errorf("path %#v, want an empty one", list[0].Path)
	}
}

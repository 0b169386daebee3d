package validatorv10_test

import (
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

type createUser struct {
	Name string `json:"name" validate:"required"`
	Age  int    `json:"age" validate:"gte=18"`
}

// TestFacade: the engine accepts validator's errors directly, and answers
// a programming error (validating nil) as INTERNAL_ERROR, not as bad input.
func TestFacade(t *testing.T) {
	validate := validator.New()
	e := selfheal.New(selfheal.WithAdapters(validatorv10.Errors))
	out := e.Format("users.create", validate.Struct(createUser{Age: 3}))
	for _, want := range []string{`<validation_error action="users.create">`,
		`<field name="Name">You sent: nothing.`, `<field name="Age">You sent: 3.`} {
		if !strings.Contains(out, want) {
			t.Errorf("Format lacks %q:\n%s", want, out)
		}
	}
	err := validate.Struct(nil)
	if _, ok := err.(*validator.InvalidValidationError); !ok {
		t.Fatalf("validate.Struct(nil) = %T", err)
	}
	out = e.Format("users.create", err)
	if !strings.Contains(out, `<tool_error code="INTERNAL_ERROR"`) || strings.Contains(out, "validation_error") {
		t.Errorf("InvalidValidationError gives:\n%s", out)
	}
}

// TestFacadeAppendAllocs: a server answering into a reused buffer gets
// Format's answer every time, and the engine (its pooled list, the
// rendering) allocates nothing beyond what the adapter builds: each
// issue's path.
func TestFacadeAppendAllocs(t *testing.T) {
	validate := validator.New()
	e := selfheal.New(selfheal.WithAdapters(validatorv10.Errors))
	err := validate.Struct(createUser{Age: 3})
	want := e.Format("users.create", err)
	buf := e.Append(nil, "users.create", err)
	for range 3 {
		if buf = e.Append(buf[:0], "users.create", err); string(buf) != want {
			t.Fatalf("Append gave\n%s\nwant\n%s", buf, want)
		}
	}
	if race.Enabled {
		return // allocation counts are meaningless under the race detector
	}
	var list issues.List
	adapter := testing.AllocsPerRun(100, func() { list, _ = validatorv10.Errors(list[:0], err) })
	if n := testing.AllocsPerRun(100, func() { buf = e.Append(buf[:0], "users.create", err) }); n > adapter {
		t.Errorf("Engine.Append of a validator error allocates %v per call, the adapter alone %v", n, adapter)
	}
}

// TestErrorsWith: an engine words a server's tag by the rules of the
// adapter it was given, for a raw error and for Bind's alike, and an
// engine given other rules or none is not changed by them; a bad rule
// fails at once.
func TestErrorsWith(t *testing.T) {
	validate := validator.New()
	if err := validate.RegisterValidation("sku", func(validator.FieldLevel) bool { return false }); err != nil {
		t.Fatal(err)
	}
	type item struct {
		ID string `validate:"sku=EU"`
	}
	words, err := validatorv10.ErrorsWith(map[string]validatorv10.Rule{"sku": {Message: "Must be a SKU of {param}"}})
	if err != nil {
		t.Fatal(err)
	}
	asFormat, err := validatorv10.ErrorsWith(map[string]validatorv10.Rule{"sku": {Format: "semver"}})
	if err != nil {
		t.Fatal(err)
	}
	raw := validate.Struct(item{ID: "x"})
	const (
		rule   = `<field name="ID">Must be a SKU of EU. You sent: 'x'.</field>`
		semver = `<field name="ID">You sent: 'x'. Expected a semantic version (MAJOR.MINOR.PATCH), e.g. '1.2.3'.</field>`
		plain  = `<field name="ID">Does not pass the 'sku' check. You sent: 'x'. Expected a value that passes it.</field>`
	)
	for _, tc := range []struct {
		name string
		e    *selfheal.Engine
		err  error
		want string
	}{
		{"rules, raw", selfheal.New(selfheal.WithAdapters(words)), raw, rule},
		{"rules, bound", selfheal.New(selfheal.WithAdapters(words)), validatorv10.Bind(raw, item{ID: "x"}), rule},
		{"other rules", selfheal.New(selfheal.WithAdapters(asFormat)), raw, semver},
		{"Errors", selfheal.New(selfheal.WithAdapters(validatorv10.Errors)), raw, plain},
		{"no adapter, bound", selfheal.New(), validatorv10.Bind(raw, item{ID: "x"}), plain},
	} {
		if got := tc.e.Format("a", tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.name, tc.want, got)
		}
	}
	for _, bad := range []map[string]validatorv10.Rule{
		{"required": {Message: "x"}},
		{"a b": {Message: "x"}},
		{"sku": {}},
		{"sku": {Message: "x", Format: "email"}},
		{"sku": {Message: "{value}"}},
	} {
		if _, err := validatorv10.ErrorsWith(bad); err == nil {
			t.Errorf("ErrorsWith(%v) accepted", bad)
		}
	}
}

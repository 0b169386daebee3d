package selfheal_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
)

type rawUser struct {
	Name    string   `validate:"required"`
	Age     int      `validate:"gte=18"`
	Tags    []string `validate:"dive,min=2"`
	Address struct {
		City string `validate:"required"`
	}
}

// TestRawValidatorErrors: a validator.ValidationErrors passed as the
// validator returns it, in a program that need not import
// adapters/validatorv10, is a validation_error naming each field, never an
// INTERNAL_ERROR telling the model its arguments were fine.
func TestRawValidatorErrors(t *testing.T) {
	err := validator.New().Struct(rawUser{Age: 3, Tags: []string{"ok", "x"}})
	e := selfheal.New()
	for _, err := range []error{err, fmt.Errorf("validate: %w", err)} {
		got := e.Format("users.create", err)
		for _, want := range []string{`<validation_error action="users.create">`,
			`<field name="Name">`, `<field name="Age">`, `<field name="Tags[1]">`, `<field name="Address.City">`} {
			if !strings.Contains(got, want) {
				t.Errorf("Format lacks %q:\n%s", want, got)
			}
		}
		if res, _ := e.Result("users.create", err); res.String() != got {
			t.Errorf("Result differs from Format:\n%s", res.String())
		}
	}
	if got := e.Format("users.create", validator.New().Struct(nil)); !strings.Contains(got, `code="INTERNAL_ERROR"`) {
		t.Errorf("InvalidValidationError gives:\n%s", got)
	}
}

// TestRawJSONErrors: encoding/json's decode errors, in a program that need
// not import adapters/jsondecode, are a validation_error, never an
// INTERNAL_ERROR.
func TestRawJSONErrors(t *testing.T) {
	var args struct {
		Age int `json:"age"`
	}
	typeErr := json.Unmarshal([]byte(`{"age":"12"}`), &args)
	syntaxErr := json.Unmarshal([]byte(`{"age":`), &args)
	e := selfheal.New()
	for _, tc := range []struct {
		err  error
		want string
	}{{typeErr, `<field name="age">`}, {fmt.Errorf("bind: %w", syntaxErr), `<field name="(root)">`}} {
		got := e.Format("users.create", tc.err)
		if !strings.Contains(got, `<validation_error action="users.create">`) || !strings.Contains(got, tc.want) {
			t.Errorf("%v gives:\n%s", tc.err, got)
		}
	}
}

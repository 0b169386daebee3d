package validatorv10_test

import (
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/internal/race"
)

type createUser struct {
	Name string `json:"name" validate:"required"`
	Age  int    `json:"age" validate:"gte=18"`
}

// TestFacade: the engine accepts validator's errors directly, and answers
// a programming error (validating nil) as INTERNAL_ERROR, not as bad input.
func TestFacade(t *testing.T) {
	validate := validator.New()
	e := selfheal.New()
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

// TestFacadeAppendAllocs: the engine converts a validator error into a
// pooled list, so a server answering into a reused buffer allocates
// nothing once warm, and the answer is the same as Format's every time.
func TestFacadeAppendAllocs(t *testing.T) {
	validate := validator.New()
	e := selfheal.New()
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
	if n := testing.AllocsPerRun(100, func() { buf = e.Append(buf[:0], "users.create", err) }); n != 0 {
		t.Errorf("Engine.Append of a validator error allocates %v per call", n)
	}
}

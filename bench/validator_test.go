package bench

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/locales/en"
	ut "github.com/go-playground/universal-translator"
	"github.com/go-playground/validator/v10"
	entrans "github.com/go-playground/validator/v10/translations/en"

	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/formatter"
)

type benchUser struct {
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"email"`
	Bio   string `json:"bio" validate:"min=10"`
	Age   int    `json:"age" validate:"gte=18"`
}

// BenchmarkValidator compares, on one validate.Struct failure with 4
// failing fields, what a server can send today, (a) the validator's own
// Error() and (b) its English translations, with (c) this adapter plus
// rendering the validation_error into a reused buffer. DESIGN.md 5 wants
// (c) at most 0.3 × (a), and at most 2 allocations.
func BenchmarkValidator(b *testing.B) {
	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	eng := en.New()
	uni := ut.New(eng, eng)
	trans, _ := uni.GetTranslator("en")
	if err := entrans.RegisterDefaultTranslations(validate, trans); err != nil {
		b.Fatal(err)
	}
	err := validate.Struct(benchUser{Email: "not-an-email", Bio: "short", Age: 3})
	ve := err.(validator.ValidationErrors)
	if len(ve) != 4 {
		b.Fatalf("%d failing fields, want 4", len(ve))
	}
	b.Run("a=ValidationErrors.Error", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ve.Error()
		}
	})
	b.Run("b=Translate(en)", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ve.Translate(trans)
		}
	})
	b.Run("c=selfheal", func(b *testing.B) {
		f := formatter.New(formatter.DefaultOptions())
		list, _ := validatorv10.Issues(err)
		buf := f.AppendValidation(nil, "users.create", list)
		b.ReportAllocs()
		for b.Loop() {
			list, _ := validatorv10.Issues(err)
			buf = f.AppendValidation(buf[:0], "users.create", list)
		}
	})
}

package bench

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/locales/en"
	ut "github.com/go-playground/universal-translator"
	"github.com/go-playground/validator/v10"
	entrans "github.com/go-playground/validator/v10/translations/en"

	"github.com/selfheal/selfheal"
	_ "github.com/selfheal/selfheal/adapters/validatorv10" // registers its converter with internal/recognize
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/recognize"
	"github.com/selfheal/selfheal/issues"
)

type benchUser struct {
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"email"`
	Bio   string `json:"bio" validate:"min=10"`
	Age   int    `json:"age" validate:"gte=18"`
}

// variants is how many different failing values the benchmarks cycle
// through, so that no cache can answer from the value sent.
const variants = 16

// BenchmarkValidator compares, on validate.Struct failures with 4 failing
// fields (16 variants with different values, cycled), what a server can
// send today, (a) the validator's own Error() and (b) its English
// translations, with (c) this adapter plus rendering the validation_error
// into a reused buffer and (d) the same through the facade's Engine.Append.
// DESIGN.md 5 wants (c) at most 0.3 × (a), and at most 2 allocations.
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
	errs := make([]error, variants)
	for i := range errs {
		u := benchUser{Email: fmt.Sprintf("not-an-email-%d", i), Bio: strings.Repeat("s", i%10), Age: i}
		errs[i] = validate.Struct(u)
		if ve, ok := errs[i].(validator.ValidationErrors); !ok || len(ve) != 4 {
			b.Fatalf("variant %d: %v, want 4 failing fields", i, errs[i])
		}
	}
	b.Run("a=ValidationErrors.Error", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = errs[i%variants].Error()
			i++
		}
	})
	b.Run("b=Translate(en)", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = errs[i%variants].(validator.ValidationErrors).Translate(trans)
			i++
		}
	})
	b.Run("c=selfheal", func(b *testing.B) {
		f := formatter.New(formatter.DefaultOptions())
		var list issues.List
		var buf []byte
		for _, err := range errs {
			list, _ = recognize.AppendTyped(list[:0], err)
			buf = f.AppendValidation(buf[:0], "users.create", list)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			list, _ = recognize.AppendTyped(list[:0], errs[i%variants])
			buf = f.AppendValidation(buf[:0], "users.create", list)
			i++
		}
	})
	b.Run("d=Engine.Append", func(b *testing.B) {
		e := selfheal.New()
		var buf []byte
		for _, err := range errs {
			buf = e.Append(buf[:0], "users.create", err)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			buf = e.Append(buf[:0], "users.create", errs[i%variants])
			i++
		}
	})
}

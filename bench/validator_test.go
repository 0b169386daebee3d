package bench

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-playground/locales/en"
	ut "github.com/go-playground/universal-translator"
	"github.com/go-playground/validator/v10"
	entrans "github.com/go-playground/validator/v10/translations/en"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/xmlenc"
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
// docs/ARCHITECTURE.md 5 wants (c) at most 1 × (a).
// (z) writes (c)'s bytes, checked equal, with code written for these four
// sites alone: how far (c) is from what the bytes themselves cost.
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
	errs := benchUserErrors(b, validate)
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
			list, _ = validatorv10.Errors(list[:0], err)
			buf = f.AppendValidation(buf[:0], "users.create", list)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			list, _ = validatorv10.Errors(list[:0], errs[i%variants])
			buf = f.AppendValidation(buf[:0], "users.create", list)
			i++
		}
	})
	b.Run("z=floor", func(b *testing.B) {
		// The same bytes as (c), written by code compiled by hand for these
		// four sites: the text around each value is a constant. It is no
		// design, only the floor that any rendering of these answers pays
		// (the validator's accessors, a sort, the values and the copies).
		checkFloor(b, errs)
		var buf []byte
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			buf = appendFloor(buf[:0], errs[i%variants].(validator.ValidationErrors))
			i++
		}
	})
	b.Run("d=Engine.Append", func(b *testing.B) {
		e := selfheal.New(selfheal.WithAdapters(validatorv10.Errors))
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

// benchUserErrors returns the 16 variants' failures of validate.Struct.
func benchUserErrors(tb testing.TB, validate *validator.Validate) []error {
	tb.Helper()
	errs := make([]error, variants)
	for i := range errs {
		u := benchUser{Email: fmt.Sprintf("not-an-email-%d", i), Bio: strings.Repeat("s", i%10), Age: i}
		errs[i] = validate.Struct(u)
		if ve, ok := errs[i].(validator.ValidationErrors); !ok || len(ve) != 4 {
			tb.Fatalf("variant %d: %v, want 4 failing fields", i, errs[i])
		}
	}
	return errs
}

// TestValidatorFloor keeps BenchmarkValidator's floor honest when the
// wording changes: (z) must write what (c) writes, byte for byte.
func TestValidatorFloor(t *testing.T) {
	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	checkFloor(t, benchUserErrors(t, validate))
}

// checkFloor fails unless appendFloor writes, for every error, the bytes
// the adapter and the formatter write.
func checkFloor(tb testing.TB, errs []error) {
	tb.Helper()
	var want, got []byte
	var list issues.List
	f := formatter.New(formatter.DefaultOptions())
	for _, err := range errs {
		list, _ = validatorv10.Errors(list[:0], err)
		want = f.AppendValidation(want[:0], "users.create", list)
		if got = appendFloor(got[:0], err.(validator.ValidationErrors)); string(got) != string(want) {
			tb.Fatalf("the floor writes\n%s\nwhere (c) writes\n%s\nupdate appendFloor to the new wording", got, want)
		}
	}
}

// appendFloor writes the validation_error of a benchUser's failures as
// (c) does, with everything but the values written in advance.
func appendFloor(dst []byte, ve validator.ValidationErrors) []byte {
	var sorted [4]validator.FieldError
	n := copy(sorted[:], ve)
	for i := 1; i < n; i++ {
		for j := i; j > 0 && sorted[j].Field() < sorted[j-1].Field(); j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	dst = append(dst, "<validation_error action=\"users.create\">\n"...)
	for _, fe := range sorted[:n] {
		switch fe.Field() {
		case "age":
			dst = append(dst, "  <field name=\"age\">You sent: "...)
			dst = strconv.AppendInt(dst, int64(fe.Value().(int)), 10)
			dst = append(dst, ". Expected at least 18.</field>\n"...)
		case "bio":
			v := fe.Value().(string)
			dst = append(dst, "  <field name=\"bio\">You sent: '"...)
			dst = xmlenc.AppendText(dst, v)
			dst = append(dst, '\'')
			if v != "" { // '' shows its size
				dst = append(dst, " ("...)
				dst = strconv.AppendInt(dst, int64(utf8.RuneCountInString(v)), 10)
				if utf8.RuneCountInString(v) == 1 {
					dst = append(dst, " character"...)
				} else {
					dst = append(dst, " characters"...)
				}
				dst = append(dst, ')')
			}
			dst = append(dst, ". Expected at least 10 characters.</field>\n"...)
		case "email":
			dst = append(dst, "  <field name=\"email\">Invalid email format. You sent: '"...)
			dst = xmlenc.AppendText(dst, fe.Value().(string))
			dst = append(dst, "'. Expected a valid email address, e.g. 'user@example.com'.</field>\n"...)
		case "name":
			dst = append(dst, "  <field name=\"name\">You sent: nothing. Expected a string.</field>\n"...)
		}
	}
	return append(dst, "  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"...)
}

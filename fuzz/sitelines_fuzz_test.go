package fuzz

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/validatorv10"
)

// siteForm fails at sites whose lines the formatter keeps (sizes, formats,
// a missing field), with the values a model sent.
type siteForm struct {
	Name  string   `json:"name" validate:"required"`
	Email string   `json:"email" validate:"email"`
	Bio   string   `json:"bio" validate:"min=40"`
	Code  string   `json:"code" validate:"startswith=ab"`
	Tags  []string `json:"tags" validate:"max=1"`
	Note  any      `json:"note" validate:"max=2"`
}

// FuzzSiteLines: a raw validator error is worded through the sites the
// adapter records, whose lines the formatter keeps with their text escaped
// in advance; the same error's issues handed over as an issues.List have
// no sites. Both must read the same, call after call, whatever the values
// sent, in English, in Japanese, and with messages whose text after a
// value could complete an XML "]]>" or a character.
func FuzzSiteLines(f *testing.F) {
	for _, s := range nasty() {
		f.Add(s, s, s, s)
	}
	f.Add("", "not-an-email", "short", "xy")
	f.Add("Ann", "a]]", "]]", "a\xe2\x82")
	v := validator.New()
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	odd, err := selfheal.New().WithTemplates(map[string]string{
		"too_small.string":           "{sent}]>{size}] short",
		"too_big.array":              "{sent}]>{size}",
		"invalid_format":             "{sent}]]>{format_expected}",
		"invalid_type.missing":       "]{sent}>",
		"invalid_format.starts_with": "{sent}\u00e9{pattern}",
	})
	if err != nil {
		f.Fatal(err)
	}
	engines := []*selfheal.Engine{selfheal.New(), selfheal.New(selfheal.WithLocale("ja"), selfheal.WithMaxValueRunes(5)), odd}
	f.Fuzz(func(t *testing.T, name, email, bio, code string) {
		form := siteForm{Name: name, Email: email, Bio: bio, Code: code, Tags: []string{name, bio}, Note: []any{email, code, name}}
		if len(name)%2 == 1 {
			form.Note = name + bio // another kind of value at the same site
		}
		err := v.Struct(form)
		list, ok := validatorv10.Issues(err)
		if !ok {
			return // every field may pass
		}
		for _, e := range engines {
			want := e.Format("t", list)
			for call := 1; call <= 3; call++ { // the sites are kept from the second
				if got := e.Format("t", err); got != want {
					t.Fatalf("call %d through sites:\n%s\nwant\n%s", call, got, want)
				}
			}
		}
	})
}

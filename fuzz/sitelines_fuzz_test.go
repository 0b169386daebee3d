package fuzz

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/internal/facade"
	"github.com/selfheal/selfheal/internal/jsonschematest"
	"github.com/selfheal/selfheal/internal/schemaconv"
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

// siteSchema fails at JSON Schema sites whose lines the formatter keeps:
// lengths, counts, bounds, a pattern, missing properties, nested and at
// the root, and types, allowed values and items repeated, whose lines are
// chosen by the value too (a quoted number, a did-you-mean); items fail at a node that
// applies at many paths, which has none. A misspelt key sent for a missing
// property is merged with it, at the property's site, when the adapter
// does not catch it as a near miss first (without WithTypos).
const siteSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["name", "city", "address"],
  "minProperties": 4,
  "properties": {
    "name": {"type": "string", "minLength": 3, "maxLength": 6},
    "zip": {"type": "string", "pattern": "^[0-9]{5}$"},
    "qty": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10},
    "note": {"maxLength": 2, "maxItems": 1, "maxProperties": 1},
    "tags": {"type": "array", "maxItems": 1, "uniqueItems": true, "items": {"type": "string", "minLength": 2}},
    "address": {"type": "object", "required": ["street"], "properties": {"street": {"type": "string", "minLength": 4}}},
    "count": {"type": "integer"},
    "role": {"enum": ["admin", "member", "viewer", 3]},
    "kind": {"const": "user"}
  }
}`

// FuzzSchemaSiteLines: the issues of a JSON Schema validation worded
// through the sites they were built at, as the MCP integrations and the
// proxy word them, read as the same issues without sites, call after
// call, whatever the values sent, in English, in Japanese and with
// messages whose text after a value could complete an XML "]]>".
func FuzzSchemaSiteLines(f *testing.F) {
	for _, s := range nasty() {
		f.Add(s, s, s, int64(len(s)))
	}
	f.Add("A", "7-001", "x", int64(0))
	f.Add("Ann", "12345", "ok", int64(11))
	var schemas []*jsonschemav6.Schema
	for _, typos := range []bool{true, false} {
		sch, err := jsonschemav6.Compile([]byte(siteSchema), jsonschemav6.WithTypos(typos))
		if err != nil {
			f.Fatal(err)
		}
		schemas = append(schemas, sch)
	}
	probe := map[string]any{"name": "A", "zip": "x", "address": map[string]any{"street": "a"}}
	if _, sites, _ := schemaconv.ValidateAt(schemas[0], any(probe)); len(sites) == 0 {
		f.Fatal("no issue was built at a site: the target would check nothing")
	}
	engines := jsonschematest.SiteEngines(f)
	f.Fuzz(func(t *testing.T, name, zip, note string, qty int64) {
		args := map[string]any{"zip": zip, "qty": json.Number(strconv.FormatInt(qty, 10)),
			"tags": []any{name, note}, "address": map[string]any{"street": note},
			"count": zip, "role": note, "kind": name} // a quoted number or not, a near value or not
		switch qty % 4 {
		case 0:
			args["name"] = name
			args["note"] = note
		case 1: // other kinds of value at the same sites
			args["name"] = json.Number("1")
			args["note"] = []any{name, zip}
		case 2:
			args["note"] = map[string]any{name: 1, zip: 2}
			args["nmae"] = name // a near miss of a missing property
		case 3:
			args["name"] = name
			delete(args, "address")
		}
		for _, sch := range schemas {
			list, sites, ok := schemaconv.ValidateAt(sch, any(args))
			if !ok {
				t.Fatal("the adapter set no ValidateAt")
			}
			if list == nil {
				continue
			}
			for _, e := range engines {
				want := e.Format("t", list)
				for call := 1; call <= 3; call++ { // the sites are kept from the second
					if got := facade.FormatAt(e, "t", list, sites); got != want {
						t.Fatalf("call %d through sites:\n%s\nwant\n%s", call, got, want)
					}
				}
			}
		}
	})
}

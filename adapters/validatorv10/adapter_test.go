package validatorv10

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/issues"
)

// fixedNow is the clock of the tests: time.Time bounds compare with it.
var fixedNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func init() { now = func() time.Time { return fixedNow } }

// newValidate returns a validator that names fields by their JSON names, as
// a server answering a model should.
func newValidate() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// crossT has one field failing per cross-field and conditional tag; each
// field's JSON name is the tag it covers.
type crossT struct {
	Mode     string    `json:"mode"`
	Plan     string    `json:"plan"`
	Email    string    `json:"email"`
	Phone    string    `json:"phone"`
	Fax      string    `json:"fax"`
	Password string    `json:"password"`
	Min      int       `json:"min"`
	Start    time.Time `json:"start"`
	Name     string    `json:"name"`
	Country  string    `json:"country"`
	Inner    innerT    `json:"inner"`

	RequiredIf         string `json:"required_if" validate:"required_if=Mode on"`
	RequiredUnless     string `json:"required_unless" validate:"required_unless=Plan free"`
	RequiredWith       string `json:"required_with" validate:"required_with=Email Phone"`
	RequiredWithAll    string `json:"required_with_all" validate:"required_with_all=Email Mode"`
	RequiredWithout    string `json:"required_without" validate:"required_without=Phone"`
	RequiredWithoutAll string `json:"required_without_all" validate:"required_without_all=Phone Fax"`
	ExcludedIf         string `json:"excluded_if" validate:"excluded_if=Mode on"`
	ExcludedUnless     string `json:"excluded_unless" validate:"excluded_unless=Plan free"`
	ExcludedWith       string `json:"excluded_with" validate:"excluded_with=Email"`
	ExcludedWithAll    string `json:"excluded_with_all" validate:"excluded_with_all=Email Mode"`
	ExcludedWithout    string `json:"excluded_without" validate:"excluded_without=Phone"`
	ExcludedWithoutAll string `json:"excluded_without_all" validate:"excluded_without_all=Phone Fax"`
	SkipUnless         string `json:"skip_unless" validate:"skip_unless=Mode on"`

	EqField       string    `json:"eqfield" validate:"eqfield=Email"`
	NeField       string    `json:"nefield" validate:"nefield=Email"`
	GtField       int       `json:"gtfield" validate:"gtfield=Min"`
	GteField      int       `json:"gtefield" validate:"gtefield=Min"`
	LtField       int       `json:"ltfield" validate:"ltfield=Min"`
	LteField      int       `json:"ltefield" validate:"ltefield=Min"`
	GtTime        time.Time `json:"gtfield_time" validate:"gtfield=Start"`
	EqCsField     string    `json:"eqcsfield" validate:"eqcsfield=Inner.Code"`
	NeCsField     string    `json:"necsfield" validate:"necsfield=Inner.Code"`
	GtCsField     int       `json:"gtcsfield" validate:"gtcsfield=Inner.Count"`
	GteCsField    int       `json:"gtecsfield" validate:"gtecsfield=Inner.Count"`
	LtCsField     int       `json:"ltcsfield" validate:"ltcsfield=Inner.Count"`
	LteCsField    int       `json:"ltecsfield" validate:"ltecsfield=Inner.Count"`
	FieldContains string    `json:"fieldcontains" validate:"fieldcontains=Name"`
	FieldExcludes string    `json:"fieldexcludes" validate:"fieldexcludes=Name"`
	Postcode      string    `json:"postcode_iso3166_alpha2_field" validate:"postcode_iso3166_alpha2_field=Country"`
	PasswordAgain string    `json:"password_again" validate:"eqfield=Password"`
}

type innerT struct {
	Code  string `json:"code"`
	Count int    `json:"count"`
}

func crossValue() crossT {
	return crossT{
		Mode: "on", Plan: "pro", Email: "a@example.com", Password: "hunter2", Min: 5,
		Start: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Name: "bob", Country: "US",
		Inner: innerT{Code: "X1", Count: 5},

		ExcludedIf: "x", ExcludedUnless: "x", ExcludedWith: "x", ExcludedWithAll: "x", ExcludedWithout: "x", ExcludedWithoutAll: "x",
		EqField: "b@example.com", NeField: "a@example.com", GtField: 5, GteField: 4, LtField: 5, LteField: 6,
		GtTime:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		EqCsField: "X2", NeCsField: "X1", GtCsField: 5, GteCsField: 4, LtCsField: 5, LteCsField: 6,
		FieldContains: "alice", FieldExcludes: "bobby", Postcode: "ABC", PasswordAgain: "hunter3",
	}
}

type diveT struct {
	Tags      []string          `json:"tags" validate:"dive,min=2"`
	Labels    map[string]string `json:"labels" validate:"dive,keys,alpha,endkeys,required"`
	Addresses []addressT        `json:"addresses" validate:"dive"`
	Items     []itemT           `json:"items" validate:"unique=SKU"`
}

type addressT struct {
	City string `json:"city" validate:"required"`
}

type itemT struct {
	SKU string `json:"sku"`
}

// rangeT fails its own Validate method.
type rangeT struct{ From, To int }

func (r rangeT) Validate() error {
	if r.From > r.To {
		return errors.New("from must not be after to")
	}
	return nil
}

type fnT struct {
	Range rangeT `json:"range" validate:"validateFn"`
	OK    okT    `json:"ok" validate:"validateFn=Valid"`
}

// fakeFE is a field error as validator builds it, for a tag that no
// value fails on this platform.
type fakeFE struct {
	validator.FieldError
	tag   string
	value any
	kind  reflect.Kind
}

func (f fakeFE) Tag() string             { return f.tag }
func (f fakeFE) ActualTag() string       { return f.tag }
func (f fakeFE) Namespace() string       { return "" }
func (f fakeFE) StructNamespace() string { return "" }
func (f fakeFE) Field() string           { return "" }
func (f fakeFE) StructField() string     { return "" }
func (f fakeFE) Value() any              { return f.value }
func (f fakeFE) Param() string           { return "" }
func (f fakeFE) Kind() reflect.Kind      { return f.kind }
func (f fakeFE) Type() reflect.Type      { return reflect.TypeOf(f.value) }

// okT's method fails with a bare false.
type okT struct{ N int }

func (o okT) Valid() bool { return o.N > 0 }

// tc is one failing example: the tag it covers, how to fail it, and the
// issue's facts (code, path and key parameters, see facts).
type tc struct {
	tag  string
	name string
	run  func(v *validator.Validate) error
	want string
}

func varCase(tag, name string, value any, spec, want string) tc {
	return tc{tag: tag, name: name, want: want, run: func(v *validator.Validate) error { return v.Var(value, spec) }}
}

// cases lists one failing example for every tag of the spec (see
// TestEveryTagHasACase), the aliases and or-groups.
func cases() []tc {
	out := []tc{
		varCase("required", "", "", "required", "invalid_type (root) absent expected=string"),
		varCase("required", "required.nil", (*int)(nil), "required", "invalid_type (root) absent expected=integer"),
		varCase("len", "len.string", "abc", "len=5", "too_small (root) origin=string min=5 incl exact"),
		varCase("len", "len.string.long", "abcdefg", "len=5", "too_big (root) origin=string max=5 incl exact"),
		varCase("len", "len.slice", []int{1}, "len=2", "too_small (root) origin=array min=2 incl exact"),
		varCase("len", "len.int", 3, "len=2", "invalid_value (root) origin=integer values=[2]"),
		varCase("min", "", "ab", "min=3", "too_small (root) origin=string min=3 incl"),
		varCase("min", "min.unicode", "日本", "min=3", "too_small (root) origin=string min=3 incl"),
		varCase("min", "min.map", map[string]int{}, "min=1", "too_small (root) origin=map min=1 incl"),
		varCase("min", "min.float", 0.5, "min=1.5", "too_small (root) origin=number min=1.5 incl"),
		varCase("min", "min.duration", 500*time.Millisecond, "min=1s", "too_small (root) origin=duration min=1s incl"),
		varCase("max", "", []string{"a", "b", "c"}, "max=2", "too_big (root) origin=array max=2 incl"),
		varCase("max", "max.uint", uint(300), "max=255", "too_big (root) origin=integer max=255 incl"),
		varCase("max", "max.duration", 2*time.Hour, "max=1h30m", "too_big (root) origin=duration max=1h30m incl"),
		varCase("eq", "", "no", "eq=yes", "invalid_value (root) values=[yes]"),
		varCase("eq", "eq.int", 4, "eq=5", "invalid_value (root) values=[5]"),
		varCase("eq", "eq.slice", []int{1}, "eq=2", "too_small (root) origin=array min=2 incl exact"),
		varCase("ne", "", "admin", "ne=admin", "invalid_value (root) check=not values=[admin]"),
		varCase("ne", "ne.int", 0, "ne=0", "invalid_value (root) check=not values=[0]"),
		varCase("gt", "", 0, "gt=0", "too_small (root) origin=integer min=0"),
		varCase("gt", "gt.time", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "gt", "too_small (root) origin=date min=2026-03-01T12:00:00Z"),
		varCase("gte", "", 17, "gte=18", "too_small (root) origin=integer min=18 incl"),
		varCase("gte", "gte.hex", 1, "gte=0x10", "too_small (root) origin=integer min=16 incl"),
		varCase("lt", "", 10.0, "lt=10", "too_big (root) origin=number max=10"),
		varCase("lt", "lt.time", time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), "lt", "too_big (root) origin=date max=2026-03-01T12:00:00Z"),
		varCase("lte", "", "abcdef", "lte=5", "too_big (root) origin=string max=5 incl"),
		varCase("eq_ignore_case", "", "no", "eq_ignore_case=Yes", "invalid_value (root) values=[Yes]"),
		varCase("ne_ignore_case", "", "ADMIN", "ne_ignore_case=admin", "invalid_value (root) check=not values=[admin]"),
		varCase("oneof", "", "done", "oneof=open paid 'not paid'", "invalid_value (root) values=[open paid not paid]"),
		varCase("oneof", "oneof.int", 4, "oneof=1 2 3", "invalid_value (root) values=[1 2 3]"),
		varCase("oneofci", "", "Done", "oneofci=open paid", "invalid_value (root) values=[open paid]"),
		varCase("noneof", "", "root", "noneof=root admin", "invalid_value (root) check=not values=[root admin]"),
		varCase("noneofci", "", "ROOT", "noneofci=root admin", "invalid_value (root) check=not values=[root admin]"),
		varCase("unique", "", []string{"a", "b", "a", "b", "c"}, "unique", "custom (root) check=unique values=[a b]"),
		varCase("unique", "unique.map", map[string]int{"x": 1, "y": 1}, "unique", "custom (root) check=unique values=[1]"),
		varCase("isdefault", "", "set", "isdefault", "custom (root) check=default"),
		{tag: "validateFn", want: "custom range message=from must not be after to", run: func(v *validator.Validate) error {
			return v.Struct(fnT{Range: rangeT{From: 5, To: 1}, OK: okT{N: 1}})
		}},
		{tag: "validateFn", name: "validateFn.bool", want: "custom ok check=method", run: func(v *validator.Validate) error {
			return v.Struct(fnT{Range: rangeT{From: 1, To: 5}})
		}},
		{tag: "unix_addr", want: "invalid_format (root) format=unix_addr", run: func(v *validator.Validate) error {
			// No string fails unix_addr on this platform (net.ResolveUnixAddr
			// accepts any): the error is the one validator would build.
			return validator.ValidationErrors{fakeFE{tag: "unix_addr", value: "x", kind: reflect.String}}
		}},
		varCase("datetime", "", "31/01/2026", "datetime=2006-01-02", "invalid_format (root) format=time_layout layout=2006-01-02"),
		varCase("postcode_iso3166_alpha2", "", "ABC", "postcode_iso3166_alpha2=US", "invalid_format (root) format=postcode country=US"),
		varCase("mimetype", "", "/no/such/file", "mimetype=image/png", "invalid_format (root) format=mimetype param=image/png"),
		varCase("contains", "", "hello", "contains=@", "invalid_format (root) format=includes includes=@"),
		varCase("containsany", "", "abc", "containsany=!@#", "invalid_format (root) format=includes_any includes=!@#"),
		varCase("containsrune", "", "abc", "containsrune=☺", "invalid_format (root) format=includes includes=☺"),
		varCase("excludes", "", "a/b", "excludes=/", "invalid_format (root) format=excludes includes=/"),
		varCase("excludesall", "", "a<b", "excludesall=<>", "invalid_format (root) format=excludes_any includes=<>"),
		varCase("excludesrune", "", "a☺", "excludesrune=☺", "invalid_format (root) format=excludes includes=☺"),
		varCase("startswith", "", "cus_1", "startswith=inv_", "invalid_format (root) format=starts_with prefix=inv_"),
		varCase("endswith", "", "a.txt", "endswith=.pdf", "invalid_format (root) format=ends_with suffix=.pdf"),
		varCase("startsnotwith", "", "_x", "startsnotwith=_", "invalid_format (root) format=starts_not_with prefix=_"),
		varCase("endsnotwith", "", "x.tmp", "endsnotwith=.tmp", "invalid_format (root) format=ends_not_with suffix=.tmp"),
		varCase("iscolor", "", "blue", "iscolor", "invalid_format (root) format=color"),
		varCase("country_code", "", "XX", "country_code", "invalid_format (root) format=country_code"),
		varCase("eu_country_code", "", "US", "eu_country_code", "invalid_format (root) format=eu_country_code"),
		varCase("email|uuid", "or.email_uuid", "nope", "email|uuid", "invalid_union (root) branches=[invalid_format:email invalid_format:uuid]"),
		{tag: "required", name: "var_with_key.key", want: "invalid_type name absent expected=string",
			run: func(v *validator.Validate) error { return v.VarWithKey("name", "", "required") }},
		{tag: "dive", name: "var.dive", want: "too_small [1] origin=string min=2 incl",
			run: func(v *validator.Validate) error { return v.Var([]string{"ab", "c"}, "dive,min=2") }},
	}
	// Every format tag, with a value it rejects.
	bad := map[string]any{
		"alphaspace": "abc1", "alphanumspace": "a-b", "ascii": "日本", "printascii": "a\tb", "multibyte": "abc",
		"lowercase": "Abc", "uppercase": "aBC", "filepath": "/tmp/", "unix_addr": "", "url_encoded": "%zz",
		"port": 0, "iso4217_numeric": 1, "iso3166_1_alpha_numeric": "999", "iso3166_1_alpha_numeric_eu": "840",
		"latitude": "100", "longitude": "200", "number": "-1", "numeric": "1e5", "boolean": "maybe",
		"dirpath": "/no/such\x00dir", "dir": "/no/such/dir", "file": "/no/such/file", "image": "/no/such/file",
		"uds_exists": "/no/such/socket", "html": "no tags", "spicedb": "not valid!",
	}
	var formatTags []string
	for t, info := range tags {
		if info.cls == clsFormat {
			formatTags = append(formatTags, t)
		}
	}
	sort.Strings(formatTags)
	for _, t := range formatTags {
		value, ok := bad[t]
		if !ok {
			value = "not valid"
		}
		if t == "unix_addr" {
			continue
		}
		out = append(out, varCase(t, "", value, t, "invalid_format (root) format="+tags[t].format))
	}
	out = append(out, crossCases()...)
	return append(out, diveCases()...)
}

// crossCases pick each field of crossT's one validation, with and without
// the bound value.
func crossCases() []tc {
	pick := func(tag, field, want string, bind bool) tc {
		name := tag
		if field != tag {
			name = field
		}
		if !bind {
			name += ".unbound"
		}
		return tc{tag: tag, name: name, want: want, run: func(v *validator.Validate) error {
			x := crossValue()
			err := v.Struct(x)
			var ve validator.ValidationErrors
			if !errors.As(err, &ve) {
				return err
			}
			for _, fe := range ve {
				if fe.Field() == field {
					one := validator.ValidationErrors{fe}
					if bind {
						return Bind(one, x)
					}
					return one
				}
			}
			return fmt.Errorf("no error for %s", field)
		}}
	}
	return []tc{
		pick("required_if", "required_if", "invalid_type required_if absent expected=string when=equals[mode](on)", true),
		pick("required_unless", "required_unless", "invalid_type required_unless absent expected=string when=not_equals[plan](free)", true),
		pick("required_with", "required_with", "invalid_type required_with absent expected=string when=present[email phone]", true),
		pick("required_with_all", "required_with_all", "invalid_type required_with_all absent expected=string when=all_present[email mode]", true),
		pick("required_without", "required_without", "invalid_type required_without absent expected=string when=absent[phone]", true),
		pick("required_without_all", "required_without_all", "invalid_type required_without_all absent expected=string when=all_absent[phone fax]", true),
		pick("excluded_if", "excluded_if", "custom excluded_if check=excluded when=equals[mode](on)", true),
		pick("excluded_unless", "excluded_unless", "custom excluded_unless check=excluded when=not_equals[plan](free)", true),
		pick("excluded_with", "excluded_with", "custom excluded_with check=excluded when=present[email]", true),
		pick("excluded_with_all", "excluded_with_all", "custom excluded_with_all check=excluded when=all_present[email mode]", true),
		pick("excluded_without", "excluded_without", "custom excluded_without check=excluded when=absent[phone]", true),
		pick("excluded_without_all", "excluded_without_all", "custom excluded_without_all check=excluded when=all_absent[phone fax]", true),
		pick("skip_unless", "skip_unless", "invalid_type skip_unless absent expected=string when=equals[mode](on)", true),
		pick("eqfield", "eqfield", "invalid_value eqfield values=[a@example.com] ref=email(a@example.com)", true),
		pick("nefield", "nefield", "invalid_value nefield check=not values=[a@example.com] ref=email(a@example.com)", true),
		pick("gtfield", "gtfield", "too_small gtfield origin=integer min=5 ref=min(5)", true),
		pick("gtefield", "gtefield", "too_small gtefield origin=integer min=5 incl ref=min(5)", true),
		pick("ltfield", "ltfield", "too_big ltfield origin=integer max=5 ref=min(5)", true),
		pick("ltefield", "ltefield", "too_big ltefield origin=integer max=5 incl ref=min(5)", true),
		pick("gtfield", "gtfield_time", "too_small gtfield_time origin=date min=2026-02-01T00:00:00Z ref=start(2026-02-01 00:00:00 +0000 UTC)", true),
		pick("eqcsfield", "eqcsfield", "invalid_value eqcsfield values=[X1] ref=inner.code(X1)", true),
		pick("necsfield", "necsfield", "invalid_value necsfield check=not values=[X1] ref=inner.code(X1)", true),
		pick("gtcsfield", "gtcsfield", "too_small gtcsfield origin=integer min=5 ref=inner.count(5)", true),
		pick("gtecsfield", "gtecsfield", "too_small gtecsfield origin=integer min=5 incl ref=inner.count(5)", true),
		pick("ltcsfield", "ltcsfield", "too_big ltcsfield origin=integer max=5 ref=inner.count(5)", true),
		pick("ltecsfield", "ltecsfield", "too_big ltecsfield origin=integer max=5 incl ref=inner.count(5)", true),
		pick("fieldcontains", "fieldcontains", "invalid_format fieldcontains format=includes includes=bob ref=name(bob)", true),
		pick("fieldexcludes", "fieldexcludes", "invalid_format fieldexcludes format=excludes includes=bob ref=name(bob)", true),
		pick("postcode_iso3166_alpha2_field", "postcode_iso3166_alpha2_field", "invalid_format postcode_iso3166_alpha2_field format=postcode country=US ref=country(US)", true),
		pick("eqfield", "password_again", "invalid_value password_again values=[hunter2] ref=password(hunter2)", true),
		pick("required_if", "required_if", "invalid_type required_if absent expected=string when=equals[Mode](on)", false),
		pick("eqfield", "eqfield", "invalid_value eqfield ref=Email", false),
		pick("eqcsfield", "eqcsfield", "invalid_value eqcsfield ref=Inner.Code", false),
	}
}

func diveCases() []tc {
	pick := func(tag, name, path, want string, bind bool) tc {
		return tc{tag: tag, name: name, want: want, run: func(v *validator.Validate) error {
			x := diveT{Tags: []string{"ok", "x"}, Labels: map[string]string{"a1": "v", "ok": ""},
				Addresses: []addressT{{City: "Paris"}, {}}, Items: []itemT{{"A"}, {"B"}, {"A"}}}
			err := v.Struct(x)
			var ve validator.ValidationErrors
			if !errors.As(err, &ve) {
				return err
			}
			for _, fe := range ve {
				if strings.TrimPrefix(fe.Namespace(), "diveT.") == path {
					one := validator.ValidationErrors{fe}
					if bind {
						return Bind(one, x)
					}
					return one
				}
			}
			return fmt.Errorf("no error at %s", path)
		}}
	}
	return []tc{
		pick("dive", "dive.element", "tags[1]", "too_small tags[1] origin=string min=2 incl", true),
		pick("dive", "dive.struct", "addresses[1].city", "invalid_type addresses[1].city absent expected=string", true),
		pick("keys", "keys.key", "labels[a1]", `invalid_key labels origin=map key=a1 inner=[invalid_format labels format=alpha]`, true),
		pick("keys", "keys.key.unbound", "labels[a1]", `invalid_key labels origin=map key=a1 inner=[invalid_format labels format=alpha]`, false),
		pick("endkeys", "keys.value", "labels[ok]", `invalid_type labels.ok absent expected=string`, true),
		pick("unique", "unique.field", "items", "custom items check=unique uniqueBy=sku values=[A]", true),
	}
}

// facts writes the code, path and key parameters of an issue on one line.
func facts(is issues.Issue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", is.Code, is.Path)
	if is.Absent {
		b.WriteString(" absent")
	}
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%s", k, v)
		}
	}
	add("expected", is.Expected.String())
	add("origin", is.Origin)
	add("check", is.Check)
	add("format", is.Format)
	add("pattern", is.Pattern)
	add("prefix", is.Prefix)
	add("suffix", is.Suffix)
	add("includes", is.Includes)
	add("layout", is.Layout)
	add("country", is.Country)
	add("uniqueBy", is.UniqueBy)
	add("param", is.Param)
	add("min", string(is.Minimum))
	add("max", string(is.Maximum))
	if is.Inclusive {
		b.WriteString(" incl")
	}
	if is.Exact {
		b.WriteString(" exact")
	}
	if len(is.Values) > 0 {
		fmt.Fprintf(&b, " values=%v", is.Values)
	}
	add("message", is.Message)
	if is.Key != nil {
		fmt.Fprintf(&b, " key=%v", is.Key)
	}
	if is.Ref != nil {
		fmt.Fprintf(&b, " ref=%s", is.Ref.Path)
		if is.Ref.Value != nil {
			fmt.Fprintf(&b, "(%v)", is.Ref.Value)
		}
	}
	if is.When != nil {
		var fs []string
		for _, f := range is.When.Fields {
			fs = append(fs, f.String())
		}
		fmt.Fprintf(&b, " when=%s[%s]", is.When.Op, strings.Join(fs, " "))
		if len(is.When.Values) > 0 {
			fmt.Fprintf(&b, "(%v)", strings.Trim(fmt.Sprint(is.When.Values), "[]"))
		}
	}
	if len(is.Branches) > 0 {
		var bs []string
		for _, br := range is.Branches {
			bs = append(bs, string(br[0].Code)+":"+br[0].Format)
		}
		fmt.Fprintf(&b, " branches=[%s]", strings.Join(bs, " "))
	}
	if len(is.Issues) > 0 {
		fmt.Fprintf(&b, " inner=[%s]", facts(is.Issues[0]))
	}
	return b.String()
}

// TestTags fails each tag once and checks the issue's code, path and key
// parameters.
func TestTags(t *testing.T) {
	v := newValidate()
	for _, c := range cases() {
		name := c.name
		if name == "" {
			name = c.tag
		}
		t.Run(name, func(t *testing.T) {
			err := c.run(v)
			list, ok := Issues(err)
			if !ok || len(list) != 1 {
				t.Fatalf("Issues(%v) = %d issues, %v", err, len(list), ok)
			}
			if got := facts(list[0]); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if list[0].Source == "" {
				t.Errorf("no source")
			}
		})
	}
}

// specTags reads the tag list: the 185 keys of validator's built-in map.
func specTags(t *testing.T) []string {
	data, err := os.ReadFile(filepath.Join("testdata", "validator-v10-tags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The shared spec, when this checkout sits next to it, must agree.
	if shared, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "spec", "validator-v10-tags.txt")); err == nil && !bytes.Equal(shared, data) {
		t.Errorf("testdata/validator-v10-tags.txt differs from the shared spec")
	}
	return strings.Fields(string(data))
}

// TestEveryTagIsMapped fails when a tag of the list has no mapping, so a
// validator release that adds tags is caught.
func TestEveryTagIsMapped(t *testing.T) {
	list := specTags(t)
	if len(list) != 185 {
		t.Errorf("tag list has %d tags, want 185", len(list))
	}
	for _, tag := range list {
		if tags[tag].cls == clsUnknown {
			t.Errorf("tag %q has no mapping", tag)
		}
	}
	for tag, info := range tags {
		if info.cls != clsAlias && !contains(list, tag) {
			t.Errorf("mapped tag %q is not in the list", tag)
		}
	}
}

// TestEveryTagHasACase holds cases() to the tag list and the aliases.
func TestEveryTagHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range cases() {
		covered[c.tag] = true
	}
	for _, tag := range append(specTags(t), "iscolor", "country_code", "eu_country_code", "email|uuid", "dive", "keys", "endkeys") {
		if !covered[tag] {
			t.Errorf("no failing example for %q", tag)
		}
	}
}

// TestLiveValidatorTags compares the list with the validator in use: every
// tag it registers must be in the list, and every tag of the list must be
// one it registers.
func TestLiveValidatorTags(t *testing.T) {
	v := validator.New()
	for _, tag := range specTags(t) {
		// Registering over a built-in tag is allowed; a tag unknown to
		// the validator is an error in its tag parsing instead.
		func() {
			defer func() {
				if r := recover(); r != nil && strings.Contains(fmt.Sprint(r), "Undefined validation function") {
					t.Errorf("validator does not know %q", tag)
				}
			}()
			_ = v.Var("", tag+"=x")
		}()
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var exampleRe = regexp.MustCompile(`e\.g\. ('(?:[^'\\]|\\.)*'|-?[0-9.]+)\.$`)

// TestExamplesPassTheirTag renders every format failure and checks that
// the example shown passes the very tag that rejected the value.
func TestExamplesPassTheirTag(t *testing.T) {
	v := newValidate()
	f := formatter.New(formatter.DefaultOptions())
	shown := 0
	for _, c := range cases() {
		if strings.Contains(c.want, " ref=") || !strings.HasPrefix(c.want, "invalid_format") && !strings.HasPrefix(c.want, "invalid_union") {
			continue
		}
		err := c.run(v)
		list, _ := Issues(err)
		if len(list) == 0 {
			t.Errorf("%s: no issue", c.tag)
			continue
		}
		fields, _, _ := f.Fields(list[:1])
		line := fields[0].Text
		m := exampleRe.FindStringSubmatch(line)
		if m == nil {
			if strings.Contains(line, "e.g.") {
				t.Errorf("%s: example not recognised in %q", c.tag, line)
			}
			continue
		}
		shown++
		var ex any = strings.Trim(m[1], "'")
		if !strings.HasPrefix(m[1], "'") {
			ex, _ = strconv.Atoi(m[1])
		}
		spec := c.tag
		switch c.tag {
		case "datetime":
			spec = "datetime=2006-01-02"
		case "email|uuid":
		}
		if err := v.Var(ex, spec); err != nil {
			t.Errorf("%s shows e.g. %v, which fails it: %v", c.tag, ex, err)
		}
	}
	if shown < 95 { // the UUID formats show none (see formatter.layoutShown)
		t.Errorf("only %d examples shown", shown)
	}
}

// TestGolden renders every case in en and ja (testdata/lines.golden).
func TestGolden(t *testing.T) {
	v := newValidate()
	var buf bytes.Buffer
	for _, cat := range catalog.Available() {
		f := formatter.New(formatter.Options{Catalog: cat, Examples: true})
		for _, c := range cases() {
			name := c.name
			if name == "" {
				name = c.tag
			}
			err := c.run(v)
			list, _ := Issues(err)
			fields, _, _ := f.Fields(list)
			for _, fl := range fields {
				fmt.Fprintf(&buf, "%s\t%s\t%s\t%s\n", cat.Tag(), name, fl.Name, fl.Text)
			}
		}
	}
	golden.Check(t, "lines.golden", buf.Bytes())
}

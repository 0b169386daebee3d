package validatorv10

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/internal/race"
	"github.com/selfheal/selfheal/issues"
)

// commonT fails one common tag per field, each of which a warm conversion
// must take from its site.
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

// uncached converts err with no site, as Issues did before sites existed.
func uncached(err error) issues.List {
	ve, ok := err.(validator.ValidationErrors)
	if !ok {
		// Bound and map errors never take their issues from sites.
		list, _ := Issues(err)
		return list
	}
	out := make(issues.List, len(ve))
	c := newConverter(ve, nil, nil, nil)
	for i, fe := range ve {
		c.convert(&out[i], fe)
	}
	return out
}

// siteCases are the tag table's cases and a few more that sites hold:
// a struct failing every common tag at once, a user alias, a tag the
// server registered with validator only.
func siteCases() []tc {
	return append(cases(),
		tc{name: "common", run: func(v *validator.Validate) error { return v.Struct(commonValue()) }},
		tc{name: "alias", run: func(v *validator.Validate) error { return v.Var("abc", "five") }},
		tc{name: "alias.or", run: func(v *validator.Validate) error { return v.Var("abc", "mail_or_id") }},
		tc{name: "registered", run: func(v *validator.Validate) error { return v.Var("x", "site_test_sku=EU") }},
	)
}

func siteValidate(t *testing.T) *validator.Validate {
	v := newValidate()
	v.RegisterAlias("five", "len=5")
	v.RegisterAlias("mail_or_id", "email|uuid")
	if err := v.RegisterValidation("site_test_sku", func(validator.FieldLevel) bool { return false }); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAppendIssuesSameAsUncached holds every case to the issues of a
// conversion without sites: fresh, warm into a reused list, and warm from a
// new failure of the same value.
func TestAppendIssuesSameAsUncached(t *testing.T) {
	v := siteValidate(t)
	for _, c := range siteCases() {
		name := c.name
		if name == "" {
			name = c.tag
		}
		t.Run(name, func(t *testing.T) {
			err := c.run(v)
			want := uncached(err)
			if len(want) == 0 {
				t.Fatalf("no issues for %v", err)
			}
			got, ok := appendIssues(nil, err, nil)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("first call:\ngot  %#v\nwant %#v", got, want)
			}
			for i := range 2 {
				got, ok = appendIssues(got[:0], err, nil)
				if !ok || !reflect.DeepEqual(got, want) {
					t.Fatalf("warm call %d:\ngot  %#v\nwant %#v", i, got, want)
				}
			}
			got, ok = appendIssues(got[:0], c.run(v), nil)
			if !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("new failure:\ngot  %#v\nwant %#v", got, want)
			}
			head := issues.Issue{Code: issues.Custom, Message: "kept"}
			got, ok = appendIssues(issues.List{head}, err, nil)
			if !ok || !reflect.DeepEqual(got[0], head) || !reflect.DeepEqual(got[1:], want) {
				t.Fatalf("appended after an issue:\ngot  %#v\nwant %#v", got, want)
			}
		})
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

// TestAppendIssuesAllocs: a warm conversion into a reused list allocates
// nothing for the common tags.
func TestAppendIssuesAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	v := newValidate()
	for name, err := range map[string]error{
		"bench":  v.Struct(benchUser{Email: "not-an-email", Bio: "short", Age: 3}),
		"common": v.Struct(commonValue()),
		"var":    v.Var("nope", "email"),
		"dive":   v.Var([]string{"ab", "c"}, "dive,min=2"),
	} {
		list, ok := appendIssues(nil, err, nil)
		if !ok {
			t.Fatalf("%s: no issues for %v", name, err)
		}
		if n := testing.AllocsPerRun(100, func() { list, _ = appendIssues(list[:0], err, nil) }); n != 0 {
			t.Errorf("%s: AppendIssues allocates %v times per call", name, n)
		}
	}
}

// TestSitesShareSlices: the same site gives the same strings and slices
// from one failure to the next, which the formatter's cache counts on.
func TestSitesShareSlices(t *testing.T) {
	v := newValidate()
	a, _ := appendIssues(nil, v.Struct(commonValue()), nil)
	b, _ := appendIssues(nil, v.Struct(commonValue()), nil)
	for i := range a {
		if unsafe.SliceData(a[i].Path) != unsafe.SliceData(b[i].Path) ||
			unsafe.SliceData(a[i].Values) != unsafe.SliceData(b[i].Values) ||
			unsafe.StringData(string(a[i].Minimum)) != unsafe.StringData(string(b[i].Minimum)) ||
			unsafe.StringData(a[i].Source) != unsafe.StringData(b[i].Source) {
			t.Errorf("%s: the two failures' issues do not share their parts", a[i].Path)
		}
	}
}

// TestSitesFollowRules: a tag with a rule is worded by the rule of the
// conversion's own table, whatever a conversion without it cached for its
// site, and the two do not leak into each other.
func TestSitesFollowRules(t *testing.T) {
	const tag = "site_test_rule"
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

// TestNSCacheBounds: namespaces with brackets get their own, smaller share
// and only short ones are kept.
func TestNSCacheBounds(t *testing.T) {
	var c nsCache[string, int]
	set := func(ns string) { c.update(ns, ns, func(int) int { return 1 }) }
	for i := range maxElementKeys + 10 {
		set("labels[" + strconv.Itoa(i) + "]")
	}
	if c.elements != maxElementKeys {
		t.Errorf("%d namespaces with brackets kept, want %d", c.elements, maxElementKeys)
	}
	set("User.name")
	if _, ok := c.load("User.name"); !ok {
		t.Errorf("a field's namespace is not kept once brackets filled their share")
	}
	var d nsCache[string, int]
	long := "labels[" + strings.Repeat("k", maxElementLen) + "]"
	d.update(long, long, func(int) int { return 1 })
	if _, ok := d.load(long); ok {
		t.Errorf("a namespace of %d bytes with brackets is kept", len(long))
	}
}

// TestAppendIssuesConcurrent runs warm and cold conversions side by side,
// for the race detector.
func TestAppendIssuesConcurrent(t *testing.T) {
	v := siteValidate(t)
	errs := []error{v.Struct(commonValue()), v.Var("abc", "five"), v.Struct(crossValue())}
	want := make([]issues.List, len(errs))
	for i, err := range errs {
		want[i] = uncached(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var list issues.List
			for i := range 50 {
				k := (g + i) % len(errs)
				list, _ = appendIssues(list[:0], errs[k], nil)
				if !reflect.DeepEqual(list, want[k]) {
					t.Errorf("goroutine %d, call %d: issues differ", g, i)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestSiteGuesses: a site's guess of the site failing after it (see
// site.next) is checked like a lookup. Failures of different subsets of a
// struct's fields, of the same fields with other tags, and of another
// struct in between, each read as converted without sites, from 4
// goroutines at once.
func TestSiteGuesses(t *testing.T) {
	v := siteValidate(t)
	type form struct {
		A string `json:"a" validate:"required,min=3"`
		B int    `json:"b" validate:"gte=10"`
		C string `json:"c" validate:"omitempty,email"`
		D []int  `json:"d" validate:"max=2"`
		E any    `json:"e" validate:"required"`
	}
	type other struct {
		B string `json:"b" validate:"len=2"`
	}
	type alike struct { // one tag on fields of one type: told apart by name
		P string `json:"p" validate:"required"`
		Q string `json:"q" validate:"required"`
		R string `json:"r" validate:"required"`
	}
	errs := []error{
		v.Struct(form{B: 1, C: "x", D: make([]int, 3)}),            // a (required), b, c, d, e
		v.Struct(form{A: "ab", B: 1, E: 1}),                        // a (min), b
		v.Struct(form{A: "abc", B: 10, C: "y", D: make([]int, 5)}), // c, d, e
		v.Struct(other{B: "abc"}),
		v.Struct(form{A: "a", E: "x", D: make([]int, 4)}), // a (min), b, d
		v.Struct(form{B: 3, E: []int{}}),                  // a (required), b
		v.Struct(alike{}),                                 // p, q, r
		v.Struct(alike{Q: "x"}),                           // p, r
		v.Struct(alike{P: "x"}),                           // q, r
	}
	want := make([]issues.List, len(errs))
	for i, err := range errs {
		if want[i] = uncached(err); len(want[i]) == 0 {
			t.Fatalf("no issues for %v", err)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			var list issues.List
			for i := range 60 {
				k := (g*7 + i*i) % len(errs) // an order of its own
				list, _ = appendIssues(list[:0], errs[k], nil)
				if !reflect.DeepEqual(list, want[k]) {
					t.Errorf("goroutine %d, call %d (%v):\n%+v\nwant\n%+v", g, i, errs[k], list, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

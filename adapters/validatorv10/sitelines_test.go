package validatorv10

import (
	"reflect"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// TestSitesWordAsWithout: the Engine words a raw validator error through
// the sites this adapter records beside its issues (the formatter keeps
// each site's line there); every case reads as its issues read without
// sites, on first sight and warm, in English and Japanese.
func TestSitesWordAsWithout(t *testing.T) {
	v := siteValidate(t)
	for _, e := range []*selfheal.Engine{selfheal.New(), selfheal.New(selfheal.WithLocale("ja"))} {
		for _, c := range siteCases() {
			err := c.run(v)
			list, ok := Issues(err)
			if !ok {
				t.Fatalf("%s: no issues for %v", c.name, err)
			}
			want := e.Format("t", list) // an issues.List: no sites
			for i := range 3 {
				if got := e.Format("t", err); got != want {
					t.Fatalf("%s %s, call %d:\n%s\nwant\n%s", c.name, c.tag, i, got, want)
				}
			}
		}
	}
}

// TestSitesRecorded: a plain error's issues built from a site seen before
// have it recorded at their index; an exact size, whose code the value
// decides, has none; an error under a bound value has none.
func TestSitesRecorded(t *testing.T) {
	v := siteValidate(t)
	type sized struct {
		Name string `json:"name" validate:"required"`
		Pair []int  `json:"pair" validate:"len=2"`
	}
	err := v.Struct(sized{Pair: []int{1}})
	var sites []*issuesx.Site
	for call := range 2 {
		// The first sight builds the sites and records none (the cache may
		// not keep them); the second finds them and records them.
		sites = sites[:0]
		head := issues.List{{Code: issues.Custom, Message: "kept"}}
		list, ok := appendIssuesAt(head, &sites, err)
		if !ok || len(list) != 3 {
			t.Fatalf("%v: %d issues, %v", err, len(list), ok)
		}
		switch {
		case call == 0 && len(sites) != 0:
			t.Fatalf("first sight records sites %v", sites)
		case call == 1 && (len(sites) != 2 || sites[0] != nil || sites[1] == nil):
			t.Fatalf("sites %v: want none for the issue before, one for name", sites)
		}
	}
	bound := Bind(v.Struct(sized{Pair: []int{1}}), sized{})
	sites = sites[:0]
	if _, ok := appendIssuesAt(nil, &sites, bound); !ok || len(sites) != 0 {
		t.Errorf("a bound error records sites %v", sites)
	}
}

// TestSitesKeepTheirFacts holds the adapter to a site's promise (see
// issuesx.Site): every issue recorded beside a site has the facts of the
// first one recorded there, whatever the value sent. The formatter keeps
// a site's line on the site and does not check it against each issue.
func TestSitesKeepTheirFacts(t *testing.T) {
	v := siteValidate(t)
	type varied struct {
		S string         `json:"s" validate:"min=3,max=5"`
		N int            `json:"n" validate:"gte=10,lte=20"`
		F string         `json:"f" validate:"omitempty,email"`
		L []int          `json:"l" validate:"min=2,max=3,dive,gt=0"`
		X []int          `json:"x" validate:"len=2"`
		R string         `json:"r" validate:"required"`
		P *int           `json:"p" validate:"required"`
		M map[string]int `json:"m" validate:"max=1,dive,keys,min=2,endkeys,lt=5"`
	}
	var errs []error
	for i, s := range []string{"", "a", "ab", "abcdefg", "<b>]]>", "\xff"} {
		n := []int{1, 9, 30, -4, 21, 0}[i]
		l := make([]int, i) // 0 to 5 items, zeros failing gt=0
		m := map[string]int{"k": 9, strings.Repeat("k", i+2): i * 3}
		errs = append(errs, v.Struct(varied{S: s, N: n, F: s + "x", L: l, X: l, M: m}))
	}
	for _, c := range siteCases() {
		errs = append(errs, c.run(v))
	}
	facts := map[*issuesx.Site]issues.Issue{}
	recorded := 0
	for range 3 {
		for _, err := range errs {
			var sites []*issuesx.Site
			list, ok := appendIssuesAt(nil, &sites, err)
			if !ok {
				t.Fatalf("no issues for %v", err)
			}
			for i, site := range sites {
				if site == nil {
					continue
				}
				recorded++
				is := list[i]
				is.Input = nil
				first, seen := facts[site]
				if !seen {
					facts[site] = is
					continue
				}
				if !reflect.DeepEqual(is, first) {
					t.Errorf("an issue at a site has other facts than the first:\n%+v\nwant\n%+v", is, first)
				}
			}
		}
	}
	if len(facts) < 20 || recorded < 2*len(facts) {
		t.Errorf("%d sites recorded %d times: the test sees too few to say anything", len(facts), recorded)
	}
}

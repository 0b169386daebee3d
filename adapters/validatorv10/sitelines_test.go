package validatorv10

import (
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

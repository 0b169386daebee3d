package jsonschemav5_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/jsonschematest"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
)

// TestAppendReuse: converting into a reused list, twice, gives exactly the
// issues of a fresh conversion after the caller's own, for the shared
// tables and the users.create example; AppendValidate gives what Validate
// gives, and a valid instance leaves the list as it was.
func TestAppendReuse(t *testing.T) {
	type appendCase struct {
		name      string
		s         *jsonschemav5.Schema
		bad, good any
	}
	var cases []appendCase
	decode := func(data []byte) any {
		v, err := jsonvalue.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tab := range []struct {
		draft *jsonschema.Draft
		cases []jsonschematest.Case
	}{{jsonschema.Draft2020, jsonschematest.Table}, {jsonschema.Draft7, jsonschematest.Draft7Table}} {
		for _, c := range tab.cases {
			s, err := jsonschemav5.Compile([]byte(c.Schema), jsonschemav5.WithDraft(tab.draft))
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, appendCase{name: c.Name, s: s, bad: decode([]byte(c.Instance))})
		}
	}
	read := func(name string) []byte {
		data, err := os.ReadFile("../../examples/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	s, err := jsonschemav5.Compile(read("users.create.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases = append(cases, appendCase{"users.create", s, decode(read("users.create.bad.json")), decode(read("users.create.good.json"))})

	caller := issues.Issue{Code: issues.Custom, Message: "the caller's"}
	for _, c := range cases {
		err := c.s.Compiled().Validate(c.bad)
		want, ok := c.s.Issues(err, c.bad)
		if !ok || len(want) == 0 {
			t.Fatalf("%s: no issues", c.name)
		}
		buf := issues.List{caller}
		for range 2 {
			var got issues.List
			if got, ok = c.s.AppendIssues(buf[:1], err, c.bad); !ok || !reflect.DeepEqual(got[0], caller) || !reflect.DeepEqual(got[1:], want) {
				t.Fatalf("%s: AppendIssues\n got %v %#v\nwant %#v", c.name, ok, got, want)
			}
			buf = got
		}
		got := c.s.AppendValidate(buf[:1], c.bad)
		if !reflect.DeepEqual(got[0], caller) || jsonschematest.Canonical(got[1:]) != jsonschematest.Canonical(c.s.Validate(c.bad)) {
			t.Fatalf("%s: AppendValidate\n got %#v\nwant %#v", c.name, got[1:], c.s.Validate(c.bad))
		}
		if c.good != nil {
			if got := c.s.AppendValidate(buf[:1], c.good); len(got) != 1 || &got[0] != &buf[0] {
				t.Errorf("%s: a valid instance changed the list: %v", c.name, got)
			}
		}
	}
	if list, ok := jsonschemav5.AppendIssues(issues.List{caller}, nil, nil); ok || len(list) != 1 {
		t.Errorf("no error: %v %v", ok, list)
	}
}

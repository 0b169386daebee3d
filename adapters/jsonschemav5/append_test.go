package jsonschemav5_test

import (
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// TestAppendReuse: the reuse contract (jsonschematest.CheckAppend) holds
// for every case of the shared tables and for users.create, and without an
// error the caller's list comes back as it was.
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
			s, err := jsonschemav5.Compile([]byte(c.Schema), jsonschemav5.WithCompiler(func(c *jsonschema.Compiler) { c.Draft = tab.draft }))
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

	for _, c := range cases {
		jsonschematest.CheckAppend(t, c.name, c.s, c.s.AppendIssues, c.s.Compiled().Validate(c.bad), c.bad, c.good)
	}
	caller := issues.Issue{Code: issues.Custom, Message: "the caller's"}
	if list, ok := jsonschemav5.AppendIssues(issues.List{caller}, nil, nil); ok || len(list) != 1 {
		t.Errorf("no error: %v %v", ok, list)
	}
}

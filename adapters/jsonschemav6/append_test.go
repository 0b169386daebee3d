package jsonschemav6_test

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

// appendCase is a compiled schema with an invalid and, when known, a valid
// instance.
type appendCase struct {
	name      string
	s         *jsonschemav6.Schema
	bad, good any
}

// appendCases are the cases of the shared tables and the users.create
// example.
func appendCases(t *testing.T) []appendCase {
	t.Helper()
	var out []appendCase
	for _, tab := range []struct {
		draft *jsonschema.Draft
		cases []jsonschematest.Case
	}{{jsonschema.Draft2020, jsonschematest.Table}, {jsonschema.Draft7, jsonschematest.Draft7Table}} {
		for _, c := range tab.cases {
			s, err := jsonschemav6.Compile([]byte(c.Schema), jsonschemav6.WithCompiler(func(c *jsonschema.Compiler) { c.DefaultDraft(tab.draft) }))
			if err != nil {
				t.Fatal(err)
			}
			bad, err := jsonvalue.Decode([]byte(c.Instance))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, appendCase{name: c.Name, s: s, bad: bad})
		}
	}
	s, bad, good := usersCreate(t)
	return append(out, appendCase{"users.create", s, bad, good})
}

// TestAppendReuse: the reuse contract (jsonschematest.CheckAppend) holds
// for every case of the shared tables and for users.create, and without an
// error the caller's list comes back as it was.
func TestAppendReuse(t *testing.T) {
	for _, c := range appendCases(t) {
		jsonschematest.CheckAppend(t, c.name, c.s, c.s.AppendIssues, c.s.Compiled().Validate(c.bad), c.bad, c.good)
	}
	caller := issues.Issue{Code: issues.Custom, Message: "the caller's"}
	if list, ok := jsonschemav6.AppendIssues(issues.List{caller}, nil, nil); ok || len(list) != 1 {
		t.Errorf("no error: %v %v", ok, list)
	}
}

// TestAppendConcurrent: calls on one schema share its data without
// writing to it (run with -race).
func TestAppendConcurrent(t *testing.T) {
	cases := appendCases(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var list issues.List
			for range 20 {
				for _, c := range cases {
					list = c.s.AppendValidate(list[:0], c.bad)
				}
			}
		})
	}
	wg.Wait()
}

// TestAppendAllocations: AppendValidate allocates nothing beyond the
// library's Validate for a valid instance (DESIGN section 5: the success
// path adds no allocation).
func TestAppendAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	s, _, good := usersCreate(t)
	var list issues.List
	lib := testing.AllocsPerRun(100, func() { _ = s.Compiled().Validate(good) })
	ours := testing.AllocsPerRun(100, func() { list = s.AppendValidate(list[:0], good) })
	if ours > lib {
		t.Errorf("AppendValidate allocates %v per run, the library's Validate %v", ours, lib)
	}
}

// TestUnionAndBounds: issues inside alternatives, counts of 100 and more
// and bounds an error carries other than the schema's own are right too.
func TestUnionAndBounds(t *testing.T) {
	s, err := jsonschemav6.Compile([]byte(`{"properties": {
		"v": {"anyOf": [{"type": "string", "maxLength": 120}, {"type": "integer", "minimum": 1e3}]},
		"c": {"const": {"k": [1]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := jsonvalue.Decode([]byte(`{"v": 5, "c": {"k": [2]}}`))
	for range 2 {
		list := s.Validate(v)
		got := jsonschematest.Canonical(list)
		const want = `[{"code":"invalid_value","input":{"k":[2]},"path":["c"],"source":"jsonschema:const","values":[{"k":[1]}]},` +
			`{"code":"invalid_union","errors":[` +
			`[{"code":"invalid_type","expected":"string","input":5,"path":["v"],"source":"jsonschema:type"}],` +
			`[{"code":"too_small","inclusive":true,"input":5,"minimum":1000,"origin":"integer","path":["v"],"source":"jsonschema:minimum"}]],` +
			`"input":5,"path":["v"],"source":"jsonschema:anyOf"}]`
		i := slices.IndexFunc(list, func(is issues.Issue) bool { return is.Code == issues.InvalidUnion })
		if got != want || list[i].Branches[1][0].Minimum != "1e3" {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	long, _ := jsonvalue.Decode([]byte(`{"v": "` + strings.Repeat("x", 121) + `"}`))
	err = s.Compiled().Validate(long)
	a, _ := s.Issues(err, long)
	if len(a) != 1 || a[0].Branches[0][0].Maximum != "120" {
		t.Errorf("got %#v", a)
	}
}

// TestErrorNotTheNodes: an error at a subschema's location that does not
// carry the subschema's own values (an extension's, say) is worded from
// what it carries, as without the schema.
func TestErrorNotTheNodes(t *testing.T) {
	s, err := jsonschemav6.Compile([]byte(`{"properties": {"n": {"type": ["null", "integer"], "minimum": 1e3, "const": 5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	const loc = jsonschemav6.DefaultLocation + "#/properties/n"
	at := func(k jsonschema.ErrorKind) *jsonschema.ValidationError {
		return &jsonschema.ValidationError{SchemaURL: loc, InstanceLocation: []string{"n"}, ErrorKind: k}
	}
	inst := map[string]any{"n": json.Number("2")}
	for _, c := range []struct {
		err  *jsonschema.ValidationError
		want string
	}{
		{at(&kind.Minimum{Got: big.NewRat(2, 1), Want: big.NewRat(7, 2)}), "3.5"},
		{at(&kind.Type{Got: "number", Want: []string{"string"}}), "string"},
		{at(&kind.Type{Got: "number", Want: []string{"integer", "null"}}), "null|integer"},
		{at(&kind.Const{Got: json.Number("2"), Want: "five"}), "five"},
		{at(&kind.Const{Got: json.Number("2"), Want: []any{json.Number("5")}}), "[5]"},
		{at(&kind.Minimum{Got: big.NewRat(2, 1), Want: s.Compiled().Properties["n"].Minimum}), "1e3"},
		{at(&kind.Const{Got: json.Number("2"), Want: json.Number("5")}), "5"},
	} {
		list, _ := s.Issues(c.err, inst)
		var got string
		switch is := list[0]; {
		case is.Minimum != "":
			got = string(is.Minimum)
		case is.Expected != 0:
			got = is.Expected.String()
		default:
			data, _ := json.Marshal(is.Values[0])
			got = strings.Trim(string(data), `"`)
		}
		if got != c.want {
			t.Errorf("%T: got %s, want %s", c.err.ErrorKind, got, c.want)
		}
	}
}

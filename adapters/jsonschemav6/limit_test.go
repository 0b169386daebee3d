package jsonschemav6_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

// repeat writes n values made by item, comma-separated.
func repeat(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

// manyKeys is an object of n keys no schema declares plus "name", written
// in no order.
func manyKeys(n int) string {
	return `{"name": "x", ` + repeat(n, func(i int) string { return fmt.Sprintf(`"k%06d": %d`, (i*7919)%n, i) }) + "}"
}

// split returns the issues of list before its Omitted issue and that
// issue's count (0 when it has none).
func split(list issues.List) (issues.List, int) {
	if n := len(list); n > 0 && issuesx.OmittedCount(&list[n-1]) > 0 {
		return list[:n-1], issuesx.OmittedCount(&list[n-1])
	}
	return list, 0
}

// TestBuildLimit: past issuesx.BuildLimit issues the adapter counts the
// others, in one Omitted issue at the end of the list, and builds none;
// many unknown keys make one issue with their keys sorted and unique.
func TestBuildLimit(t *testing.T) {
	numbers := func(n int) string { return repeat(n, func(i int) string { return fmt.Sprint(i) }) }
	for _, c := range []struct {
		name, schema, doc string
		built, omitted    int
		first, last       string // the paths of the first and last issue built
		check             func(t *testing.T, list issues.List)
	}{
		{"invalid items",
			`{"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}`,
			`{"tags": [` + numbers(1500) + `]}`,
			1000, 500, "tags[0]", "tags[999]", nil},
		{"missing properties of many objects",
			`{"properties": {"rows": {"type": "array", "items": {"type": "object", "required": ["a", "b"]}}}}`,
			`{"rows": [` + repeat(1500, func(int) string { return "{}" }) + `]}`,
			1000, 2000, "rows[0].a", "rows[499].b", nil},
		{"array tails",
			`{"properties": {"rows": {"type": "array", "items": {"type": "array", "prefixItems": [{}], "items": false}}}}`,
			`{"rows": [` + repeat(1500, func(int) string { return "[1, 2, 3]" }) + `]}`,
			1000, 500, "rows[0]", "rows[999]", nil},
		{"objects with unevaluated keys",
			`{"properties": {"rows": {"type": "array", "items": {"type": "object", "unevaluatedProperties": false}}}}`,
			`{"rows": [` + repeat(1500, func(int) string { return `{"c": 1, "a": 2, "b": 3}` }) + `]}`,
			1000, 500, "rows[0]", "rows[999]", func(t *testing.T, list issues.List) {
				if !slices.Equal(list[999].Keys, []string{"a", "b", "c"}) {
					t.Errorf("keys: %v", list[999].Keys)
				}
			}},
		{"many objects with a bad property name",
			`{"properties": {"rows": {"type": "array", "items": {"type": "object", "propertyNames": {"maxLength": 3}}}}}`,
			`{"rows": [` + repeat(1500, func(int) string { return `{"toolong": 1}` }) + `]}`,
			1000, 500, "", "", func(t *testing.T, list issues.List) {
				// Each at its own object (the library's locations are not to
				// be trusted here: see propertyNamesLoc).
				seen := map[string]bool{}
				for _, is := range list {
					seen[is.Path.String()] = true
					if is.Code != issues.InvalidKey || is.Key != "toolong" {
						t.Fatalf("%+v", is)
					}
				}
				if len(seen) != 1000 {
					t.Errorf("%d objects blamed", len(seen))
				}
			}},
		{"a union of many invalid items",
			`{"properties": {"v": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}}}`,
			`{"v": [` + numbers(1500) + `]}`,
			1, 0, "v", "v", func(t *testing.T, list issues.List) {
				br := list[0].Branches
				if len(br) != 2 {
					t.Fatalf("%d branches", len(br))
				}
				in, rest := split(br[0])
				if len(in) != 1000 || rest != 500 || in[999].Path.String() != "v[999]" {
					t.Errorf("first branch: %d built, %d omitted", len(in), rest)
				}
				if len(br[1]) != 1 || br[1][0].Code != issues.InvalidType {
					t.Errorf("second branch: %v", br[1])
				}
			}},
		{"100,000 unknown keys, reported twice",
			`{"allOf": [{"properties": {"name": {}}, "additionalProperties": false},
				{"properties": {"name": {}}, "additionalProperties": false}]}`,
			manyKeys(100_000),
			1, 0, "(root)", "(root)", func(t *testing.T, list issues.List) {
				is := list[0]
				if len(is.Keys) != 100_000 || !slices.IsSorted(is.Keys) || is.Keys[0] != "k000000" ||
					!slices.Equal(is.Allowed, []string{"name"}) {
					t.Errorf("%d keys (sorted: %v), allowed %v", len(is.Keys), slices.IsSorted(is.Keys), is.Allowed)
				}
			}},
		{"100,000 unevaluated keys",
			`{"properties": {"name": {}}, "unevaluatedProperties": false}`,
			manyKeys(100_000),
			1, 0, "(root)", "(root)", func(t *testing.T, list issues.List) {
				if is := list[0]; len(is.Keys) != 100_000 || !slices.IsSorted(is.Keys) || is.Keys[99_999] != "k099999" {
					t.Errorf("%d keys", len(is.Keys))
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := jsonschemav6.Compile([]byte(c.schema))
			if err != nil {
				t.Fatal(err)
			}
			list, rest := split(s.ValidateJSON([]byte(c.doc)))
			if len(list) != c.built || rest != c.omitted {
				t.Fatalf("%d built, %d omitted; want %d, %d", len(list), rest, c.built, c.omitted)
			}
			if first, last := list[0].Path.String(), list[len(list)-1].Path.String(); c.first != "" && (first != c.first || last != c.last) {
				t.Errorf("built from %s to %s, want %s to %s", first, last, c.first, c.last)
			}
			if c.check != nil {
				c.check(t, list)
			}
		})
	}
}

// TestBuildLimitAppend: the limit holds for what one call appends after
// the caller's issues.
func TestBuildLimitAppend(t *testing.T) {
	s, err := jsonschemav6.Compile([]byte(`{"items": {"type": "string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, 1001)
	for i := range items {
		items[i] = i
	}
	dst := make(issues.List, 3)
	list := s.AppendValidate(dst, items)
	if len(list) != 3+1000+1 || issuesx.OmittedCount(&list[len(list)-1]) != 1 {
		t.Errorf("%d issues, last %+v", len(list), list[len(list)-1])
	}
}

// TestBuildLimitAllocations: past the limit issues are counted without
// allocating: converting 20,000 invalid items allocates what 2,000 do.
func TestBuildLimitAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	s, err := jsonschemav6.Compile([]byte(`{"items": {"type": "string"}}`))
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(n int) float64 {
		items := make([]any, n)
		for i := range items {
			items[i] = json.Number(fmt.Sprint(i))
		}
		verr := s.Compiled().Validate(items)
		var list issues.List
		return testing.AllocsPerRun(5, func() { list, _ = s.AppendIssues(list[:0], verr, items) })
	}
	if few, many := allocs(2000), allocs(20_000); many > few {
		t.Errorf("%v allocations for 20,000 items, %v for 2,000", many, few)
	}
}

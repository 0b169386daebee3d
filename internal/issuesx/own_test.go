package issuesx_test

import (
	"encoding/json"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/mutate"
	"github.com/selfheal/selfheal/issues"
)

// ownCases are lists whose issues hold every kind of slice and pointer an
// issue has.
func ownCases() []struct {
	name string
	list func() issues.List
	json string
} {
	return []struct {
		name string
		list func() issues.List
		json string
	}{
		{"flat", func() issues.List {
			return issues.List{
				{Code: issues.TooSmall, Path: issues.Path{"items", 0, "name"}, Input: "a", Minimum: "3", Origin: issues.OriginString},
				{Code: issues.UnrecognizedKeys, Path: issues.Path{}, Keys: []string{"nmae"}, Allowed: []string{"name", "age"}},
				{Code: issues.InvalidValue, Path: issues.Path{"role"}, Values: []any{"admin", map[string]any{"k": []any{1.0}}}},
			}
		}, `[{"code":"too_small","path":["items",0,"name"],"input":"a","origin":"string","minimum":3,"inclusive":false},` +
			`{"code":"unrecognized_keys","path":[],"input":null,"keys":["nmae"],"allowed":["name","age"]},` +
			`{"code":"invalid_value","path":["role"],"input":null,"values":["admin",{"k":[1]}]}]`},
		{"nested", func() issues.List {
			return issues.List{
				{Code: issues.InvalidUnion, Path: issues.Path{"id"}, Branches: [][]issues.Issue{
					{{Code: issues.InvalidType, Path: issues.Path{"id"}, Expected: issues.TypeString}},
					{{Code: issues.TooSmall, Path: issues.Path{"id"}, Minimum: "1", Origin: issues.OriginNumber}},
				}},
				{Code: issues.InvalidKey, Path: issues.Path{"tags"}, Key: "long-key", Issues: []issues.Issue{
					{Code: issues.TooBig, Path: issues.Path{}, Maximum: "3", Origin: issues.OriginString},
				}},
				{Code: issues.InvalidValue, Path: issues.Path{"pass"}, Ref: &issues.Ref{Path: issues.Path{"name"}, Value: []any{"x"}}},
				{Code: issues.InvalidType, Path: issues.Path{"email"}, Absent: true,
					When: &issues.Condition{Op: issues.CondEquals, Fields: []issues.Path{{"role"}}, Values: []any{"admin"}}},
			}
		}, `[{"code":"invalid_union","path":["id"],"input":null,"errors":[[{"code":"invalid_type","path":["id"],"input":null,"expected":"string"}],` +
			`[{"code":"too_small","path":["id"],"input":null,"origin":"number","minimum":1,"inclusive":false}]]},` +
			`{"code":"invalid_key","path":["tags"],"input":null,"issues":[{"code":"too_big","path":[],"input":null,"origin":"string","maximum":3,"inclusive":false}],"key":"long-key"},` +
			`{"code":"invalid_value","path":["pass"],"input":null,"ref":{"path":["name"],"value":["x"]}},` +
			`{"code":"invalid_type","path":["email"],"when":{"op":"equals","fields":[["role"]],"values":["admin"]}}]`},
		// A union in an alternative of a union (a block in a block's
		// children): Own once put the inner union's alternatives among
		// the outer's, which then had 4.
		{"union in a union", func() issues.List {
			return issues.List{
				{Code: issues.InvalidUnion, Path: issues.Path{"b"}, Branches: [][]issues.Issue{
					{{Code: issues.InvalidValue, Path: issues.Path{"b", "type"}, Values: []any{"p"}}},
					{{Code: issues.InvalidUnion, Path: issues.Path{"b", "c"}, Branches: [][]issues.Issue{
						{{Code: issues.InvalidType, Path: issues.Path{"b", "c"}, Expected: issues.TypeString}},
						{{Code: issues.InvalidType, Path: issues.Path{"b", "c"}, Expected: issues.TypeNumber}},
					}}},
				}},
			}
		}, `[{"code":"invalid_union","path":["b"],"input":null,"errors":[[{"code":"invalid_value","path":["b","type"],"input":null,"values":["p"]}],` +
			`[{"code":"invalid_union","path":["b","c"],"input":null,"errors":[[{"code":"invalid_type","path":["b","c"],"input":null,"expected":"string"}],` +
			`[{"code":"invalid_type","path":["b","c"],"input":null,"expected":"number"}]]}]]}]`},
		{"none", func() issues.List { return nil }, `null`},
	}
}

// TestOwn: the issues Own leaves are equal to what they were, and share
// nothing with the original list: changing everything in them (mutate.All)
// leaves it as it was. Own allocates a fixed few arrays per list, and
// nothing for a list without slices.
func TestOwn(t *testing.T) {
	for _, tc := range ownCases() {
		t.Run(tc.name, func(t *testing.T) {
			orig := tc.list()
			if got := marshal(t, orig); got != tc.json {
				t.Fatalf("the case is\n%s\nwant\n%s", got, tc.json)
			}
			owned := append(issues.List(nil), orig...) // the issues' slices still shared
			issuesx.Own(owned)
			if got := marshal(t, owned); got != tc.json {
				t.Errorf("owned\n%s\nwant\n%s", got, tc.json)
			}
			mutate.All(owned)
			if got := marshal(t, orig); got != tc.json {
				t.Errorf("a change to the owned list changed the original:\n%s\nwant\n%s", got, tc.json)
			}
		})
	}
}

// TestOwnAppend: a slice Own leaves ends where its array ends, so that
// appending to one never writes over the next.
func TestOwnAppend(t *testing.T) {
	list := issues.List{
		{Code: issues.UnrecognizedKeys, Path: issues.Path{"a"}, Keys: []string{"x"}, Allowed: []string{"y"}},
		{Code: issues.UnrecognizedKeys, Path: issues.Path{"b"}, Keys: []string{"z"}},
	}
	issuesx.Own(list)
	_ = append(list[0].Path, "more")
	_ = append(list[0].Keys, "more")
	if got, want := marshal(t, list), `[{"code":"unrecognized_keys","path":["a"],"input":null,"keys":["x"],"allowed":["y"]},`+
		`{"code":"unrecognized_keys","path":["b"],"input":null,"keys":["z"]}]`; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func marshal(t *testing.T, list issues.List) string {
	t.Helper()
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

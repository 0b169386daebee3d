package nearmiss

import (
	"reflect"
	"testing"
)

// sch is a library's subschema, for Describe: only its name matters.
type sch struct{ name string }

// TestDescribe: which keywords apply for sure, in some cases, make a
// record, refuse keys, or describe items.
func TestDescribe(t *testing.T) {
	a, b, c, d, e := &sch{"a"}, &sch{"b"}, &sch{"c"}, &sch{"d"}, &sch{"e"}
	no, yes := false, true
	for _, tc := range []struct {
		name string
		k    Keywords[*sch]
		want Node[*sch]
	}{
		{"in place", Keywords[*sch]{Location: "x", Ref: a, AllOf: []*sch{b}, If: c, AnyOf: []*sch{d},
			Dependencies: map[string]any{"p": e, "q": []string{"r"}}},
			Node[*sch]{Location: "x", Sure: []*sch{a, nil, nil, b}, Branches: []*sch{c, nil, nil, d, e}}},
		{"closed", Keywords[*sch]{AdditionalProperties: false},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}, Refuses: true}},
		{"record", Keywords[*sch]{AdditionalProperties: a, UnevaluatedProperties: b},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}, Extra: []*sch{a, b}}},
		{"unevaluated false", Keywords[*sch]{UnevaluatedProperties: a, UnevaluatedBool: &no},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}, Refuses: true}},
		{"unevaluated true", Keywords[*sch]{UnevaluatedProperties: a, UnevaluatedBool: &yes},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}}},
		{"tuple", Keywords[*sch]{Items: []*sch{a, b}, AdditionalItems: c},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}, Prefix: []*sch{a, b}, Items: []*sch{c}}},
		{"items", Keywords[*sch]{PrefixItems: []*sch{a}, Items: b, Items2020: c, AdditionalItems: true},
			Node[*sch]{Sure: []*sch{nil, nil, nil}, Branches: []*sch{nil, nil, nil}, Prefix: []*sch{a}, Items: []*sch{b, c}}},
	} {
		if got := Describe(tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

package issues

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestTypes(t *testing.T) {
	for _, c := range []struct {
		name string
		in   Types
		want string
		all  []Types
	}{
		{"none", 0, "", nil},
		{"one", TypeObject, "object", []Types{TypeObject}},
		{"two in order", TypeString.Or(TypeNull), "string|null", []Types{TypeString, TypeNull}},
		{"the other order", TypeNull.Or(TypeString), "null|string", []Types{TypeNull, TypeString}},
		{"a repeat kept once", TypeNull.Or(TypeString).Or(TypeNull), "null|string", []Types{TypeNull, TypeString}},
		{"or of sets", TypeArray.Or(TypeObject.Or(TypeArray).Or(TypeNull)), "array|object|null", []Types{TypeArray, TypeObject, TypeNull}},
		{"all seven", TypeString.Or(TypeNumber).Or(TypeInteger).Or(TypeBoolean).Or(TypeNull).Or(TypeObject).Or(TypeArray),
			"string|number|integer|boolean|null|object|array",
			[]Types{TypeString, TypeNumber, TypeInteger, TypeBoolean, TypeNull, TypeObject, TypeArray}},
		{"codes that name no type are skipped", Types(0xf80a5), "null", []Types{TypeNull}},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("%s: String() = %q, want %q", c.name, got, c.want)
		}
		if got := slices.Collect(c.in.All()); !slices.Equal(got, c.all) {
			t.Errorf("%s: All() = %v, want %v", c.name, got, c.all)
		}
		for _, x := range c.all {
			if !c.in.Has(x) {
				t.Errorf("%s: Has(%s) = false", c.name, x)
			}
		}
		back, err := parseTypes(c.want)
		if err != nil || back.String() != c.want {
			t.Errorf("%s: parseTypes(%q) = %v, %v", c.name, c.want, back, err)
		}
	}
	if TypeString.Has(TypeNull) || TypeString.Or(TypeNull).Has(TypeArray) || Types(0).Has(TypeString) {
		t.Error("Has reports a type the set does not have")
	}
	if !TypeString.Or(TypeNull).Has(TypeNull.Or(TypeString)) || !TypeString.Has(0) {
		t.Error("Has does not report a subset")
	}
}

func TestParseTypesErrors(t *testing.T) {
	for _, in := range []string{"str", "string|", "|null", "String", "bigint", "string||null"} {
		if got, err := parseTypes(in); err == nil {
			t.Errorf("parseTypes(%q) = %v, want an error", in, got)
		}
	}
	var is Issue
	if err := json.Unmarshal([]byte(`{"code":"invalid_type","path":[],"expected":"date"}`), &is); err == nil {
		t.Errorf(`"expected":"date" read as %v`, is.Expected)
	}
}

// TestTypesAllocs: one type's String and a walk of the set allocate
// nothing, as the formatter's hot path needs.
func TestTypesAllocs(t *testing.T) {
	s := TypeInteger.Or(TypeNull)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		for x := range s.All() {
			n += len(x.String())
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations", allocs)
	}
}

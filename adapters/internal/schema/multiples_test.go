package schema_test

import (
	"math/big"
	"testing"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// TestMultiples: the least and greatest multiples each mix of bounds
// allows, exactly.
func TestMultiples(t *testing.T) {
	r := func(s string) *big.Rat {
		if s == "" {
			return nil
		}
		x, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("bad number %q", s)
		}
		return x
	}
	for _, tc := range []struct {
		d, min, exclMin, max, exclMax string
		lo, hi                        issues.Number
	}{
		{"2", "", "", "20", "", "", "20"},
		{"2", "", "", "", "20", "", "18"},
		{"2", "", "", "21", "", "", "20"},
		{"2", "3", "", "", "", "4", ""},
		{"2", "", "4", "", "", "6", ""},
		{"2", "-3", "", "-1", "", "-2", "-2"},
		{"2", "", "-4", "", "-1", "-2", "-2"},
		{"0.5", "", "0", "", "20", "0.5", "19.5"},
		{"0.01", "0.005", "", "1.999", "", "0.01", "1.99"},
		{"5", "3", "4", "12", "10", "5", "5"}, // the tighter of each pair
		{"4", "5", "", "7", "", "8", "4"},     // none within: lo above hi
		{"2", "", "", "", "", "", ""},
		{"0", "1", "", "", "", "", ""},
		{"-2", "1", "", "", "", "", ""},
		{"1e-300", "1", "", "", "", "", ""}, // too long to work with
	} {
		lo, hi := schema.Multiples(r(tc.d), r(tc.min), r(tc.exclMin), r(tc.max), r(tc.exclMax))
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("multipleOf %s, minimum %q exclusiveMinimum %q maximum %q exclusiveMaximum %q: %q..%q, want %q..%q",
				tc.d, tc.min, tc.exclMin, tc.max, tc.exclMax, lo, hi, tc.lo, tc.hi)
		}
	}
}

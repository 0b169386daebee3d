package schema

import (
	"math/big"

	"github.com/selfheal/selfheal/issues"
)

// Multiples returns the least and the greatest multiple of divisor that
// a schema's numeric bounds allow (minimum, exclusiveMinimum, maximum,
// exclusiveMaximum; nil when not set), "" for a side it does not bound.
// A multipleOf issue carries them as its Minimum and Maximum, inclusive,
// so that the multiples a line suggests are ones the field accepts:
// multipleOf 2 with maximum 20, sent 25, is answered "such as 20", not
// "24 or 26". Bounds too long to work with exactly (over 256 bits) are
// left out: the line then says less, never something false of the
// schema.
func Multiples(divisor, min, exclMin, max, exclMax *big.Rat) (lo, hi issues.Number) {
	if divisor == nil || divisor.Sign() <= 0 || !small(divisor) {
		return "", ""
	}
	// The least multiple at or above a lower bound (above, when it is
	// exclusive), and the greatest at or below an upper one.
	multiple := func(bound *big.Rat, up, exclusive bool) *big.Rat {
		if bound == nil || !small(bound) {
			return nil
		}
		q := new(big.Rat).Quo(bound, divisor)
		n := new(big.Int).Div(q.Num(), q.Denom()) // the floor: Div is Euclidean
		switch {
		case up && (!q.IsInt() || exclusive):
			n.Add(n, big.NewInt(1))
		case !up && q.IsInt() && exclusive:
			n.Sub(n, big.NewInt(1))
		}
		return new(big.Rat).Mul(new(big.Rat).SetInt(n), divisor)
	}
	tighter := func(a, b *big.Rat, up bool) *big.Rat {
		switch {
		case a == nil:
			return b
		case b == nil:
			return a
		case (a.Cmp(b) > 0) == up:
			return a
		}
		return b
	}
	low := tighter(multiple(min, true, false), multiple(exclMin, true, true), true)
	high := tighter(multiple(max, false, false), multiple(exclMax, false, true), false)
	return RatText(low), RatText(high)
}

// small reports whether r is short enough to work with exactly.
func small(r *big.Rat) bool { return r.Num().BitLen() <= 256 && r.Denom().BitLen() <= 256 }

package schema

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// Docs holds the schema documents by URL (without fragment), as decoded
// with exact numbers, to read keywords as the schema wrote them. A nil Docs
// knows no document.
type Docs map[string]any

// Object returns the object of the schema document at a location (URL and
// JSON pointer fragment), nil when there is none.
func (d Docs) Object(loc string) map[string]any {
	u, frag, _ := strings.Cut(loc, "#")
	v := d[u]
	if frag != "" {
		for _, tok := range fragmentTokens(frag) {
			switch x := v.(type) {
			case map[string]any:
				v = x[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return nil
				}
				v = x[i]
			default:
				return nil
			}
		}
	}
	obj, _ := v.(map[string]any)
	return obj
}

// Literal returns the number keyword kw of the schema object obj as the
// document wrote it, when it equals r (or r is nil), or else r written
// plainly (see RatText).
func Literal(obj map[string]any, kw string, r *big.Rat) issues.Number {
	v := obj[kw]
	if b, ok := v.(bool); ok && b {
		// Draft 4: exclusiveMinimum: true qualifies minimum.
		v = obj[strings.ToLower(strings.TrimPrefix(kw, "exclusive"))]
	}
	if n, ok := v.(json.Number); ok {
		if back, ok := new(big.Rat).SetString(string(n)); ok && (r == nil || back.Cmp(r) == 0) {
			return issues.Number(n)
		}
	}
	return RatText(r)
}

// RatText writes r as the shortest exact decimal: what a JSON literal with
// this value would most plainly say. A nil r is "".
func RatText(r *big.Rat) issues.Number {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return issues.Number(r.Num().String())
	}
	for prec := 1; prec <= 1100; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return issues.Number(s)
		}
	}
	return issues.Number(r.FloatString(20))
}

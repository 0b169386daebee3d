package formatter

import "github.com/selfheal/selfheal/internal/suggest"

// closest returns the option a model most likely meant by s (see
// suggest.Closest). The JSON Schema adapters find near misses of declared
// properties with the same function, so that a key an adapter calls a near
// miss is the key a line suggests.
func closest(s string, options []string) (best string, ok bool) {
	return suggest.Closest(s, options)
}

func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

package wire

// nesting returns how deeply a JSON value nests objects and arrays: the
// depth the scanner's is checked against. (The session server's tests,
// package sessions, have their own copy: test helpers do not cross
// packages.)
func nesting(raw []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			end := SkipString(raw, i)
			if end < 0 {
				return most
			}
			i = end - 1
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

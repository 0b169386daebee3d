package issues

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Path locates a value inside the arguments, like Zod's path: string elements
// are object keys and int elements are array indexes. The empty path is the
// root of the arguments.
type Path []any

// Root is how the empty path is written. It cannot be confused with a key,
// because a key that is not a plain identifier is always written quoted.
const Root = "(root)"

// String writes the path as a model reads it: items[0].name, labels["a.b"],
// or (root) for the empty path.
func (p Path) String() string {
	if len(p) == 0 {
		return Root
	}
	var buf [64]byte
	return string(p.AppendTo(buf[:0]))
}

// AppendTo appends the String form of p to dst, allocating nothing beyond the
// growth of dst.
func (p Path) AppendTo(dst []byte) []byte {
	if len(p) == 0 {
		return append(dst, Root...)
	}
	for i, el := range p {
		switch v := el.(type) {
		case string:
			if isIdent(v) {
				if i > 0 {
					dst = append(dst, '.')
				}
				dst = append(dst, v...)
			} else {
				dst = append(dst, '[')
				dst = appendQuoted(dst, v)
				dst = append(dst, ']')
			}
		case int:
			dst = append(dst, '[')
			dst = strconv.AppendInt(dst, int64(v), 10)
			dst = append(dst, ']')
		case int64:
			dst = append(dst, '[')
			dst = strconv.AppendInt(dst, v, 10)
			dst = append(dst, ']')
		case uint64:
			dst = append(dst, '[')
			dst = strconv.AppendUint(dst, v, 10)
			dst = append(dst, ']')
		default:
			// Other integer and string types are written as what they are;
			// anything else is a caller's mistake, written as [?] rather
			// than as Go syntax, dropped or panicking.
			rv := reflect.ValueOf(v)
			dst = append(dst, '[')
			switch rv.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				dst = strconv.AppendInt(dst, rv.Int(), 10)
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
				dst = strconv.AppendUint(dst, rv.Uint(), 10)
			case reflect.String:
				dst = appendQuoted(dst, rv.String())
			default:
				dst = append(dst, '?')
			}
			dst = append(dst, ']')
		}
	}
	return dst
}

// Append returns a new path with els added, never sharing p's backing array
// (adapters build sibling paths from one parent).
func (p Path) Append(els ...any) Path {
	out := make(Path, 0, len(p)+len(els))
	out = append(out, p...)
	return append(out, els...)
}

// Compare orders paths element by element: indexes numerically, keys by
// byte order, an index before a key, a prefix before its extensions.
func (p Path) Compare(q Path) int {
	for i := 0; i < len(p) && i < len(q); i++ {
		if c := compareElem(p[i], q[i]); c != 0 {
			return c
		}
	}
	return len(p) - len(q)
}

func compareElem(a, b any) int {
	if as, ok := a.(string); ok {
		if bs, ok := b.(string); ok { // the common case: two keys
			return strings.Compare(as, bs)
		}
	}
	ai, aIsInt := toInt(a)
	bi, bIsInt := toInt(b)
	switch {
	case aIsInt && bIsInt:
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	case aIsInt:
		return -1
	case bIsInt:
		return 1
	}
	as, _ := a.(string)
	bs, _ := b.(string)
	switch {
	case as < bs:
		return -1
	case as > bs:
		return 1
	}
	return 0
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), true
	}
	return 0, false
}

// UnmarshalJSON reads Zod's path form, turning JSON numbers back into int
// indexes so that paths round-trip.
func (p *Path) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	out := make(Path, 0, len(raw))
	for _, r := range raw {
		r = bytes.TrimSpace(r)
		if len(r) > 0 && r[0] == '"' {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				return err
			}
			out = append(out, s)
			continue
		}
		n, err := strconv.Atoi(string(r))
		if err != nil {
			return fmt.Errorf("issues: path element %s is neither a key nor an index", r)
		}
		out = append(out, n)
	}
	*p = out
	return nil
}

// isIdent reports whether a key can be written bare after a dot.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// appendQuoted appends s as a JSON string literal. Keys in paths use it, so
// that every control character, quote and invalid byte is visible and the
// result always stays on one line; <, > and & stay as they are, for a model
// reads them.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

package formatter

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/selfheal/selfheal/issues"
)

// hugeString is the length above which a string's size is reported in
// bytes: counting the runes of 10 MiB would read all of it.
const hugeString = 64 << 10

// kind classifies a value the way a JSON reader sees it.
type kind uint8

const (
	kindNull kind = iota
	kindString
	kindNumber
	kindBoolean
	kindArray
	kindObject
	kindOther
)

// typeName is the catalog's type key for each kind.
var typeName = [...]string{kindNull: "null", kindString: "string", kindNumber: "number",
	kindBoolean: "boolean", kindArray: "array", kindObject: "object", kindOther: "any"}

// kindOf classifies v without allocating for the types JSON decoding gives.
func kindOf(v any) kind {
	switch v := v.(type) {
	case nil:
		return kindNull
	case string:
		return kindString
	case json.Number:
		if issues.Number(v).IsNumeric() {
			return kindNumber
		}
		return kindString
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return kindNumber
	case bool:
		return kindBoolean
	case []any:
		return kindArray
	case map[string]any:
		return kindObject
	case time.Time, time.Duration:
		return kindString
	case issues.Unknown:
		for k, name := range typeName {
			if name == v.Type && v.Type != "" {
				return kind(k)
			}
		}
		return kindOther
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return kindNull
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.String:
		return kindString
	case reflect.Bool:
		return kindBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return kindNumber
	case reflect.Slice, reflect.Array:
		return kindArray
	case reflect.Map, reflect.Struct:
		return kindObject
	}
	return kindOther
}

// sizeOf returns the size a model would count for v: characters of a string
// (bytes when huge, reported by the second result), items of an array,
// properties of an object. ok is false when v has no size.
func sizeOf(v any) (n int, bytes bool, ok bool) {
	switch v := v.(type) {
	case issues.Unknown:
		return v.Size, false, v.Sized
	case string:
		if len(v) > hugeString {
			return len(v), true, true
		}
		return utf8.RuneCountInString(v), false, true
	case []any:
		return len(v), false, true
	case map[string]any:
		return len(v), false, true
	case []byte:
		return len(v), true, true
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return 0, false, false
		}
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.String:
		return sizeOf(rv.String())
	case reflect.Slice, reflect.Array, reflect.Map:
		return rv.Len(), false, true
	case reflect.Struct:
		if _, isTime := v.(time.Time); isTime {
			return 0, false, false
		}
		return len(structFields(rv.Type())), false, true
	}
	return 0, false, false
}

// preview renders values within a rune budget. truncated reports that
// something was left out, so the caller can add the full size.
type preview struct {
	budget    int
	truncated bool
	// verbatim: a backslash or the quote is written as it is, not
	// escaped, for a text in which it is its own (a regex's "\d").
	verbatim bool
	redact   *redactor
}

// appendTop renders a top-level value: a string in single quotes, anything
// else as a compact JSON-like literal.
func (p *preview) appendTop(dst []byte, v any) []byte {
	if s, ok := stringOf(v); ok {
		return p.appendString(dst, s, '\'')
	}
	return p.appendValue(dst, v, 0)
}

func stringOf(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		if !issues.Number(v).IsNumeric() {
			return string(v), true
		}
	}
	return "", false
}

// appendString quotes s with q (no quotes when q is 0), escaping what would
// break the line or hide a character, and cuts it at the budget with an
// ellipsis.
func (p *preview) appendString(dst []byte, s string, q byte) []byte {
	return appendQuotedText(p, dst, s, q)
}

// appendBytes is appendString for text in a byte slice.
func (p *preview) appendBytes(dst []byte, s []byte, q byte) []byte {
	return appendQuotedText(p, dst, s, q)
}

// printable marks the bytes a quoted text copies in runs (but its quote):
// printable ASCII other than the backslash.
var printable = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '\\'
	}
	return t
}()

func appendQuotedText[S string | []byte](p *preview, dst []byte, s S, q byte) []byte {
	const hex = "0123456789abcdef"
	if q != 0 {
		dst = append(dst, q)
	}
	for i := 0; i < len(s); {
		if p.budget <= 0 {
			p.truncated = true
			dst = append(dst, "…"...)
			break
		}
		// Printable ASCII is copied as it is: take the whole run at once.
		j := i
		for end := i + min(p.budget, len(s)-i); j < end; j++ {
			if c := s[j]; !printable[c] || c == q {
				break
			}
		}
		if j > i {
			dst = append(dst, s[i:j]...)
			p.budget -= j - i
			i = j
			continue
		}
		p.budget--
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case q != 0 && !p.verbatim && (c == q || c == '\\'):
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029' || (r >= 0x80 && r < 0xa0) || r == 0xfeff ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0xfffe || r == 0xffff:
			// Line separators and bidirectional or invisible controls would
			// break the line or reorder what the model reads; show them.
			dst = append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	if q != 0 {
		dst = append(dst, q)
	}
	return dst
}

// appendValue renders v in JSON-like notation with strings in double quotes,
// as they appear inside arrays and objects.
func (p *preview) appendValue(dst []byte, v any, depth int) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return p.appendString(dst, v, '"')
	case bool:
		return strconv.AppendBool(dst, v)
	case json.Number:
		if issues.Number(v).IsNumeric() {
			return p.appendLiteral(dst, string(v))
		}
		return p.appendString(dst, string(v), '"')
	case float64:
		return appendFloat(dst, v, 64)
	case float32:
		return appendFloat(dst, float64(v), 32)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case time.Time:
		var buf [40]byte
		return p.appendString(dst, string(v.AppendFormat(buf[:0], time.RFC3339Nano)), '\'')
	case time.Duration:
		return p.appendString(dst, v.String(), '\'')
	case []any:
		return p.appendArray(dst, len(v), depth, func(i int) any { return v[i] })
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return p.appendObject(dst, keys, depth, func(k string) any { return v[k] })
	}
	return p.appendReflect(dst, reflect.ValueOf(v), depth)
}

// appendLiteral writes a number or keyword, counting it against the budget.
// A literal longer than the budget (a number of a million digits) is cut
// like a string: it is all ASCII.
func (p *preview) appendLiteral(dst []byte, s string) []byte {
	if len(s) > p.budget && p.budget > 0 {
		p.truncated = true
		dst = append(dst, s[:p.budget]...)
		p.budget = 0
		return append(dst, "…"...)
	}
	p.budget -= len(s)
	return append(dst, s...)
}

func (p *preview) appendArray(dst []byte, n, depth int, at func(int) any) []byte {
	return p.appendItems(dst, '[', ']', n, depth, func(dst []byte, i int) []byte {
		return p.appendValue(dst, at(i), depth+1)
	})
}

func (p *preview) appendObject(dst []byte, keys []string, depth int, at func(string) any) []byte {
	return p.appendItems(dst, '{', '}', len(keys), depth, func(dst []byte, i int) []byte {
		dst = append(p.appendString(dst, keys[i], '"'), ':')
		if p.redact != nil && p.redact.matches(keys[i]) {
			// A secret nested in an object is hidden like a secret field.
			return append(dst, "\"…\""...)
		}
		return p.appendValue(dst, at(keys[i]), depth+1)
	})
}

// appendItems writes the n items of an array or object between open and
// close, cut at the budget, and shown as "…" from the third level down.
func (p *preview) appendItems(dst []byte, open, close byte, n, depth int, item func(dst []byte, i int) []byte) []byte {
	if n == 0 {
		return append(dst, open, close)
	}
	if depth >= 3 {
		p.truncated = true
		return append(append(append(dst, open), "…"...), close)
	}
	dst = append(dst, open)
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if p.budget <= 0 {
			p.truncated = true
			dst = append(dst, "…"...)
			break
		}
		p.budget--
		dst = item(dst, i)
	}
	return append(dst, close)
}

// appendReflect covers every other Go value a validator may hand over:
// named types, pointers, slices, maps and structs (by their JSON names).
func (p *preview) appendReflect(dst []byte, rv reflect.Value, depth int) []byte {
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return append(dst, "null"...)
		}
		rv = rv.Elem()
	}
	if rv.CanInterface() {
		switch v := rv.Interface().(type) {
		case time.Time, time.Duration:
			return p.appendValue(dst, v, depth)
		}
	}
	switch rv.Kind() {
	case reflect.String:
		return p.appendString(dst, rv.String(), '"')
	case reflect.Bool:
		return strconv.AppendBool(dst, rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, rv.Uint(), 10)
	case reflect.Float32:
		return appendFloat(dst, rv.Float(), 32)
	case reflect.Float64:
		return appendFloat(dst, rv.Float(), 64)
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return append(dst, "null"...)
		}
		return p.appendArray(dst, rv.Len(), depth, func(i int) any { return valueOf(rv.Index(i)) })
	case reflect.Map:
		if rv.IsNil() {
			return append(dst, "null"...)
		}
		keys := make([]string, 0, rv.Len())
		byKey := make(map[string]reflect.Value, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			var kb []byte
			kb = (&preview{budget: 1 << 10}).appendValue(kb, valueOf(it.Key()), depth+1)
			k := strings.Trim(string(kb), `"`)
			keys = append(keys, k)
			byKey[k] = it.Value()
		}
		slices.Sort(keys)
		return p.appendObject(dst, keys, depth, func(k string) any { return valueOf(byKey[k]) })
	case reflect.Struct:
		fields := structFields(rv.Type())
		keys := make([]string, len(fields))
		for i, f := range fields {
			keys[i] = f.name
		}
		return p.appendObject(dst, keys, depth, func(k string) any {
			for _, f := range fields {
				if f.name == k {
					return valueOf(rv.FieldByIndex(f.index))
				}
			}
			return nil
		})
	}
	// Channels, functions and unsafe pointers have no JSON form.
	return append(dst, "(unrepresentable)"...)
}

// valueOf unwraps a reflect.Value, even from an unexported field, into
// something appendValue handles.
func valueOf(rv reflect.Value) any {
	if !rv.IsValid() {
		return nil
	}
	if rv.CanInterface() {
		return rv.Interface()
	}
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return nil
}

type field struct {
	name  string
	index []int
}

// structFields lists a struct's exported fields under their JSON names,
// skipping json:"-", as a model would have sent them.
func structFields(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" && !strings.HasPrefix(tag, "-,") {
				continue
			}
			if n != "" && n != "-" {
				name = n
			}
		}
		out = append(out, field{name: name, index: f.Index})
	}
	return out
}

// appendFloat writes a float the way JSON would: no exponent for ordinary
// magnitudes, the shortest digits that read back exactly.
func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return strconv.AppendFloat(dst, f, 'g', -1, bits)
	}
	return strconv.AppendFloat(dst, f, 'f', -1, bits)
}

// appendInline copies developer-supplied text (a bound, a format name, a
// custom message) keeping it on one line: control characters are shown as
// escapes instead of breaking the line.
func appendInline(dst []byte, s string) []byte {
	p := preview{budget: math.MaxInt}
	return p.appendString(dst, s, 0)
}

package issues

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// The issue's JSON is written by hand: it is encoded on every failed call
// (the structured issues beside the text, measured against the byte budget
// and then sent), and encoding/json's reflection over the wire struct cost
// more than rendering the text itself. The output is byte for byte what
// encoding/json writes for jsonIssue (a test holds the two together); the
// rare parts (a Ref, a Condition, an input or value of a type not listed
// below) are still given to encoding/json.

// appendJSON appends the JSON form of is (see MarshalJSON) to dst.
func (is *Issue) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"code":`...)
	dst = appendJSONString(dst, string(is.Code))
	dst = append(dst, `,"path":`...)
	dst = appendJSONPath(dst, is.Path)
	_, unknown := is.Input.(Unknown)
	if !is.Absent && !unknown {
		dst = append(dst, `,"input":`...)
		dst = appendJSONValue(dst, is.Input)
	}
	dst = appendJSONMember(dst, "expected", is.Expected.String())
	dst = appendJSONMember(dst, "origin", is.Origin)
	dst = appendJSONNumber(dst, "minimum", is.Minimum)
	dst = appendJSONNumber(dst, "maximum", is.Maximum)
	if is.Code == TooSmall || is.Code == TooBig {
		dst = append(dst, `,"inclusive":`...)
		dst = strconv.AppendBool(dst, is.Inclusive)
	}
	if is.Exact {
		dst = append(dst, `,"exact":true`...)
	}
	dst = appendJSONMember(dst, "format", is.Format)
	dst = appendJSONMember(dst, "pattern", is.Pattern)
	dst = appendJSONMember(dst, "prefix", is.Prefix)
	dst = appendJSONMember(dst, "suffix", is.Suffix)
	dst = appendJSONMember(dst, "includes", is.Includes)
	dst = appendJSONMember(dst, "layout", is.Layout)
	dst = appendJSONMember(dst, "country", is.Country)
	dst = appendJSONMember(dst, "uniqueBy", is.UniqueBy)
	dst = appendJSONMember(dst, "param", is.Param)
	dst = appendJSONStrings(dst, "keys", is.Keys)
	dst = appendJSONStrings(dst, "allowed", is.Allowed)
	if len(is.Values) > 0 {
		dst = append(dst, `,"values":[`...)
		for i, v := range is.Values {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONValue(dst, v)
		}
		dst = append(dst, ']')
	}
	dst = appendJSONNumber(dst, "divisor", is.Divisor)
	if len(is.Branches) > 0 {
		dst = append(dst, `,"errors":[`...)
		for i, br := range is.Branches {
			if i > 0 {
				dst = append(dst, ',')
			}
			if br == nil {
				dst = append(dst, "null"...) // as encoding/json writes a nil slice
				continue
			}
			dst = appendJSONIssues(dst, br)
		}
		dst = append(dst, ']')
	}
	if len(is.Issues) > 0 {
		dst = append(dst, `,"issues":`...)
		dst = appendJSONIssues(dst, is.Issues)
	}
	if is.Key != nil {
		dst = append(dst, `,"key":`...)
		dst = appendJSONValue(dst, is.Key)
	}
	dst = appendJSONMember(dst, "message", is.Message)
	if u, ok := is.Input.(Unknown); ok && !is.Absent {
		// Zod leaves out an input it does not report; the type says
		// what it was.
		dst = append(dst, `,"received":`...)
		dst = appendJSONString(dst, u.Type)
	}
	dst = appendJSONMember(dst, "check", is.Check)
	if is.Ref != nil {
		dst = append(dst, `,"ref":`...)
		dst = appendJSONValue(dst, is.Ref)
	}
	if is.When != nil {
		dst = append(dst, `,"when":`...)
		dst = appendJSONValue(dst, is.When)
	}
	dst = appendJSONMember(dst, "source", is.Source)
	return append(dst, '}')
}

// appendJSONIssues appends list as a JSON array ([] when it is empty).
func appendJSONIssues(dst []byte, list []Issue) []byte {
	dst = append(dst, '[')
	for i := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = list[i].appendJSON(dst)
	}
	return append(dst, ']')
}

// appendJSONMember appends ,"name":"s" unless s is empty (omitempty).
func appendJSONMember(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return appendJSONString(dst, s)
}

// appendJSONNumber appends ,"name":n unless n is empty, as Number's
// MarshalJSON writes it.
func appendJSONNumber(dst []byte, name string, n Number) []byte {
	if n == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	if n.IsNumeric() {
		return append(dst, n...)
	}
	return appendJSONString(dst, string(n))
}

// appendJSONStrings appends ,"name":[…] unless list is empty.
func appendJSONStrings(dst []byte, name string, list []string) []byte {
	if len(list) == 0 {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, `":[`...)
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, s)
	}
	return append(dst, ']')
}

// appendJSONPath appends p as a JSON array ([] for the root).
func appendJSONPath(dst []byte, p Path) []byte {
	dst = append(dst, '[')
	for i, el := range p {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONValue(dst, el)
	}
	return append(dst, ']')
}

// appendJSONValue appends v as encoding/json writes it, or null when
// encoding/json cannot (a channel, a function, NaN), so that one odd value
// never fails the whole list. The common types are written here; the rest
// go through encoding/json.
func appendJSONValue(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return appendJSONString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float64:
		return appendJSONFloat(dst, v)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, data...)
}

// appendJSONFloat writes f as encoding/json does: the shortest form, in
// exponent notation only outside [1e-6, 1e21), with a one-digit exponent
// kept short (1e-07 → 1e-7).
func appendJSONFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		n := len(dst) - start
		if n >= 4 && dst[len(dst)-4] == 'e' && dst[len(dst)-3] == '-' && dst[len(dst)-2] == '0' {
			dst[len(dst)-2] = dst[len(dst)-1]
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// appendJSONString appends s quoted as encoding/json's Marshal writes it:
// <, > and & escaped for HTML, U+2028 and U+2029 escaped, and invalid UTF-8
// replaced by U+FFFD.
func appendJSONString(dst []byte, s string) []byte { return appendQuotedString(dst, s, true) }

// appendQuotedString appends s as a JSON string literal, every control
// character, quote and invalid byte visible, so the result stays on one
// line. wire writes it exactly as encoding/json's Marshal does (the issue's
// JSON form); without it (keys in a path, read by a model) <, > and & stay
// as they are, and \b, \f, U+2028 and U+2029 are not given short forms.
func appendQuotedString(dst []byte, s string, wire bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!wire || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch {
			case b == '\\' || b == '"':
				dst = append(dst, '\\', b)
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b == '\t':
				dst = append(dst, '\\', 't')
			case wire && b == '\b':
				dst = append(dst, '\\', 'b')
			case wire && b == '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + size
		case wire && (r == '\u2028' || r == '\u2029'):
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

package schema

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/selfheal/selfheal/issues"
)

// DecodeArgs decodes the arguments a ValidateJSON is given (see Decode).
// Data that is not one well-formed JSON value gives, instead of a value,
// an invalid_format issue (format "json") at the root with the decoder's
// reason as its Message.
func DecodeArgs(data []byte) (any, issues.List) {
	v, err := jsonvalue.Decode(data)
	if err != nil {
		return nil, issues.List{{Code: issues.InvalidFormat, Input: string(data), Format: "json",
			Message: err.Error(), Source: "json"}}
	}
	return v, nil
}

// Failed returns list, what an adapter appended to dst for an instance
// that failed with err, unless it found no issue (ok false, or nothing
// appended): then dst with one issue that says so with err's text as its
// Message, so that an invalid instance never has no issue.
func Failed(dst, list issues.List, ok bool, err error, instance any) issues.List {
	if ok && len(list) > len(dst) {
		return list
	}
	return append(dst, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Input: instance,
		Message: err.Error(), Source: "jsonschema"})
}

// DecodeContent decodes the (already content-decoded) bytes of a string's
// content as JSON with exact numbers, for locating the issues inside it; nil
// when they are not JSON.
func DecodeContent(data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// MediaFormat names the format a content media type asks for, in the
// formatter's format names where it has one.
func MediaFormat(mt string) string {
	if mt == "application/json" {
		return "json"
	}
	return mt
}

// JSONType is the JSON Schema type of a decoded value: "integer" for a
// json.Number that is a whole int64, "number" for other numbers.
func JSONType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
	}
	return "number"
}

// SortedKeys lists the keys of m in order, nil when there are none.
func SortedKeys[M ~map[string]V, V any](m M) []string {
	if len(m) == 0 {
		return nil
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

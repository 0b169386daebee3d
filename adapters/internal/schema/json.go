package schema

import (
	"bytes"
	"encoding/json"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// DecodeArgs decodes the arguments a ValidateJSON is given, with exact
// numbers. Data nested deeper than maxDepth (see issues.CheckDepthJSON) is
// refused from its bytes, before it is decoded; data that is not one
// well-formed JSON value is an invalid_format issue (format "json") at the
// root with the decoder's reason as its Message. Either gives, instead of
// a value, the one issue that says so.
func DecodeArgs(data []byte, maxDepth int) (any, issues.List) {
	if is, deep := issues.CheckDepthJSON(data, maxDepth); deep {
		return nil, issues.List{is}
	}
	v, err := jsonvalue.Decode(data)
	if err != nil {
		return nil, issues.List{{Code: issues.InvalidFormat, Input: string(data), Format: "json",
			Message: err.Error(), Source: "json"}}
	}
	return v, nil
}

// Validate appends to dst the issues of instance, which validate (the
// library's) checks and convert converts, and with typos its near misses
// (see nearmiss.Append). An invalid instance whose failure converts to no
// issue gets one that says so with the error's text as its Message, so
// that it never has none. The issues appended are owned (see Own).
func Validate(dst issues.List, instance any, validate func(any) error,
	convert func(issues.List, error, any) (issues.List, bool), typos *nearmiss.Shape) issues.List {
	list := dst
	if err := validate(instance); err != nil {
		var ok bool
		if list, ok = convert(dst, err, instance); !ok || len(list) == len(dst) {
			list = append(dst, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Input: instance,
				Message: err.Error(), Source: "jsonschema"})
		}
	}
	if typos != nil {
		// Valid is where near misses matter most: the tool would run.
		list = nearmiss.Append(list, len(dst), typos, instance)
	}
	return Own(dst, list)
}

// Own makes the issues of list past dst the caller's own (see
// issuesx.Own): they share slices with the schema and the instance.
func Own(dst, list issues.List) issues.List {
	if len(list) > len(dst) {
		issuesx.Own(list[len(dst):])
	}
	return list
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

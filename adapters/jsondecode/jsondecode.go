package jsondecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/selfheal/selfheal/issues"
)

// Issue.Source values, for logs; a model never sees them.
const (
	srcType         = "json:type"          // wrong JSON kind, or a non-integer for an integer
	srcRange        = "json:range"         // a number beyond its Go type's range
	srcUnknownField = "json:unknown_field" // keys the struct has no field for
	srcSyntax       = "json:syntax"        // malformed, truncated or empty input
	srcTrailing     = "json:trailing"      // more input after the value
	srcFormat       = "json:format"        // a string in the wrong format (base64, RFC 3339, ",string")
	srcKey          = "json:key"           // a map key its key type cannot hold
	srcUnmarshaler  = "json:unmarshaler"   // a json.Unmarshaler or encoding.TextUnmarshaler refused the value
)

const formatJSON = "json"

// Decode decodes data into v the way a server wants a model's arguments
// decoded: strictly (unknown keys and data after the value are errors) and
// with every problem reported, not only the first.
//
// It returns nil when data decodes, and v is then filled exactly as
// encoding/json fills it. Otherwise it returns an issues.List, each issue
// with the value that was sent as its Input and the JSON path to it; v is
// left untouched unless the failure came from encoding/json itself (see
// below). A v that is not a non-nil pointer is a programming error,
// returned as *json.InvalidUnmarshalError, not as issues.
//
// The check walks v's type over the parsed input with encoding/json's own
// rules (json names, "-", omitempty, embedded structs, ",string",
// case-insensitive key matching, pointers, slices, arrays, maps with
// string, integer or TextUnmarshaler keys, interfaces, json.Number,
// json.RawMessage, time.Time, and types with their own UnmarshalJSON or
// UnmarshalText, which are run on the value: for a valid document they run
// twice, once to check and once to fill v). Only when the walk finds
// nothing does encoding/json decode into v. The walk has then checked the
// keys of every object a struct receives; where an interface could hide
// one (an interface already holding a pointer is decoded into), the
// decoding also runs with DisallowUnknownFields. The rare failure only
// encoding/json can see (that case, or a map key type it does not support)
// is returned through Issues, or as is when Issues does not recognise it.
//
// Reports:
//   - nesting deeper than issues.DefaultMaxDepth: the one issue of
//     issues.CheckDepthJSON, and nothing else (the input is not parsed: no
//     Go type is that deep, and hostile nesting stays linear);
//   - malformed or truncated input: one custom issue at the root, whose
//     Message says where ("Malformed JSON at byte offset 17") and whose Input
//     is the ~20 bytes around that place, not the whole document; empty
//     input: invalid_type at the root, Absent, expecting v's JSON type;
//   - a wrong JSON kind: invalid_type with Expected in JSON Schema words
//     ("string", "integer", "number", "boolean", "object", "array");
//     1.5 or 1e3 for a Go integer is invalid_type "integer", because
//     encoding/json only accepts integer digits there;
//   - a number beyond its Go type: too_big or too_small with the type's
//     bound (Origin "integer", or "number" for floats);
//   - keys without a field: one unrecognized_keys issue per object, Keys
//     sorted, Allowed the struct's json names so a formatter can suggest the
//     closest;
//   - a string in the wrong format: invalid_format ("base64" for []byte,
//     "date-time" for time.Time, the expected kind for ",string" fields);
//   - a map key its key type cannot hold: invalid_key with the inner issue;
//   - an unmarshaler's error: its issues if it returned an issues.List,
//     else a custom issue whose Message is the error's text;
//   - data after the value: a custom issue at the root, after the others.
//
// Issues are in document order; null, as in encoding/json, is accepted
// everywhere (it clears pointers, maps, slices and interfaces and leaves
// other values alone).
func Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	if is, deep := issues.CheckDepthJSON(data, issues.DefaultMaxDepth); deep {
		return issues.List{is}
	}
	t := rv.Type().Elem()
	sc := scratchPool.Get().(*scratch)
	defer sc.release()
	p := parser{data: data, nodes: sc.nodes[:0]}
	end, ok := p.parse()
	sc.nodes = p.nodes
	if !ok {
		if len(bytes.TrimLeft(data, " \t\r\n")) == 0 {
			return issues.List{{Code: issues.InvalidType, Absent: true, Expected: infoOf(t).expected(), Source: srcSyntax}}
		}
		return issues.List{syntaxIssue(p.errAt, len(data), excerpt(data, p.errAt))}
	}
	w := walker{document: document{data, p.nodes}, segs: sc.segs[:0]}
	w.check(0, t)
	sc.segs = w.segs
	if end < len(data) {
		w.list = append(w.list, trailingIssue(end, excerpt(data, end)))
	}
	if len(w.list) > 0 {
		return w.list
	}
	var err error
	if w.opaque {
		// Only the Decoder has DisallowUnknownFields, at the price of
		// copying the input.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(v)
	} else {
		// Every object met a struct or map the walk checked: nothing is
		// left for DisallowUnknownFields to catch.
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		if list, ok := Issues(err); ok {
			return list
		}
		return err
	}
	return nil
}

// scratch is the per-call working memory of Decode, reused across calls:
// nothing an issue holds points into it (Inputs are built as new values).
type scratch struct {
	nodes []node
	segs  []seg
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledNodes keeps one huge document from pinning its nodes forever.
const maxPooledNodes = 1 << 12

func (sc *scratch) release() {
	if cap(sc.nodes) > maxPooledNodes {
		sc.nodes = nil
	}
	scratchPool.Put(sc)
}

// Issues maps an error from json.Unmarshal or a json.Decoder to issues. It
// returns false when err is nil or not a JSON decoding failure (a read
// error, *json.InvalidUnmarshalError and io.ErrUnexpectedEOF included: a
// Decoder reports truncation that way, but so does every reader). It sees
// through wrapping, and returns an issues.List found in err as it is, so
// that Decode's result maps to itself.
//
// A bare error carries less than Decode sees, and Issues does not invent
// the rest:
//   - *json.UnmarshalTypeError: invalid_type (or too_big / too_small for a
//     number beyond its type, invalid_key for a map key that is no number).
//     Its Value describes the sent value without holding it, except for
//     numbers ("number 1.5"), so Input is the json.Number when there is one
//     and otherwise an issues.Unknown naming the JSON type that was sent
//     ("string", "boolean", "object", "array", "number", "null"). The path
//     comes from Field: encoding/json leaves array indexes and map keys out
//     of it and puts an embedded struct's Go name in; with
//     GOEXPERIMENT=jsonv2 it holds indexes (which become ints) and map keys.
//     A key containing a dot cannot be told from two.
//   - *json.SyntaxError: a custom issue at the root saying where, Input an
//     issues.Unknown (the document is not at hand);
//     "after top-level value" errors are trailing data.
//   - `json: unknown field "x"` (DisallowUnknownFields): unrecognized_keys
//     with Keys ["x"], at the root, since the error does not say which
//     object, and no Allowed.
func Issues(err error) (issues.List, bool) {
	if err == nil {
		return nil, false
	}
	if list, ok := err.(issues.List); ok {
		return list, len(list) > 0
	}
	var list issues.List
	if errors.As(err, &list) {
		return list, len(list) > 0
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return issues.List{syntaxErrorIssue(se)}, true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return issues.List{typeErrorIssue(te)}, true
	}
	if key, ok := unknownField(err); ok {
		return issues.List{{Code: issues.UnrecognizedKeys, Keys: []string{key}, Source: srcUnknownField}}, true
	}
	return nil, false
}

// Errors lets a selfheal Engine read encoding/json's own errors (a
// *json.SyntaxError, a *json.UnmarshalTypeError, an unknown field) as
// Issues does, where the engine is built:
//
//	selfheal.New(selfheal.WithAdapters(jsondecode.Errors))
//
// Decode's errors need no adapter. Its errors.As costs an allocation on
// every error it does not recognise: list it after adapters that look at
// an error's type only (validatorv10.Errors).
var Errors issues.Adapter = appendErrors

func appendErrors(dst issues.List, err error) (issues.List, bool) {
	list, ok := Issues(err)
	return append(dst, list...), ok
}

// syntaxIssue reports malformed input at byte offset at of a document of
// size bytes.
func syntaxIssue(at, size int, sent any) issues.Issue {
	msg := "Malformed JSON at byte offset " + strconv.Itoa(at)
	if at >= size {
		msg = "Incomplete JSON: the input ends at byte offset " + strconv.Itoa(at)
	}
	return issues.Issue{Code: issues.Custom, Input: sent, Message: msg, Format: formatJSON, Source: srcSyntax}
}

func trailingIssue(at int, sent any) issues.Issue {
	return issues.Issue{Code: issues.Custom, Input: sent, Message: "Unexpected data after the JSON value at byte offset " + strconv.Itoa(at),
		Format: formatJSON, Source: srcTrailing}
}

func syntaxErrorIssue(se *json.SyntaxError) issues.Issue {
	msg := se.Error()
	at := int(se.Offset)
	if msg == "unexpected end of JSON input" {
		return syntaxIssue(at, at, issues.Unknown{})
	}
	if syntaxOffsetPastByte && at > 0 {
		at--
	}
	if strings.HasSuffix(msg, "after top-level value") {
		return trailingIssue(at, issues.Unknown{})
	}
	return syntaxIssue(at, at+1, issues.Unknown{})
}

// receivedKinds turns UnmarshalTypeError.Value's kind words into JSON
// Schema's.
var receivedKinds = map[string]string{
	"string": "string", "number": "number", "bool": "boolean",
	"object": "object", "array": "array", "null": "null",
}

func typeErrorIssue(te *json.UnmarshalTypeError) issues.Issue {
	path := fieldPath(te.Field)
	var ti *typeInfo
	var expected issues.Types
	if te.Type != nil {
		ti = infoOf(te.Type)
		for ti.cls == clsPtr {
			ti = infoOf(ti.elem)
		}
		expected = ti.expected()
	}
	text, isNumber := strings.CutPrefix(te.Value, "number ")
	if isNumber && !issues.Number(text).IsNumeric() {
		// Only a map key is described as a "number" that is none.
		if fieldHasIndexes && len(path) > 0 && path[len(path)-1] == any(text) {
			path = path[:len(path)-1]
			if len(path) == 0 {
				path = nil
			}
		}
		inner := issues.Issue{Code: issues.InvalidFormat, Input: text, Format: "integer", Source: srcFormat}
		return issues.Issue{Code: issues.InvalidKey, Path: path, Input: text, Key: text, Origin: issues.OriginMap,
			Issues: []issues.Issue{inner}, Source: srcKey}
	}
	if isNumber {
		if ti != nil {
			if is, bad := numberIssue(text, ti); bad {
				is.Path, is.Input = path, json.Number(text)
				return is
			}
		}
		return issues.Issue{Code: issues.InvalidType, Path: path, Input: json.Number(text), Expected: expected, Source: srcType}
	}
	return issues.Issue{Code: issues.InvalidType, Path: path, Input: issues.Unknown{Type: receivedKinds[te.Value]},
		Expected: expected, Source: srcType}
}

// fieldPath splits UnmarshalTypeError.Field into a path.
func fieldPath(f string) issues.Path {
	if f == "" {
		return nil
	}
	parts := strings.Split(f, ".")
	p := make(issues.Path, len(parts))
	for i, s := range parts {
		p[i] = s
		if fieldHasIndexes && integral(s) && s[0] != '-' && s[0] != '+' {
			if n, err := strconv.Atoi(s); err == nil {
				p[i] = n
			}
		}
	}
	return p
}

// unknownField finds DisallowUnknownFields' error in err's chain. It is a
// plain error with no type of its own, so its text is all there is.
func unknownField(err error) (string, bool) {
	for err != nil {
		if rest, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if key, e := strconv.Unquote(rest); e == nil {
				return key, true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if key, ok := unknownField(e); ok {
					return key, true
				}
			}
			return "", false
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return "", false
		}
	}
	return "", false
}

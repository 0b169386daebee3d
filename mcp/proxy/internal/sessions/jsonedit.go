package sessions

import (
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The few edits the server makes to the messages it relays for clients of
// revision 2026-07-28 (see pool.go): an id or a token replaced, reserved
// _meta keys taken out, members a result lacks added. Each keeps every
// other byte of the message as it was written, so that what the client and
// the server wrote reaches the other side unchanged but for the edit.

// span is where one member of a JSON object lies: from the opening quote
// of its name to the end of its value.
type span struct {
	start, value, end int
	name              string
}

// spans returns the members of the JSON object obj, in order, and the
// index of its closing brace; ok is false when obj is not one object.
func spans(obj []byte) (members []span, closing int, ok bool) {
	i := wire.SkipSpace(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return nil, 0, false
	}
	i = wire.SkipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil, i, wire.SkipSpace(obj, i+1) == len(obj)
	}
	for i < len(obj) && obj[i] == '"' {
		start := i
		end := wire.SkipString(obj, i)
		if end < 0 {
			return nil, 0, false
		}
		name := string(wire.MemberName(obj[start:end]))
		i = wire.SkipSpace(obj, end)
		if i == len(obj) || obj[i] != ':' {
			return nil, 0, false
		}
		value := wire.SkipSpace(obj, i+1)
		end = wire.SkipValue(obj, value)
		if end < 0 {
			return nil, 0, false
		}
		members = append(members, span{start: start, value: value, end: end, name: name})
		i = wire.SkipSpace(obj, end)
		if i == len(obj) {
			return nil, 0, false
		}
		switch obj[i] {
		case ',':
			i = wire.SkipSpace(obj, i+1)
		case '}':
			return members, i, wire.SkipSpace(obj, i+1) == len(obj)
		default:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// member returns the value of obj's member name as written (the last one
// when the name is given twice, as JSON parsers read it), or nil.
func member(obj []byte, name string) []byte {
	members, _, ok := spans(obj)
	if !ok {
		return nil
	}
	var value []byte
	for _, m := range members {
		if m.name == name {
			value = obj[m.value:m.end]
		}
	}
	return value
}

// hasMember reports whether obj has a member name.
func hasMember(obj []byte, name string) bool {
	return member(obj, name) != nil
}

// setMember returns a copy of obj with its member name set to value (raw
// JSON): in place of every member of that name, or added last. obj is
// returned unchanged when it is not an object.
func setMember(obj []byte, name string, value []byte) []byte {
	members, closing, ok := spans(obj)
	if !ok {
		return obj
	}
	out := make([]byte, 0, len(obj)+len(name)+len(value)+4)
	from, found := 0, false
	for _, m := range members {
		if m.name == name {
			out = append(out, obj[from:m.value]...)
			out = append(out, value...)
			from, found = m.end, true
		}
	}
	if found {
		return append(out, obj[from:]...)
	}
	out = append(out, obj[:closing]...)
	if len(members) > 0 {
		out = append(out, ',')
	}
	out = appendName(out, name)
	out = append(out, value...)
	return append(out, obj[closing:]...)
}

// deleteMembers returns a copy of obj without its members of the names
// given, or obj when it has none of them (or is not an object).
func deleteMembers(obj []byte, names ...string) []byte {
	members, _, ok := spans(obj)
	if !ok {
		return obj
	}
	drop := func(m span) bool {
		for _, n := range names {
			if m.name == n {
				return true
			}
		}
		return false
	}
	var kept []span
	for _, m := range members {
		if !drop(m) {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(members) {
		return obj
	}
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	for i, m := range kept {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, obj[m.start:m.end]...)
	}
	return append(out, '}')
}

// appendName appends a member's name, quoted, and its colon. The names the
// server adds are plain ASCII: no escape is needed.
func appendName(dst []byte, name string) []byte {
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}

// isObject reports whether a raw JSON value is an object.
func isObject(raw []byte) bool {
	_, _, ok := spans(raw)
	return ok
}

// elements calls f with each element of a JSON array, in order; nothing
// when arr is not an array.
func elements(arr []byte, f func(value []byte)) {
	i := wire.SkipSpace(arr, 0)
	if i == len(arr) || arr[i] != '[' {
		return
	}
	i = wire.SkipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for i < len(arr) {
		end := wire.SkipValue(arr, i)
		if end < 0 {
			return
		}
		f(arr[i:end])
		i = wire.SkipSpace(arr, end)
		if i == len(arr) || arr[i] != ',' {
			return
		}
		i = wire.SkipSpace(arr, i+1)
	}
}

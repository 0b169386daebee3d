package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"mime"
	"strconv"
	"unicode/utf8"
)

// Message is what the proxy reads of a JSON-RPC message: the raw members it
// needs, found in one pass by [Decode], pointing into the line. The line
// itself is what is forwarded, never this.
type Message struct {
	Method                    string // "" for a response
	HasMethod                 bool
	ID, Params, Result, Error []byte // nil when absent
	Version, RawMethod        []byte // as written; nil when absent
	// Valid: the line is well-formed JSON (a response's result or error
	// not checked).
	Valid bool
	// Call are params' members when params is an object (ParamsObject).
	Call         CallParams
	ParamsObject bool
}

// Decode reads line as one JSON-RPC 2.0 message; a line that is not one
// object of JSON-RPC 2.0 (a batch, another version, a method not a string)
// is not read: its receiver answers it. A malformed line is read for its
// structure only and is not Valid: a message the proxy answers must be
// valid, so that a malformed line is always left to its receiver.
func Decode(line []byte) (*Message, bool) {
	m := new(Message)
	if !DecodeTo(line, m) {
		return nil, false
	}
	return m, true
}

// DecodeTo is Decode into *m, which it overwrites: a Message on the
// caller's stack costs no allocation.
func DecodeTo(line []byte, m *Message) (ok bool) {
	*m, ok = scanLine(line)
	if !ok {
		*m, ok = lenient(line)
	}
	if !ok || !bytes.Equal(m.Version, []byte(`"2.0"`)) && Str(m.Version) != "2.0" || (m.RawMethod != nil && !IsString(m.RawMethod)) {
		return false
	}
	m.Method, m.HasMethod = methodName(m.RawMethod), m.RawMethod != nil
	return true
}

// mcpMethods are MCP's methods (2025-06-18 to 2026-07-28), so that Decode
// gives their names without allocating.
var mcpMethods = func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{
		"initialize", "ping",
		"tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
		"prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
		"sampling/createMessage", "elicitation/create", "roots/list",
		"notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message",
		"notifications/resources/updated", "notifications/resources/list_changed", "notifications/tools/list_changed",
		"notifications/prompts/list_changed", "notifications/roots/list_changed",
		"server/discover", "subscriptions/listen", "notifications/subscriptions/acknowledged",
	} {
		m[name] = name
	}
	return m
}()

// methodName is Str of a raw method, without a copy for one of MCP's.
func methodName(raw []byte) string {
	if len(raw) >= 2 {
		if name, ok := mcpMethods[string(raw[1:len(raw)-1])]; ok {
			return name
		}
	}
	return Str(raw)
}

// lenient reads the members of a line scan refused, as Members finds them.
func lenient(line []byte) (m Message, ok bool) {
	ok = Members(line, func(key, value []byte) {
		switch string(key) {
		case "jsonrpc":
			m.Version = value
		case "id":
			m.ID = value
		case "method":
			m.RawMethod = value
		case "params":
			m.Params = value
		case "result":
			m.Result = value
		case "error":
			m.Error = value
		}
	})
	if m.Params == nil {
		return m, ok
	}
	var name []byte
	m.ParamsObject = Members(m.Params, func(k, v []byte) {
		switch string(k) {
		case "name":
			name = v
		case "arguments":
			m.Call.Args = v
		case "_meta":
			m.Call.Meta = v
		case "cursor":
			m.Call.Cursor = v
		}
	})
	m.Call.Name = Str(name)
	return m, ok
}

// IsResponse reports whether m answers a request: a result or an error and
// no method.
func (m *Message) IsResponse() bool {
	return !m.HasMethod && (m.Result != nil || m.Error != nil)
}

// Members calls f with the key and the value (as written) of each member
// of the JSON object data, in order, and reports whether data is one
// object. The key is unquoted with its escapes undone ("\u0061rguments" is
// "arguments"; an invalid one given as written). A name given twice is
// given twice: a caller keeping the last value reads as encoding/json does.
//
// It is a fast scan, not a parser: it follows strings, objects and arrays
// to find where values end, and leaves their contents to whoever reads
// them. On malformed input it returns false, or reads what the receiver
// will reject anyway; it never panics.
func Members(data []byte, f func(key, value []byte)) bool {
	i := SkipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return false
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return SkipSpace(data, i+1) == len(data)
	}
	for i < len(data) {
		if data[i] != '"' {
			return false
		}
		end := SkipString(data, i)
		if end < 0 {
			return false
		}
		key := MemberName(data[i:end])
		i = SkipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return false
		}
		i = SkipSpace(data, i+1)
		end = SkipValue(data, i)
		if end < 0 {
			return false
		}
		f(key, data[i:end])
		i = SkipSpace(data, end)
		if i == len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return SkipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
	return false
}

// MemberName returns the name a quoted JSON key stands for: the bytes
// between its quotes when plain (no copy), else decoded, invalid UTF-8
// replaced by U+FFFD.
func MemberName(quoted []byte) []byte {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return inner
	}
	return []byte(s)
}

// SkipSpace returns the index of the first byte of data at or after i that
// is not JSON white space.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// SkipString returns the index just past the string that starts at
// data[i] (a quote), or -1 when it does not end.
func SkipString(data []byte, i int) int {
	for i++; ; {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return -1
		}
		i += q
		// The quote ends the string unless escaped by an odd run of
		// backslashes.
		n := 0
		for n < i && data[i-1-n] == '\\' {
			n++
		}
		i++
		if n%2 == 0 {
			return i
		}
	}
}

// SkipValue returns the index just past the value that starts at data[i],
// or -1 when it does not end (or does not start) there.
func SkipValue(data []byte, i int) int {
	if i == len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return SkipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				if i = SkipString(data, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	// A number or a literal: up to the next delimiter.
	start := i
	for i < len(data) && !delimiter(data[i]) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func delimiter(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// IsString reports whether a raw value is a JSON string.
func IsString(raw []byte) bool { return len(raw) > 0 && raw[0] == '"' }

// Str returns the Go string of a raw JSON string, "" for anything else;
// invalid UTF-8 becomes U+FFFD, as JSON parsers read it.
func Str(raw []byte) string {
	if !IsString(raw) || len(raw) < 2 {
		return ""
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// IDKey returns the key of a request id, so that a response matches its
// request whatever the JSON spelling: a string by its value ("a" and
// "\u0061" are one), a number by its value (1, 1.0 and 1e0 are one, as a
// JavaScript server echoes them). ok is false for an absent, null or other
// id: the proxy neither tracks nor answers such a message.
func IDKey(id []byte) (key string, ok bool) {
	var buf [64]byte
	k, ok := AppendIDKey(buf[:0], id)
	return string(k), ok
}

// AppendIDKey appends the key of id to dst (dst unchanged when ok is
// false): a key only looked up (m[string(key)]) costs no allocation.
func AppendIDKey(dst, id []byte) (key []byte, ok bool) {
	if len(id) == 0 {
		return dst, false
	}
	switch c := id[0]; {
	case c == '"':
		var sc scanner
		if sc.str(id, 0) == len(id) && sc.escapes == 0 && sc.impure == 0 {
			return append(append(dst, 's'), id[1:len(id)-1]...), true // plain: the bytes are the value
		}
		var s string
		if json.Unmarshal(id, &s) != nil {
			return dst, false
		}
		return append(append(dst, 's'), s...), true
	case c == '-' || ('0' <= c && c <= '9'):
		if isInteger(id) {
			return append(append(dst, 'n'), id...), true
		}
		if !json.Valid(id) { // ParseFloat takes more than JSON: Inf, 0x1p4, 1_0
			return dst, false
		}
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return dst, false
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.AppendInt(append(dst, 'n'), int64(f), 10), true
		}
		return strconv.AppendFloat(append(dst, 'n'), f, 'g', -1, 64), true
	}
	return dst, false
}

// Answerable returns the key of a request id the proxy may answer itself:
// a string or an integral number, the ids the MCP SDKs accept. Any other
// id is the server's to judge.
func Answerable(id []byte) (key string, ok bool) {
	var buf [64]byte
	k, ok := AppendAnswerable(buf[:0], id)
	return string(k), ok
}

// AppendAnswerable is Answerable appending to dst, as AppendIDKey.
func AppendAnswerable(dst, id []byte) (key []byte, ok bool) {
	key, ok = AppendIDKey(dst, id)
	if !ok || key[len(dst)] == 's' {
		return key, ok
	}
	if num := key[len(dst)+1:]; bytes.ContainsAny(num, ".eE") || bytes.Contains(num, []byte("Inf")) || bytes.Contains(num, []byte("NaN")) {
		return dst, false
	}
	return key, true
}

// isInteger reports whether a JSON number is a plain integer, its one
// spelling.
func isInteger(num []byte) bool {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	if len(num) == 0 || (num[0] == '0' && (len(num) > 1 || neg)) {
		return false // not JSON, or -0 (which is 0)
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CodeInternalError is JSON-RPC's internal error: the proxy's answer to a
// request its server failed to answer.
const CodeInternalError = -32603

// CodeInvalidParams is JSON-RPC's invalid params.
const CodeInvalidParams = -32602

// ErrorResponse is the JSON-RPC error response to the request of id, null
// when id is nil, without a newline.
func ErrorResponse(id []byte, code int, msg string) []byte {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if id == nil {
		id = []byte("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	if err != nil { // an id the proxy read that Marshal refuses: not reached
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	return data
}

// CallParams is what the proxy reads of a tools/call's params (or a
// tools/list's cursor).
type CallParams struct {
	Name               string
	Args, Meta, Cursor []byte // nil when absent
	// Scanned: Decode read the arguments, well-formed; Depth is how deep
	// they nest, and Plain that they hold no escape or invalid UTF-8
	// (jsonvalue.DecodeScanned).
	Scanned bool
	Depth   int
	Plain   bool
	// Values counts the arguments' JSON values (when Scanned), so that a
	// caller knows what checking them costs before it starts.
	Values int
}

// MediaType is the media type of a Content-Type, lower case, or "".
func MediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ""
	}
	return mt
}

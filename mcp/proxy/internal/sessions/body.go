package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// posted is one JSON-RPC message of a POST body, as the session's server
// gets it.
type posted struct {
	line   []byte // one line: compact JSON and "\n"
	method string
	id     []byte // a request's id, as written
	key    string // a request's id key (wire.IDKey); "" for a notification or a response
	token  string // the key of a request's progress token (params._meta.progressToken); "" for none
	// answer is the proxy's own response (one line) to a request that no
	// server can take (see badParams), which is not sent; nil for others.
	answer []byte
}

// badBody is why a POST body is refused: a JSON-RPC error code and message.
type badBody struct {
	code int
	msg  string
}

// parsePosted reads a POST body: one JSON-RPC message, or a batch (a JSON
// array) of at most maxBatch, each element a message sent on its own, as
// the TypeScript SDK does. JSON is read at any depth (see wire.ValidJSON):
// arguments nested past any limit are the server's to judge, as in
// upstream mode, never a parse error of the transport.
func parsePosted(body []byte, maxBatch int) ([]posted, bool, *badBody) {
	body = bytes.Trim(body, " \t\r\n")
	if !wire.ValidJSON(body) {
		return nil, false, &badBody{-32700, "Parse error: Invalid JSON"}
	}
	var elems [][]byte
	batch := body[0] == '['
	if batch {
		for i := wire.SkipSpace(body, 1); body[i] != ']'; {
			end := wire.SkipValue(body, i) // valid JSON: the element ends
			elems = append(elems, body[i:end])
			if len(elems) > maxBatch {
				return nil, false, &badBody{-32600, fmt.Sprintf("Invalid Request: Batch must not exceed %d messages", maxBatch)}
			}
			if i = wire.SkipSpace(body, end); body[i] == ',' {
				i = wire.SkipSpace(body, i+1)
			}
		}
		if len(elems) == 0 {
			return nil, false, &badBody{-32600, "Invalid Request: an empty batch"}
		}
	} else {
		elems = [][]byte{body}
	}
	msgs := make([]posted, 0, len(elems))
	for _, line := range elems {
		// One message per line: a body may hold newlines between tokens
		// (never inside a string, where JSON escapes them).
		if bytes.ContainsAny(line, "\r\n") {
			line = compactJSON(line)
		}
		line = append(line[:len(line):len(line)], '\n')
		m, ok := wire.Decode(line)
		if !ok {
			return nil, false, &badBody{-32700, "Parse error: Invalid JSON-RPC message"}
		}
		p := posted{line: line, method: m.Method}
		switch {
		case m.HasMethod && m.ID != nil:
			key, ok := wire.IDKey(m.ID)
			if !ok {
				return nil, false, &badBody{-32600, "Invalid Request: a request's id must be a string or a number"}
			}
			p.id, p.key, p.token = m.ID, key, progressToken(m.Params)
			if bad := badParams(m.Params); bad != nil {
				p.answer = append(wire.ErrorResponse(m.ID, bad.code, bad.msg), '\n')
			}
		case m.HasMethod: // a notification
		case m.IsResponse(): // to a request of the server
		default:
			return nil, false, &badBody{-32700, "Parse error: Invalid JSON-RPC message"}
		}
		msgs = append(msgs, p)
	}
	return msgs, batch, nil
}

// badParams returns the JSON-RPC error for a request whose params MCP
// cannot take, or nil. MCP passes a request's parameters by name, in an
// object; params may also be absent, or null as some clients send it. An
// array (parameters by position) makes a JSON-RPC request whose method
// does not take its params: -32602 Invalid params. A string, a number or a
// boolean makes no JSON-RPC request at all (params must be an object or an
// array): -32600 Invalid Request. The proxy answers such a request itself,
// under its id, because a server may never answer it: the TypeScript SDK,
// most servers' own, drops a message its schema refuses and writes
// nothing, and the client would wait for ever.
func badParams(params []byte) *badBody {
	switch {
	case len(params) == 0 || params[0] == '{' || string(params) == "null":
		return nil
	case params[0] == '[':
		return &badBody{-32602, "Invalid params: params must be an object, not an array"}
	}
	return &badBody{-32600, "Invalid Request: params must be an object"}
}

// compactJSON returns valid JSON without the white space between its
// tokens, at any depth (json.Compact stops at 10,000).
func compactJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
		case '"':
			end := wire.SkipString(data, i)
			out = append(out, data[i:end]...)
			i = end
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// progressToken returns the key (wire.IDKey) of the progress token in a
// request's params._meta, or "".
func progressToken(params []byte) string {
	key, _ := wire.IDKey(member(member(params, "_meta"), "progressToken"))
	return key
}

// errorLine is the JSON-RPC error response, one line, to the request of id
// that the session's server will not answer.
func errorLine(id []byte, why string) []byte {
	return append(wire.ErrorResponse(id, -32000, "Session ended: "+why), '\n')
}

// httpError answers a request that reaches no server with status and a
// JSON-RPC error without an id, as the TypeScript SDK does.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(wire.ErrorResponse(nil, code, msg))
}

// accepts reports whether r's Accept header names the media type want
// (a substring match, as the TypeScript SDK's).
func accepts(r *http.Request, want string) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), want) {
			return true
		}
	}
	return false
}

// sseHeaders sets the headers of an event stream of session id.
// ("" for none: a client of revision 2026-07-28).
func sseHeaders(w http.ResponseWriter, id string) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no") // nginx: no buffering of the events
	if id != "" {
		h.Set(headerSessionID, id)
	}
}

// flusher returns the flush of w's response; a writer that cannot flush
// is no error.
func flusher(w http.ResponseWriter) func() error {
	rc := http.NewResponseController(w)
	return func() error {
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
}
